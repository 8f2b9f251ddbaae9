/**
 * Finding the configuration the way controller-runtime's `GetConfig` does: an
 * explicit file or text, else the files in `KUBECONFIG` (merged, first wins),
 * else the in-cluster service account, else `~/.kube/config`.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { ClientConfig } from './client-config.js';
import { KubeConfigError, fileProblem, kubeconfigSource } from './errors.js';
import { inClusterAvailable, loadInClusterConfig } from './in-cluster.js';
import { parseKubeConfig, type KubeConfigDocument } from './kubeconfig-document.js';
import { mergeKubeConfigs } from './merge.js';
import { resolveContext } from './resolve-context.js';

/**
 * Options of {@link loadKubeConfig}. Without `path` or `kubeconfigText`, the
 * environment decides; `env`, `homeDir` and `serviceAccountDir` replace what
 * this process would see (for tests and tools).
 *
 * @example
 * ```ts
 * import { loadKubeConfig } from '@operant/runtime';
 *
 * const config = await loadKubeConfig({ path: '/etc/operator/kubeconfig', context: 'prod', onWarning: (w) => console.warn(w) });
 * ```
 */
export interface LoadKubeConfigOptions {
  /** One kubeconfig file to use (like `kubectl --kubeconfig`); it must exist. */
  path?: string;
  /** Kubeconfig content (YAML or JSON) to use instead of any file. */
  kubeconfigText?: string;
  /** Where relative paths in `kubeconfigText` are anchored; default the working directory. */
  baseDir?: string;
  /** The context to use instead of `current-context`; also turns off the in-cluster fallback, as in controller-runtime. */
  context?: string;
  /** Default `process.env` (its `KUBECONFIG`, and `KUBERNETES_SERVICE_HOST/PORT` for in-cluster). */
  env?: NodeJS.ProcessEnv;
  /** Where `.kube/config` is looked for; default the user's home directory. */
  homeDir?: string;
  /** Where the in-cluster service account is mounted. */
  serviceAccountDir?: string;
  /** Receives each warning (e.g. an ignored `proxy-url`); default `process.emitWarning`. */
  onWarning?: (message: string) => void;
}

async function readDocument(path: string): Promise<KubeConfigDocument> {
  const text = await readFile(path, 'utf8');
  return parseKubeConfig(text, { file: path, baseDir: dirname(path) });
}

/** Reads the `KUBECONFIG` list: missing files are skipped (as kubectl does), other read errors fail. */
async function readKubeconfigList(list: string): Promise<{ docs: KubeConfigDocument[]; files: string[] }> {
  const paths = [...new Set(list.split(delimiter).filter((p) => p !== '').map((p) => resolve(p)))];
  const docs: KubeConfigDocument[] = [];
  const files: string[] = [];
  for (const path of paths) {
    try {
      docs.push(await readDocument(path));
      files.push(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      if (e instanceof KubeConfigError) throw e;
      throw new KubeConfigError(kubeconfigSource(path), fileProblem(e), { cause: e });
    }
  }
  if (docs.length === 0) throw new KubeConfigError('KUBECONFIG', `none of its files exists: ${paths.join(', ')}`);
  return { docs, files };
}

async function readOneFile(path: string): Promise<KubeConfigDocument> {
  try {
    return await readDocument(path);
  } catch (e) {
    if (e instanceof KubeConfigError) throw e;
    throw new KubeConfigError(kubeconfigSource(path), fileProblem(e), { cause: e });
  }
}

function defaultWarn(message: string): void {
  process.emitWarning(message, { code: 'OPERANT_KUBECONFIG' });
}

/**
 * Loads a client configuration: from `kubeconfigText` or `path` when given;
 * else from the files in `KUBECONFIG` (merged as kubectl merges them: the first
 * file defining a name or a current-context wins); else, in a pod, from the
 * service account; else from `~/.kube/config`. Relative paths in a kubeconfig
 * are resolved against its directory. Errors are {@link KubeConfigError}s naming
 * the file and what is wrong.
 *
 * @example
 * ```ts
 * import { Client, loadKubeConfig } from '@operant/runtime';
 *
 * const config = await loadKubeConfig();                       // what kubectl would use
 * const staging = await loadKubeConfig({ context: 'staging' }); // another context
 * const local = await loadKubeConfig({ path: '.operant/kubeconfig' });
 * const client = Client.fromConfig(config);
 * ```
 */
export async function loadKubeConfig(options: LoadKubeConfigOptions = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const config = await load(options, env);
  for (const warning of config.warnings) (options.onWarning ?? defaultWarn)(warning);
  return config;
}

async function load(options: LoadKubeConfigOptions, env: NodeJS.ProcessEnv): Promise<ClientConfig> {
  if (options.kubeconfigText !== undefined) {
    const doc = await parseKubeConfig(options.kubeconfigText, { baseDir: resolve(options.baseDir ?? '.') });
    return resolveContext(doc, [], options.context);
  }
  if (options.path !== undefined) {
    const path = resolve(options.path);
    return resolveContext(await readOneFile(path), [path], options.context);
  }
  if (env.KUBECONFIG) {
    const { docs, files } = await readKubeconfigList(env.KUBECONFIG);
    return resolveContext(mergeKubeConfigs(docs), files, options.context);
  }
  const inCluster = { env, serviceAccountDir: options.serviceAccountDir };
  if (!options.context && (await inClusterAvailable(inCluster))) return loadInClusterConfig(inCluster);
  const home = join(options.homeDir ?? homedir(), '.kube', 'config');
  try {
    const doc = await readDocument(home);
    return resolveContext(doc, [home], options.context);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new KubeConfigError(
        'kubeconfig',
        `no configuration found: KUBECONFIG is not set, this is not a pod (no KUBERNETES_SERVICE_HOST and service account token), and ${home} does not exist`,
      );
    }
    if (e instanceof KubeConfigError) throw e;
    throw new KubeConfigError(kubeconfigSource(home), fileProblem(e), { cause: e });
  }
}
