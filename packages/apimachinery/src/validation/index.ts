/** Name, label and ObjectMeta validation with kube's messages. */
export * from './names.js';
export * from './object-meta.js';
