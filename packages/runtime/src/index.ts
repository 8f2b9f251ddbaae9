export * from './workqueue/index.js';
export * from './client/index.js';
export * from './config/index.js';
export * from './kind.js';
export * from './cache/index.js';
export * from './controller/index.js';
export * from './manager/index.js';
export * from './metrics/index.js';
