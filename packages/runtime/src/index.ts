export * from './workqueue/index.js';
