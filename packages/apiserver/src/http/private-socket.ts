/**
 * A private way in for the process that embeds the server: plain HTTP on a
 * Unix domain socket, for a client beside the server (a test environment's
 * fault proxy) that should not pay for a TLS leg to its own process. The
 * socket lives in a fresh directory made for it (0700) and is itself 0600, so
 * no other user can open it; the directory is there before the socket is, so
 * there is no moment when the socket is reachable with the umask's mode.
 * Requests on it are authenticated like any other (bearer tokens; there is no
 * TLS, so no client certificates): the socket spares encryption, not trust.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateSocket {
  /** The socket's path (`<tmpdir>/operant-apiserver-XXXXXX/api.sock`). */
  readonly path: string;
  /** Stops listening (`server`'s connections are the caller's to close) and removes the directory. */
  close(): Promise<void>;
}

/** Makes `server` listen on a socket in a new private directory. */
export async function listenPrivateSocket(server: Server): Promise<PrivateSocket> {
  const dir = await mkdtemp(join(tmpdir(), 'operant-apiserver-'));
  const path = join(dir, 'api.sock');
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
  let closed: Promise<void> | undefined;
  return {
    path,
    close: () =>
      (closed ??= new Promise<void>((resolve) => server.close(() => resolve())).then(() => rm(dir, { recursive: true, force: true }))),
  };
}
