/**
 * A small HTTPS client for tests that talk to the embedded server over the
 * wire: verifies the server's certificate against its CA, sends the admin
 * bearer token, and reads watch streams event by event.
 */
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../../src/server.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Json = any;

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Json;
  text: string;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Json;
}

/** How a watch response ended: `end` is a clean end of the chunked body; anything else is a cut connection. */
export type WatchEnding = 'end' | 'aborted';

/** Fails a wait that should have been satisfied long ago; a safety net, not a delay. */
const defaultWaitMs = 10_000;

export class TestApi {
  /** Keep-alive connections for ordinary requests. */
  readonly agent: https.Agent;

  private constructor(readonly server: RunningApiServer) {
    this.agent = new https.Agent({ keepAlive: true, ca: server.caPem });
  }

  static async start(options: ApiServerOptions = {}): Promise<TestApi> {
    return new TestApi(await startApiServer({ port: 0, ...options }));
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    await this.server.stop();
  }

  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(path, this.server.url),
        {
          method,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.server.adminToken}`,
            Accept: 'application/json',
            ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: Json = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              // not JSON: keep the text
            }
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** A request that must answer `expected`; returns the parsed body. */
  async ok(method: string, path: string, body?: unknown, expected: number | number[] = [200, 201], headers?: Record<string, string>): Promise<Json> {
    const r = await this.request(method, path, body, headers);
    const codes = Array.isArray(expected) ? expected : [expected];
    if (!codes.includes(r.status)) throw new Error(`${method} ${path}: expected ${codes.join('/')}, got ${r.status}: ${r.text}`);
    return r.body;
  }

  async createNamespace(name: string): Promise<void> {
    await this.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, 201);
  }

  /** Creates a namespaced CRD with one version, v1, of `kind` (plural and singular: its lowercase + s). */
  async createCrd(group: string, kind: string, schema: Json, subresources?: Json): Promise<void> {
    const singular = kind.toLowerCase();
    const plural = `${singular}s`;
    const version: Json = { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } };
    if (subresources) version.subresources = subresources;
    const spec = { group, scope: 'Namespaced', names: { plural, singular, kind, listKind: `${kind}List` }, versions: [version] };
    await this.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `${plural}.${group}` }, spec }, 201);
  }

  /** Starts a watch; resolves once the response headers arrived. Each watch has its own connection. */
  watch(path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, this.server.url), {
        method: 'GET',
        agent: false,
        ca: this.server.caPem,
        headers: { Authorization: `Bearer ${this.server.adminToken}`, Accept: 'application/json', ...headers },
      });
      req.on('response', (res) => resolve(new WatchStream(req, res)));
      req.on('error', reject);
      req.end();
    });
  }
}

/** One watch response, read line by line into events. */
export class WatchStream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Every event received so far, in order. */
  readonly events: WatchEvent[] = [];
  /** Bytes of body received. */
  bytes = 0;
  /** Resolves when the response is over, telling how it ended. */
  readonly ended: Promise<WatchEnding>;
  private ending: WatchEnding | undefined;
  private cursor = 0;
  private partial: string[] = [];
  private waiters: Array<() => void> = [];

  constructor(
    private readonly req: ReturnType<typeof https.request>,
    private readonly res: IncomingMessage,
  ) {
    this.status = res.statusCode ?? 0;
    this.headers = res.headers;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.bytes += Buffer.byteLength(chunk);
      // Only the new chunk is searched for line ends, so long events stay cheap to read.
      let start = 0;
      let nl: number;
      while ((nl = chunk.indexOf('\n', start)) >= 0) {
        this.partial.push(chunk.slice(start, nl));
        const line = this.partial.join('');
        this.partial = [];
        start = nl + 1;
        if (line.trim()) this.events.push(JSON.parse(line) as WatchEvent);
      }
      if (start < chunk.length) this.partial.push(chunk.slice(start));
      this.wake();
    });
    this.ended = new Promise((resolve) => {
      let clean = false;
      res.on('end', () => (clean = true));
      res.on('error', () => {});
      req.on('error', () => {});
      res.on('close', () => {
        // A body cut short is an incomplete chunked message: Node marks it not complete.
        this.ending = clean && res.complete ? 'end' : 'aborted';
        this.wake();
        resolve(this.ending);
      });
    });
  }

  /** True once the response is over. */
  get done(): boolean {
    return this.ending !== undefined;
  }

  /** The next event not yet taken; rejects if the stream ends first or nothing comes within `timeoutMs`. */
  async next(timeoutMs = defaultWaitMs): Promise<WatchEvent> {
    await this.waitFor(() => this.cursor < this.events.length || this.done, timeoutMs, 'the next watch event');
    if (this.cursor < this.events.length) return this.events[this.cursor++];
    throw new Error(`watch ended (${this.ending}) before the next event; received ${this.events.length} events`);
  }

  /** The next `n` events. */
  async take(n: number, timeoutMs = defaultWaitMs): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(timeoutMs));
    return out;
  }

  /** Takes events up to and including the first one matching `pred`; returns them all. */
  async until(pred: (e: WatchEvent) => boolean, timeoutMs = defaultWaitMs): Promise<WatchEvent[]> {
    const out: WatchEvent[] = [];
    for (;;) {
      const e = await this.next(timeoutMs);
      out.push(e);
      if (pred(e)) return out;
    }
  }

  /** Stops reading: the server's writes back up as they would behind a stuck client. */
  pause(): void {
    this.res.pause();
  }

  resume(): void {
    this.res.resume();
  }

  /** Closes the connection from the client side. */
  close(): void {
    this.req.destroy();
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  private async waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (cond()) return;
    await new Promise<void>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; received ${this.events.length} events`));
      }, timeoutMs);
      const check = (): void => {
        if (timedOut) return;
        if (cond()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }
}

/** A ConfigMap body. */
export function configMap(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

/** The (type, name, resourceVersion) of an event, for comparing sequences. */
export function summary(e: WatchEvent): string {
  return `${e.type} ${e.object?.metadata?.name ?? ''} ${e.object?.metadata?.resourceVersion ?? ''}`;
}

/** A seeded pseudo-random generator (mulberry32), so failures can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
