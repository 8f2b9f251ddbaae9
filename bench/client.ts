/**
 * The benchmark client: HTTPS with keep-alive over a fixed number of
 * connections, the kubeconfig's CA and bearer token, closed-loop load, and
 * watch streams that timestamp each event line as it arrives.
 */
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface Endpoint {
  url: string;
  caPem: string;
  token: string;
}

/** The server URL, CA and admin token from a kubeconfig written by `operant server`. */
export function readKubeconfig(path: string): Endpoint {
  const config = parseYaml(readFileSync(path, 'utf8')) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
    users: Array<{ user: { token: string } }>;
  };
  const cluster = config.clusters[0].cluster;
  return {
    url: cluster.server,
    caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
    token: config.users[0].user.token,
  };
}

export interface Reply {
  status: number;
  body: Buffer;
}

export class Client {
  readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly auth: string;

  constructor(
    readonly endpoint: Endpoint,
    connections: number,
  ) {
    const url = new URL(endpoint.url);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.auth = `Bearer ${endpoint.token}`;
    this.agent = new Agent({ keepAlive: true, maxSockets: connections, ca: endpoint.caPem });
  }

  send(method: string, path: string, body?: string, contentType = 'application/json'): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { Authorization: this.auth, Accept: 'application/json' };
      if (body !== undefined) {
        headers['Content-Type'] = contentType;
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = request({ host: this.host, port: this.port, method, path, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Sends and insists on a 2xx. */
  async ok(method: string, path: string, body?: string, contentType?: string): Promise<Buffer> {
    const r = await this.send(method, path, body, contentType);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${r.body.toString('utf8').slice(0, 500)}`);
    return r.body;
  }

  /**
   * Opens a watch stream on its own connection; `onLine` gets each event line
   * and the time (performance.now()) its chunk arrived.
   */
  watch(path: string, onLine: (line: string, at: number) => void): Promise<{ close(): void }> {
    return new Promise((resolve, reject) => {
      const agent = new Agent({ keepAlive: false, ca: this.endpoint.caPem });
      const req = request({ host: this.host, port: this.port, path, agent, headers: { Authorization: this.auth, Accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${path}: ${res.statusCode}`));
          res.resume();
          return;
        }
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = performance.now();
          let text = rest + chunk;
          let nl: number;
          while ((nl = text.indexOf('\n')) >= 0) {
            onLine(text.slice(0, nl), at);
            text = text.slice(nl + 1);
          }
          rest = text;
        });
        res.on('error', () => {});
        resolve({ close: () => req.destroy() });
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Runs `op` in `concurrency` loops until `durationMs` has passed (or each loop
 * has done `maxPerWorker` operations); returns operations per second.
 */
export async function closedLoop(
  concurrency: number,
  limits: { durationMs?: number; total?: number },
  op: (worker: number, i: number) => Promise<void>,
): Promise<{ ops: number; seconds: number; perSecond: number }> {
  const started = performance.now();
  const deadline = limits.durationMs !== undefined ? started + limits.durationMs : Infinity;
  let next = 0;
  let ops = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (;;) {
        if (performance.now() >= deadline) return;
        const i = next++;
        if (limits.total !== undefined && i >= limits.total) return;
        await op(w, i);
        ops++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { ops, seconds, perSecond: ops / seconds };
}
