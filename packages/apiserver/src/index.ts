export { startApiServer, type ApiServerOptions, type RunningApiServer } from './server.js';
export { kubeVersion } from './version.js';
