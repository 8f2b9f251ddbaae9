import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DirectoryError, fileErrorReason, makeDirectories } from './make-directories.js';

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

