/**
 * The configuration of a pod's own service account: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the token (re-read as the kubelet rotates it),
 * the cluster CA and the pod's namespace, from the mounted service account.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientConfig } from './client-config.js';
import { KubeConfigError, fileProblem } from './errors.js';
import { readPemFile } from './pem.js';
import { TokenFileProvider } from './token-file.js';

/**
 * Where kubelet mounts the service account's token, CA and namespace.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { join } from 'node:path';
 * import { serviceAccountDir } from '@operant/runtime';
 *
 * const token = await readFile(join(serviceAccountDir, 'token'), 'utf8');
 * ```
 */
export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Options of {@link loadInClusterConfig}; the defaults are what a pod sees.
 *
 * @example
 * ```ts
 * import { loadInClusterConfig } from '@operant/runtime';
 *
 * await loadInClusterConfig({ serviceAccountDir: '/tmp/sa', env: { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' } });
 * ```
 */
export interface InClusterOptions {
  /** Default {@link serviceAccountDir}. */
  serviceAccountDir?: string;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

const source = 'in-cluster config';

/**
 * Whether this process looks like it runs in a pod: the service env variables and the token file are there.
 *
 * @example
 * ```ts
 * import { inClusterAvailable, loadInClusterConfig, loadKubeConfig } from '@operant/runtime';
 *
 * const config = (await inClusterAvailable()) ? await loadInClusterConfig() : await loadKubeConfig();
 * ```
 */
export async function inClusterAvailable(options: InClusterOptions = {}): Promise<boolean> {
  const env = options.env ?? process.env;
  if (!env.KUBERNETES_SERVICE_HOST || !env.KUBERNETES_SERVICE_PORT) return false;
  try {
    await access(join(options.serviceAccountDir ?? serviceAccountDir, 'token'));
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the in-cluster configuration, as client-go's `rest.InClusterConfig`.
 *
 * @example
 * ```ts
 * import { Client, loadInClusterConfig } from '@operant/runtime';
 *
 * const config = await loadInClusterConfig(); // in a pod
 * const client = Client.fromConfig(config);
 * ```
 */
export async function loadInClusterConfig(options: InClusterOptions = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const dir = options.serviceAccountDir ?? serviceAccountDir;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeConfigError(source, 'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set (is this process running in a pod?)');
  }
  const tokenPath = join(dir, 'token');
  const credentials = new TokenFileProvider(tokenPath, source);
  await credentials.credentials(); // fail now, naming the file, rather than on the first request
  const ca = await readPemFile(source, 'ca.crt', join(dir, 'ca.crt'));
  let namespace = 'default';
  try {
    namespace = (await readFile(join(dir, 'namespace'), 'utf8')).trim() || 'default';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new KubeConfigError(source, `namespace file: ${fileProblem(e)}`, { cause: e });
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    namespace,
    tls: { ca, insecureSkipTlsVerify: false },
    credentials,
    source: { kind: 'in-cluster', files: [] },
    warnings: [],
  };
}
