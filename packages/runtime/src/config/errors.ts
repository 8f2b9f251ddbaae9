/**
 * The one error type of configuration loading: it names where the bad
 * configuration came from (a kubeconfig file, the in-cluster service account)
 * and what is wrong with it.
 */

/**
 * A kubeconfig, in-cluster or credential-plugin configuration that cannot be used.
 *
 * @example
 * ```ts
 * import { KubeConfigError, loadKubeConfig } from '@operant/runtime';
 *
 * try {
 *   await loadKubeConfig({ context: 'prod' });
 * } catch (e) {
 *   if (e instanceof KubeConfigError) console.error(e.message); // kubeconfig /home/me/.kube/config: context "prod" not found
 * }
 * ```
 */
export class KubeConfigError extends Error {
  /** The file (or other source, e.g. `in-cluster`) the problem is in. */
  readonly source: string;

  constructor(source: string, problem: string, options?: { cause?: unknown }) {
    super(`${source}: ${problem}`, options);
    this.name = 'KubeConfigError';
    this.source = source;
  }
}

/** `kubeconfig <path>`, or `kubeconfig text` when it was given inline. */
export function kubeconfigSource(path: string | undefined): string {
  return path === undefined ? 'kubeconfig text' : `kubeconfig ${path}`;
}

/** A short reason for a failed file operation: `no such file or directory` rather than the full Node message. */
export function fileProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return e instanceof Error ? e.message : String(err);
  }
}
