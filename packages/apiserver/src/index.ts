export { startApiServer, type ApiServerOptions, type RunningApiServer } from './server.js';
export type { ProvidedServingMaterial } from './tls/material.js';
export { defaultServingCacheDir } from './tls/serving-cache.js';
export { kubeVersion } from './version.js';
