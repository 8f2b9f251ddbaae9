/**
 * A private way in for the process that embeds the server: plain HTTP on a
 * Unix domain socket, for a client beside the server (a test environment's
 * fault proxy) that should not pay for a TLS leg to its own process. The
 * socket lives in a fresh directory made for it (0700) and is itself 0600, so
 * no other user can open it; the directory is there before the socket is, so
 * there is no moment when the socket is reachable with the umask's mode.
 * Requests on it are authenticated like any other (bearer tokens; there is no
 * TLS, so no client certificates): the socket spares encryption, not trust.
 *
 * The directory is removed at close, and when the process exits without
 * closing it (process.exit, an uncaught exception). A process killed outright
 * (SIGKILL, a signal it has no handler for) leaves its directory behind: the
 * first socket a later process opens sweeps such leftovers of this user's
 * away, once their socket is old and nobody listens on it.
 */
import { rmSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirPrefix = 'operant-apiserver-';
const socketName = 'api.sock';

export interface PrivateSocket {
  /** The socket's path (`<tmpdir>/operant-apiserver-XXXXXX/api.sock`). */
  readonly path: string;
  /** Stops listening (`server`'s connections are the caller's to close) and removes the directory. */
  close(): Promise<void>;
}

/** Makes `server` listen on a socket in a new private directory. */
export async function listenPrivateSocket(server: Server): Promise<PrivateSocket> {
  const dir = await mkdtemp(join(tmpdir(), dirPrefix));
  const path = join(dir, socketName);
  try {
    // mkdtemp asks for 0700, less the umask's bits: set it whatever the umask.
    await chmod(dir, 0o700);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(path, 0o600);
  } catch (err) {
    server.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  openDirs.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', removeOpenDirs);
  }
  if (!swept) {
    swept = true;
    // Not awaited: a start does not wait for the leftovers of other processes.
    void sweepLeftovers(tmpdir(), dir).catch(() => undefined);
  }
  let closed: Promise<void> | undefined;
  return {
    path,
    close: () =>
      (closed ??= new Promise<void>((resolve) => server.close(() => resolve())).then(async () => {
        await rm(dir, { recursive: true, force: true });
        openDirs.delete(dir);
      })),
  };
}

/** The directories of this process's sockets not yet closed: removed if the process exits first. */
const openDirs = new Set<string>();
let exitHookInstalled = false;
let swept = false;

/** At exit only synchronous work runs. */
function removeOpenDirs(): void {
  for (const dir of openDirs) rmSync(dir, { recursive: true, force: true });
}

/** How old a leftover's socket must be before it is taken for one: a process starting now may not listen yet. */
export const leftoverAgeMs = 60_000;

/**
 * Removes the socket directories under `parent` (other than `own`) that
 * processes of this user left behind: the socket (or, with none, the
 * directory) older than {@link leftoverAgeMs}, and a connection to it refused.
 */
export async function sweepLeftovers(parent: string, own?: string): Promise<string[]> {
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of await readdir(parent)) {
    if (!name.startsWith(dirPrefix)) continue;
    const dir = join(parent, name);
    if (dir === own) continue;
    try {
      const info = await lstat(dir);
      if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      const socket = await lstat(join(dir, socketName)).catch(() => undefined);
      const since = (socket ?? info).mtimeMs;
      if (Date.now() - since < leftoverAgeMs) continue;
      if (socket && (!socket.isSocket() || (await listening(join(dir, socketName))))) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // Gone meanwhile, or not ours to read: left as it is.
    }
  }
  return removed;
}

/** Whether a server accepts connections on the Unix socket at `path`. */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    // ECONNREFUSED: nobody listens; any other error is taken as someone's, to be safe.
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'ECONNREFUSED'));
  });
}
