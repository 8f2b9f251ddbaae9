/**
 * Client configuration: kubeconfig files and contexts, the in-cluster service
 * account, and the credentials they name (token, token file, client
 * certificates, basic auth, exec credential plugins).
 */
export type { ClientConfig, Impersonation, TlsConfig } from './client-config.js';
export { staticCredentials, type ClientCertificate, type CredentialProvider, type Credentials } from './credentials.js';
export { KubeConfigError } from './errors.js';
export { ExecCredentialProvider, type ExecClusterInfo, type ExecCredentialOptions } from './exec-credential.js';
export { inClusterAvailable, loadInClusterConfig, serviceAccountDir, type InClusterOptions } from './in-cluster.js';
export { mergeKubeConfigs } from './merge.js';
export {
  parseKubeConfig,
  type ExecConfig,
  type ExecEnvVar,
  type KubeConfigCluster,
  type KubeConfigContext,
  type KubeConfigDocument,
  type KubeConfigUser,
  type Sourced,
} from './kubeconfig-document.js';
export { loadKubeConfig, type LoadKubeConfigOptions } from './load.js';
export { resolveContext } from './resolve-context.js';
export { TokenFileProvider } from './token-file.js';
