/**
 * A bearer token read from a file (kubeconfig `tokenFile`, the in-cluster
 * service account token), re-read whenever the file changes: projected
 * service-account tokens are rotated by the kubelet.
 */
import { readFile, stat } from 'node:fs/promises';
import type { CredentialProvider, Credentials } from './credentials.js';
import { KubeConfigError, fileProblem } from './errors.js';

/** What identifies one version of the file: a rename over it changes the inode, a rewrite the mtime or size. */
function fingerprint(s: { ino: bigint; size: bigint; mtimeNs: bigint }): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}`;
}

/**
 * Reads the token in `path`, checking the file on each use (one `stat`) and
 * reading it again when it changed. When a re-read fails or yields an empty
 * token, the last good token is kept, as client-go does.
 *
 * @example
 * ```ts
 * import { TokenFileProvider } from '@operant/runtime';
 *
 * const provider = new TokenFileProvider('/var/run/secrets/kubernetes.io/serviceaccount/token', 'in-cluster');
 * const { token } = await provider.credentials();
 * ```
 */
export class TokenFileProvider implements CredentialProvider {
  readonly description: string;
  private current: { fingerprint: string; credentials: Credentials } | undefined;

  /** `source` names where the file was configured, for errors (e.g. `kubeconfig /home/me/.kube/config`). */
  constructor(
    readonly path: string,
    private readonly source: string,
  ) {
    this.description = `tokenFile ${path}`;
  }

  async credentials(): Promise<Credentials> {
    let seen: string;
    try {
      seen = fingerprint(await stat(this.path, { bigint: true }));
    } catch (e) {
      if (this.current) return this.current.credentials;
      throw new KubeConfigError(this.source, `tokenFile ${this.path}: ${fileProblem(e)}`, { cause: e });
    }
    if (this.current?.fingerprint === seen) return this.current.credentials;
    let token: string;
    try {
      token = (await readFile(this.path, 'utf8')).trim();
    } catch (e) {
      if (this.current) return this.current.credentials;
      throw new KubeConfigError(this.source, `tokenFile ${this.path}: ${fileProblem(e)}`, { cause: e });
    }
    if (token === '') {
      if (this.current) return this.current.credentials;
      throw new KubeConfigError(this.source, `tokenFile ${this.path} is empty`);
    }
    this.current = { fingerprint: seen, credentials: Object.freeze({ token }) };
    return this.current.credentials;
  }

  invalidate(): boolean {
    // The file is checked on every request anyway; a retry helps only if it changed meanwhile.
    return false;
  }
}
