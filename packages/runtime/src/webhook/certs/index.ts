/**
 * Serving certificates for the webhook server: generated (in memory or once
 * into a directory for local runs), read from a mounted Secret and reloaded on
 * change, and the CA written into webhook configurations and CRDs.
 */
export { injectCABundle, localWebhookClientConfig, type CABundleClient, type CABundleOutcome, type CABundleTargets, type InjectCABundleOptions } from './ca-bundle.js';
export { DirectoryCertificateSource, directoryCertificateSource, type DirectoryCertificateSourceOptions } from './directory-source.js';
export { generateServingCertificate, type CertificateAuthority, type GeneratedCertificates, type ServingCertificateOptions } from './generate.js';
export { ensureLocalCertificates, localCertificateFiles, type LocalCertificates, type LocalCertificatesOptions } from './local.js';
export { serviceDnsNames, type ServiceName } from './names.js';
export { CertificateError } from './pair.js';
export { staticCertificateSource } from './static-source.js';
