import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** What a kubeconfig for the embedded server needs. */
export interface KubeconfigOptions {
  /** Server URL, e.g. `https://127.0.0.1:6443`. */
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
  /** Bearer token of the user. */
  token: string;
  /** Name of the cluster, user and context; defaults to `operant`. */
  name?: string;
}

/**
 * Renders a kubeconfig with one cluster, one token user and one context (namespace `default`)
 * that is the current context. It is written as JSON, which every kubeconfig reader accepts
 * (JSON is YAML): no YAML library is loaded at start-up, and no token can be misread as a
 * YAML 1.1 boolean.
 */
export function kubeconfigText(options: KubeconfigOptions): string {
  const name = options.name ?? 'operant';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server: options.server, 'certificate-authority-data': Buffer.from(options.caPem, 'utf8').toString('base64') } }],
    users: [{ name, user: { token: options.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: 'default' } }],
    'current-context': name,
    preferences: {},
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Writes a kubeconfig atomically with mode 0600, creating parent directories; a path it cannot write is refused naming it. */
export async function writeKubeconfig(path: string, yaml: string): Promise<void> {
  try {
    await writeFileAtomic(path, yaml, 0o600);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = e instanceof DirectoryError ? e.message : code === 'EISDIR' ? `${path} is a directory` : fileErrorReason(e);
    throw new Error(`cannot write the kubeconfig ${path}: ${why}`, { cause: e });
  }
}

/**
 * Writes `data` to `path` so that readers see either the old or the new content, never a
 * partial file: write and fsync a temporary sibling, then rename it over `path`.
 *
 * Every caller is on the server's start path (certificates, keys, kubeconfig), which waits for
 * it before `ready`: node:fs's synchronous calls do the work, so that the start does not wait
 * for six round trips through libuv's thread pool (nor start its threads), each one a wake-up
 * of another thread on a loaded machine.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const dir = dirname(path);
  makeDirectories(dir);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // 'wx' so the mode applies (it only does on creation) and a stale file is never reused.
    const fd = openSync(tmp, 'wx', mode);
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // Never made, or already gone.
    }
    throw err;
  }
}

/** What is wrong with a directory on the way to a file: not a directory, or one that cannot be created. */
class DirectoryError extends Error {}

/** The reason of a Node file-system error without its code and path: `read-only file system` of `EROFS: read-only file system, mkdir '/x'`. */
function fileErrorReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return /^[A-Z]+: (.*?), \w+ '.*'$/.exec(message)?.[1] ?? message;
}

/**
 * `mkdir -p`, a directory at a time: Node's recursive mkdir loops forever (synchronously: the
 * whole process) where a directory exists but its child's mkdir says ENOENT, as under /proc.
 */
function makeDirectories(dir: string): void {
  try {
    mkdirSync(dir);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      let isDirectory = false;
      try {
        isDirectory = statSync(dir).isDirectory();
      } catch {
        // A dangling symbolic link: not a directory either.
      }
      if (isDirectory) return;
      throw new DirectoryError(`${dir} is not a directory`);
    }
    if (code !== 'ENOENT' || dirname(dir) === dir) throw new DirectoryError(`cannot create ${dir}: ${fileErrorReason(e)}`, { cause: e });
  }
  makeDirectories(dirname(dir));
  try {
    mkdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new DirectoryError(`cannot create ${dir}: ${fileErrorReason(e)}`, { cause: e });
  }
}
