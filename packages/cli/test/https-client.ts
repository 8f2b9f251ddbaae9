/**
 * A small HTTPS client for the CLI's server tests: the kubeconfig's CA and
 * bearer token, keep-alive, JSON bodies, and line-by-line watches.
 */
import { Agent, request } from 'node:https';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { ServerProcess } from './harness.js';

export interface Response {
  status: number;
  body: any;
}

/** A client for one server process: HTTPS with the kubeconfig's CA and bearer token, keep-alive. */
export class Client {
  private readonly agent: Agent;
  private readonly base: URL;
  private readonly token: string;

  constructor(server: ServerProcess) {
    const config = parseYaml(readFileSync(server.kubeconfig, 'utf8')) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { token: string } }>;
    };
    const cluster = config.clusters[0].cluster;
    this.base = new URL(cluster.server);
    this.token = config.users[0].user.token;
    this.agent = new Agent({ keepAlive: true, ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') });
  }

  send(method: string, path: string, body?: unknown): Promise<Response> {
    return new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: 'application/json',
            ...(text !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = raw;
            try {
              parsed = JSON.parse(raw);
            } catch {
              // not JSON; keep the text
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
          res.on('close', () => {
            if (!res.complete) reject(new Error('connection closed mid-response'));
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  /**
   * Opens a watch and calls `onEvent` for each event line. Resolves once the
   * response headers arrived (so the watch is registered on the server).
   */
  watch(path: string, onEvent: (event: { type: string; object: any }) => void): Promise<{ status: number; close(): void }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.base.hostname,
          port: this.base.port,
          path,
          // A watch holds its connection; keep it off the shared keep-alive pool.
          agent: new Agent({ keepAlive: false, ca: this.agent.options.ca }),
          headers: { Authorization: `Bearer ${this.token}`, Accept: 'application/json' },
        },
        (res) => {
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              const line = buffered.slice(0, nl);
              buffered = buffered.slice(nl + 1);
              if (line.trim()) onEvent(JSON.parse(line) as { type: string; object: any });
            }
          });
          res.on('error', () => {});
          resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
        },
      );
      req.on('error', (e) => reject(e));
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export const cmPath = (name?: string): string => `/api/v1/namespaces/default/configmaps${name ? `/${name}` : ''}`;

export function configMap(name: string, data: Record<string, string>, resourceVersion?: string): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) }, data };
}

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}


/** A watch event as the tests keep it. */
export interface SeenEvent {
  type: string;
  name: string;
  rv: number;
  data: Record<string, string>;
}

/**
 * A watch callback that records each event into `into` and each ERROR event
 * into `errors` (failures inside stream callbacks would be lost: the tests
 * assert on both afterwards). Bookmarks are skipped.
 */
export function recordEvents(into: SeenEvent[], errors: string[]): (e: { type: string; object: any }) => void {
  return (e) => {
    if (e.type === 'ERROR') errors.push(JSON.stringify(e.object));
    else if (e.type !== 'BOOKMARK') into.push({ type: e.type, name: e.object.metadata.name, rv: Number(e.object.metadata.resourceVersion), data: e.object.data ?? {} });
  };
}
