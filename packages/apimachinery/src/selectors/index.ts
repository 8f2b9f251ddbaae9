/** Label and field selectors: parsing, matching and kube's error wording. */
export * from './labels.js';
export * from './fields.js';
