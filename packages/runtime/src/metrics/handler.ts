/**
 * Serving a registry's text exposition over HTTP, for Prometheus to scrape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What {@link metricsHandler} serves: a {@link MetricsRegistry} or a prom-client `Registry`.
 *
 * @example
 * ```ts
 * import type { MetricsSource } from '@operant/runtime';
 *
 * const source: MetricsSource = { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: async () => 'up 1\n' };
 * ```
 */
export type MetricsSource = { readonly contentType: string } & ({ text(): Promise<string> } | { metrics(): Promise<string> });

/**
 * A Node request listener answering GET and HEAD with the current metrics
 * (any path: mount it where it belongs), 405 for other methods, 500 when a
 * collector fails.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { metricsHandler, MetricsRegistry } from '@operant/runtime/metrics';
 *
 * const metrics = new MetricsRegistry();
 * const serve = metricsHandler(metrics);
 * createServer((req, res) => (req.url?.startsWith('/metrics') ? serve(req, res) : res.writeHead(404).end())).listen(8080);
 * ```
 */
export function metricsHandler(source: MetricsSource): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    const collect = 'text' in source ? source.text() : source.metrics();
    collect.then(
      (body) => {
        res.writeHead(200, { 'Content-Type': source.contentType, 'Content-Length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        if (res.headersSent) return void res.destroy();
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`error gathering metrics: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  };
}
