/** A TCP port free on 127.0.0.1 now (the OS picks it), for a server that starts later. */
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
