/**
 * A small HTTP server for the manager's endpoints (metrics, health probes)
 * that reports the address it bound and closes without leaving connections
 * (and so the process) hanging. Internal.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';

/**
 * Where a manager's server listens.
 *
 * @example
 * ```ts
 * const { host, port } = mgr.metricsAddress!;
 * await fetch(`http://${host}:${port}/metrics`);
 * ```
 */
export interface ServerAddress {
  host: string;
  port: number;
}

export interface RunningServer {
  readonly address: ServerAddress;
  close(): Promise<void>;
}

/** Routes a request, or resolves false for a 404. */
export type Route = (req: IncomingMessage, res: ServerResponse, path: string) => boolean | Promise<boolean>;

/** Listens on `host:port` (port 0 picks a free port). */
export async function listen(host: string, port: number, route: Route): Promise<RunningServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    Promise.resolve()
      .then(() => route(req, res, path))
      .then(
        (handled) => {
          if (!handled) res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        },
        (err: unknown) => {
          if (res.headersSent) return void res.destroy();
          res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${err instanceof Error ? err.message : String(err)}\n`);
        },
      );
  });
  const address = await bind(server, host, port);
  let closed: Promise<void> | undefined;
  return {
    address,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

/** Binds `server` to `host:port` (port 0 picks a free one) and resolves with the bound address; rejects on a bind error. */
export function bind(server: Server, host: string | undefined, port: number): Promise<ServerAddress> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const bound = server.address() as AddressInfo;
      resolve({ host: bound.address, port: bound.port });
    });
  });
}
