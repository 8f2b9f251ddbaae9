/**
 * `@operant/testing/install`: putting an operator's manifests on a cluster
 * for a local run: its CRDs (awaited until Established) and its webhook
 * configurations pointed at a webhook server on this machine. TestEnv,
 * `operant dev` and the examples' demos share it. It loads no API server, so
 * a command may import it without paying for one.
 */
export { installCrds, kindOfCrd, type CrdInstallOptions } from './crds.js';
export { projectManifests, readManifests, type ManifestSource } from './manifests.js';
export { createOrReplace, type InstallOptions } from './objects.js';
export { installLocalWebhooks, removeLocalWebhooks, type InstalledWebhooks, type LocalWebhookTarget } from './webhooks.js';
