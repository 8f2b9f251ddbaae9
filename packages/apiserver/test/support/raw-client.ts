/**
 * A raw HTTPS client for the bad-input and fuzz tests: sends exactly the bytes,
 * method, path and headers it is given (no default Content-Type, bodies may be
 * invalid UTF-8), verifies the server against its CA, and never lets one
 * answer hang a test: streaming answers (watches) are read briefly and then
 * cut, everything else is bounded by a timeout.
 */
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query, sent as given (`/api/v1/pods?limit=1`). */
  path: string;
  body?: Buffer | string;
  /** Extra headers; `undefined` values are left out. */
  headers?: Record<string, string | undefined>;
  /** Send the admin bearer token (default true). */
  auth?: boolean;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
  /** True when the answer was a stream (no Content-Length) that the client cut after a moment. */
  streamed: boolean;
}

export interface RawClientOptions {
  /** How long to read a streaming answer before cutting it (ms). */
  streamReadMs?: number;
  /** A request that has not finished by then fails (ms). */
  timeoutMs?: number;
}

export class RawClient {
  private readonly agent: https.Agent;
  private readonly streamReadMs: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly url: string,
    caPem: string,
    private readonly token: string,
    options: RawClientOptions = {},
  ) {
    this.agent = new https.Agent({ keepAlive: true, ca: caPem, maxSockets: 16 });
    this.streamReadMs = options.streamReadMs ?? 25;
    this.timeoutMs = options.timeoutMs ?? 15_000;
  }

  close(): void {
    this.agent.destroy();
  }

  send(r: RawRequest): Promise<RawResponse> {
    const payload = r.body === undefined ? undefined : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body, 'utf8');
    const headers: Record<string, string> = {};
    if (r.auth !== false) headers.Authorization = `Bearer ${this.token}`;
    if (payload) headers['Content-Length'] = String(payload.length);
    for (const [k, v] of Object.entries(r.headers ?? {})) if (v !== undefined) headers[k] = v;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | undefined, res?: RawResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(res!);
      };
      const req = https.request(`${this.url}${r.path}`, { method: r.method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        const streaming = res.headers['content-length'] === undefined && r.method !== 'HEAD' && res.statusCode === 200;
        let cut = false;
        const done = (): void => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, text, json, streamed: cut });
        };
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', done);
        res.on('error', (e) => (cut ? done() : finish(e)));
        res.on('close', () => {
          if (cut) done();
        });
        if (streaming) {
          setTimeout(() => {
            if (res.complete) return;
            cut = true;
            res.destroy();
          }, this.streamReadMs);
        }
      });
      const timer = setTimeout(() => {
        req.destroy();
        finish(new Error(`no complete answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.on('error', (e) => finish(e));
      req.end(payload);
    });
  }
}
