/**
 * For tests: a plain-HTTP server on a free port that answers each request as
 * a script says, with a configuration that points clients and managers at it.
 * It plays what the embedded server never does on its own: a 503 on every
 * list, or a 404 on a list that its discovery document contradicts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientConfig } from '../config/client-config.js';
import { loadKubeConfig } from '../config/load.js';

/** An answer: the status code, and a body sent as JSON (none when absent: a watch that ends at once). */
export interface ScriptedAnswer {
  status: number;
  body?: unknown;
}

/** A running scripted server. */
export interface ScriptedServer {
  /** Reaches the server, as `kubeconfig` for a manager or `Client.fromConfig`. */
  readonly config: ClientConfig;
  /** `GET /api/v1/configmaps?limit=500`: every request so far, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/**
 * A server answering with what `answer` returns for each method and path (the
 * path without its query).
 *
 * @example
 * ```ts
 * const server = await scriptedServer(() => statusBody(503, 'ServiceUnavailable'));
 * const mgr = await Manager.create({ kubeconfig: server.config, cacheSyncTimeoutMs: 200 });
 * ```
 */
export async function scriptedServer(answer: (method: string, path: string) => ScriptedAnswer): Promise<ScriptedServer> {
  const requests: string[] = [];
  const http = createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push(`${req.method} ${url}`);
    const { status, body } = answer(req.method ?? 'GET', url.split('?')[0] ?? url);
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const server = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const kubeconfig = { clusters: [{ name: 's', cluster: { server } }], contexts: [{ name: 's', context: { cluster: 's' } }], 'current-context': 's' };
  return {
    config: await loadKubeConfig({ kubeconfigText: JSON.stringify(kubeconfig) }),
    requests,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** A metav1.Status body with `code` and `reason`. */
export function statusBody(code: number, reason: string): ScriptedAnswer {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message: `scripted ${reason}` } };
}
