/**
 * One HTTP request to the API server, done the way client-go's rest client does
 * it: throttled by the rate limiter, authenticated by the config's credentials
 * (re-fetched once after a 401 when the provider can refresh them), over a
 * keep-alive agent (to the server's address, or to the Unix domain socket the
 * config names), sent again after the delay the server asks for with a 429
 * or 5xx and `Retry-After` (at most `maxRetries` times, each throttled again),
 * observed by the metrics hook, with non-2xx answers turned into
 * {@link ApiError}s.
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientConfig, Credentials } from '../config/index.js';
import { AgentPool } from './agents.js';
import { apiErrorFromResponse } from './api-error.js';
import type { RequestMetrics } from './metrics.js';
import type { RequestRateLimiter } from './rate-limiter.js';
import { defaultMaxRetries, retryAfterMs } from './retry-after.js';

/** What to send. `path` is relative to the server URL and includes the query. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: string;
  contentType?: string;
  accept?: string;
  signal?: AbortSignal;
}

/** A buffered answer. */
export interface HttpResponse {
  status: number;
  body: string;
}

/** Transport settings the client passes down. */
export interface TransportOptions {
  limiter: RequestRateLimiter;
  metrics: RequestMetrics;
  userAgent: string;
  /** Receives the text of each `Warning` header the server sends. */
  onWarning: (message: string) => void;
  /** How many times a request is sent again when the server asks with `Retry-After`; default 10, as client-go. */
  maxRetries?: number;
}

/** Socket errors after which a request on a reused keep-alive connection is sent again (the server closed an idle connection). */
const staleConnectionErrors = new Set(['ECONNRESET', 'EPIPE']);

/** `299 - "message"` -> `message` (RFC 7234 warn-text, as kube sends it). */
function warningText(header: string): string {
  const m = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(header);
  return m ? m[1].replace(/\\(.)/g, '$1') : header;
}

function seconds(fromMs: number): number {
  return (performance.now() - fromMs) / 1000;
}

/**
 * Sends requests for one client.
 *
 * @example
 * ```ts
 * import { RequestRateLimiter } from './rate-limiter.js';
 * import { noopRequestMetrics } from '@operant/runtime/metrics';
 * import { Transport } from './transport.js';
 *
 * const transport = new Transport(client.config, { limiter: new RequestRateLimiter(20, 30), metrics: noopRequestMetrics, userAgent: 'me', onWarning: console.warn });
 * const res = await transport.send({ method: 'GET', path: '/api/v1/namespaces' });
 * ```
 */
export class Transport {
  private readonly base: URL;
  private readonly basePath: string;
  private readonly host: string;
  /** The URL's hostname without an IPv6 literal's brackets, as http.request wants it. */
  private readonly hostname: string;
  private readonly agents: AgentPool;
  private readonly fixedHeaders: OutgoingHttpHeaders;
  /** The config's `socketPath`, asked for each request (the agent connects anew when it changes). */
  private readonly socketPath: (() => string) | undefined;

  constructor(
    private readonly config: ClientConfig,
    private readonly options: TransportOptions,
  ) {
    this.base = new URL(config.server);
    this.basePath = this.base.pathname.replace(/\/+$/, '');
    this.host = this.base.host;
    this.hostname = this.base.hostname.replace(/^\[(.*)\]$/, '$1');
    const socketPath = config.socketPath;
    this.socketPath = typeof socketPath === 'string' ? () => socketPath : socketPath;
    this.agents = new AgentPool(this.base, config.tls, { unixSocket: this.socketPath !== undefined });
    this.fixedHeaders = { 'User-Agent': options.userAgent, ...impersonationHeaders(config) };
  }

  /** Sends a request and reads the whole answer; non-2xx answers reject with an ApiError. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const attempts = this.attempts(req);
    for (;;) {
      const { started, waitedMs, credentials, first } = await attempts.next();
      let res: IncomingMessage;
      let body: string;
      try {
        res = await this.open(req, credentials, first);
        body = await readBody(res);
      } catch (e) {
        this.observe(req.method, '<error>', started, waitedMs);
        if (first && isStaleConnection(e) && req.method !== 'POST' && req.method !== 'PATCH') continue;
        throw e;
      }
      const status = res.statusCode ?? 0;
      this.observe(req.method, String(status), started, waitedMs);
      if (await attempts.again(status, res, credentials)) continue;
      if (status < 200 || status > 299) throw apiErrorFromResponse(status, body, this.describe(req));
      return { status, body };
    }
  }

  /**
   * Sends a request whose answer is read as a stream (a watch). Resolves with the
   * response once a 2xx status arrived; other answers reject with an ApiError.
   */
  async stream(req: HttpRequest): Promise<IncomingMessage> {
    const attempts = this.attempts(req);
    for (;;) {
      const { started, waitedMs, credentials, first } = await attempts.next();
      let res: IncomingMessage;
      try {
        res = await this.open(req, credentials, first);
      } catch (e) {
        this.observe(req.method, '<error>', started, waitedMs);
        if (first && isStaleConnection(e)) continue;
        throw e;
      }
      const status = res.statusCode ?? 0;
      this.observe(req.method, String(status), started, waitedMs);
      if (status >= 200 && status <= 299) return res;
      const body = await readBody(res);
      if (await attempts.again(status, res, credentials)) continue;
      throw apiErrorFromResponse(status, body, this.describe(req));
    }
  }

  /**
   * The attempts at one request: `next()` throttles each (the first and every
   * retry, as client-go does) and fetches credentials; `again()` says whether
   * an answer calls for another attempt (once after a 401 whose credentials
   * could be refreshed; after the server's delay for a 429 or 5xx with
   * `Retry-After`, up to `maxRetries` times), having waited that delay.
   */
  private attempts(req: HttpRequest): {
    next(): Promise<{ started: number; waitedMs: number; credentials: Credentials; first: boolean }>;
    again(status: number, res: IncomingMessage, credentials: Credentials): Promise<boolean>;
  } {
    const maxRetries = this.options.maxRetries ?? defaultMaxRetries;
    let count = 0;
    let refreshed = false;
    let retries = 0;
    return {
      next: async () => {
        const started = performance.now();
        await this.options.limiter.wait(req.signal);
        const waitedMs = performance.now() - started;
        return { started, waitedMs, credentials: await this.config.credentials.credentials(), first: count++ === 0 };
      },
      again: async (status, res, credentials) => {
        if (status === 401 && !refreshed && this.config.credentials.invalidate?.(credentials)) {
          refreshed = true;
          return true;
        }
        const delayMs = retryAfterMs(status, res.headers['retry-after']);
        if (delayMs === undefined || retries >= maxRetries) return false;
        retries++;
        await sleep(delayMs, undefined, { signal: req.signal });
        return true;
      },
    };
  }

  /** Closes all connections (open watches end). */
  close(): void {
    this.agents.destroy();
  }

  private describe(req: HttpRequest): string {
    return `${req.method} ${this.base.origin}${this.basePath}${req.path}`;
  }

  private observe(method: string, code: string, startedMs: number, waitedMs: number): void {
    try {
      this.options.metrics.observeRequest({ method, host: this.host, code, latencySeconds: seconds(startedMs), rateLimiterSeconds: waitedMs / 1000 });
    } catch {
      // A metrics hook must not break requests.
    }
  }

  private open(req: HttpRequest, credentials: Credentials, first: boolean): Promise<IncomingMessage> {
    const headers: OutgoingHttpHeaders = { ...this.fixedHeaders, Accept: req.accept ?? 'application/json' };
    if (credentials.token) headers.Authorization = `Bearer ${credentials.token}`;
    else if (credentials.basic) headers.Authorization = `Basic ${Buffer.from(`${credentials.basic.username}:${credentials.basic.password}`).toString('base64')}`;
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(req.body);
    }
    const socketPath = this.socketPath?.();
    // On a Unix domain socket: plain HTTP, whatever the URL's scheme (the host and port name it in the Host header only).
    const secure = socketPath === undefined && this.base.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const r = send(
        {
          protocol: secure ? 'https:' : 'http:',
          hostname: this.hostname,
          port: this.base.port || undefined,
          socketPath,
          method: req.method,
          path: this.basePath + req.path,
          headers,
          agent: this.agents.get(credentials.clientCertificate),
          signal: req.signal,
        },
        (res) => {
          this.reportWarnings(res);
          resolve(res);
        },
      );
      r.on('error', (e: NodeJS.ErrnoException) => {
        // Remember whether the connection was a reused one: only then is a retry safe.
        if (r.reusedSocket && first) (e as StaleMarked).staleConnection = staleConnectionErrors.has(e.code ?? '');
        reject(e);
      });
      r.end(req.body);
    });
  }

  private reportWarnings(res: IncomingMessage): void {
    // The raw header list, not headersDistinct: that getter builds an object of every header, for every answer.
    const raw = res.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      if (name.length !== 7 || name.toLowerCase() !== 'warning') continue;
      const header = raw[i + 1]!;
      for (const one of header.split(/,(?=\s*\d{3} )/)) this.options.onWarning(warningText(one.trim()));
    }
  }
}

type StaleMarked = Error & { staleConnection?: boolean };

function isStaleConnection(e: unknown): boolean {
  return (e as StaleMarked | undefined)?.staleConnection === true;
}

function impersonationHeaders(config: ClientConfig): OutgoingHttpHeaders {
  const as = config.impersonate;
  if (!as) return {};
  const headers: OutgoingHttpHeaders = {};
  if (as.user) headers['Impersonate-User'] = as.user;
  if (as.uid) headers['Impersonate-Uid'] = as.uid;
  if (as.groups?.length) headers['Impersonate-Group'] = as.groups;
  for (const [key, values] of Object.entries(as.extra ?? {})) headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = values;
  return headers;
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}
