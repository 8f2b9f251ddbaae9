/**
 * The webhook server (controller-runtime's `pkg/webhook.Server`): HTTPS with a
 * certificate that can change while serving, one handler per path, and the
 * HTTP rules around them: POST only, `application/json` only, a body limit,
 * a time limit per request, panics (throws) answered as failed reviews, and
 * a stop that lets in-flight requests finish.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as tlsConnect, type SecureContextOptions } from 'node:tls';
import type { ObjectClient } from '../client/interfaces.js';
import { childLogger, stderrControllerLogger } from '../controller/logger.js';
import { bind } from '../manager/http-server.js';
import type { Runnable } from '../manager/runnable.js';
import type { CertificateSource, ServingCertificate, WebhookHandler } from './contracts.js';
import { WebhookRequestError } from './errors.js';
import { BodyError, readBody } from './http/body.js';
import { mediaType } from './http/content-type.js';
import { requestBudgetMs } from './http/deadline.js';
import { Deadlines, timedOut } from './http/deadlines.js';
import { failureReview, reviewKindOf } from './http/failure-review.js';
import { RequestContext } from './http/request-context.js';
import { splitTarget, timeoutParam } from './http/request-target.js';
import { writeJson, writeStatus } from './http/respond.js';
import { noopWebhookMetrics, type WebhookMetrics } from './metrics.js';
import type { LogMethods, Logger } from '../logging/log.js';

/**
 * controller-runtime's default webhook port.
 *
 * @example
 * ```ts
 * import { defaultWebhookPort } from '@operant/runtime';
 *
 * const servicePort = { port: 443, targetPort: defaultWebhookPort }; // the webhook Service's port
 * ```
 */
export const defaultWebhookPort = 9443;
/**
 * kube-apiserver's largest request body (and controller-runtime's webhook limit): 7 MiB.
 *
 * @example
 * ```ts
 * import { defaultMaxRequestBytes, generateServingCertificate, WebhookServer } from '@operant/runtime';
 *
 * const { source } = await generateServingCertificate();
 * new WebhookServer({ certificates: source, maxRequestBytes: defaultMaxRequestBytes / 7 }); // 1 MiB: only small objects are reviewed
 * ```
 */
export const defaultMaxRequestBytes = 7 * 1024 * 1024;
/**
 * kube's default webhook `timeoutSeconds`, as milliseconds.
 *
 * @example
 * ```ts
 * import { defaultWebhookTimeoutMs } from '@operant/runtime';
 *
 * const timeoutSeconds = defaultWebhookTimeoutMs / 1000; // for the webhook configuration, so both sides agree
 * ```
 */
export const defaultWebhookTimeoutMs = 10_000;

/**
 * Options of {@link WebhookServer}.
 *
 * @example
 * ```ts
 * import { generateServingCertificate, type WebhookServerOptions } from '@operant/runtime';
 *
 * const certs = await generateServingCertificate();
 * const options: WebhookServerOptions = { port: 9443, certificates: certs.source, timeoutMs: 5_000 };
 * ```
 */
export interface WebhookServerOptions {
  /** Where the serving certificate comes from; it is read at start and again on every change. */
  certificates: CertificateSource;
  /** Interface to listen on; default all interfaces. */
  host?: string;
  /** Port; default 9443; 0 picks a free one (see {@link WebhookServer.listening}). */
  port?: number;
  /** Largest accepted request body in bytes; default 7 MiB (kube's own limit). Larger bodies get 413. */
  maxRequestBytes?: number;
  /**
   * Time a request may take, from arrival to answer; default 10 s, kube's default
   * webhook timeout. A request whose caller says it waits less (`?timeout=` as
   * kube-apiserver sends it) is answered before the caller gives up.
   */
  timeoutMs?: number;
  /** Logger, to which the server binds `component: webhook-server` (so it must not bind `component` itself); default warnings and errors to stderr. */
  logger?: LogMethods;
  /** Handed to every handler as `ctx.client` (the manager passes `mgr.client`), so admission handlers can read other resources. */
  client?: ObjectClient;
  /** Metrics hook, e.g. `mgr.metrics.webhook`; default none. */
  metrics?: WebhookMetrics;
  /** Extra TLS settings (ciphers, minVersion...); minVersion defaults to TLS 1.2 as in controller-runtime. */
  tls?: Omit<SecureContextOptions, 'cert' | 'key'>;
}

/**
 * Where the server listens once started.
 *
 * @example
 * ```ts
 * const { port } = await mgr.webhookServer.listening();
 * const url = `https://127.0.0.1:${port}/mutate-apps-v1-deployment`;
 * ```
 */
export interface WebhookServerAddress {
  readonly host: string;
  readonly port: number;
}

const pathPattern = /^\/[^?#\s]*$/;

/** A registered path: its handler, and the logger carrying its `webhook` field (made once, not per request). */
interface Route {
  /** The path as registered: one string for every request, which the metrics key their series by. */
  readonly path: string;
  readonly handler: WebhookHandler;
  readonly log: Logger;
}

/**
 * The HTTPS server answering admission and conversion reviews. It is a manager
 * {@link Runnable} that runs on every replica (`needLeaderElection: false`),
 * since the API server may call any of them.
 *
 * @example
 * ```ts
 * import { createLogger, defaulter, Deployment, generateServingCertificate, mutatePath, WebhookServer } from '@operant/runtime';
 *
 * const certs = await generateServingCertificate();
 * const server = new WebhookServer({ certificates: certs.source, port: 0, logger: createLogger() });
 * server.register(mutatePath(Deployment), defaulter(Deployment, { default: (d) => void (d.metadata.labels ??= {}) }));
 * mgr.add(server);
 * mgr.addReadyCheck('webhook', server.startedChecker());
 * ```
 */
export class WebhookServer implements Runnable {
  readonly needLeaderElection = false;

  private readonly routes = new Map<string, Route>();
  private readonly log: Logger;
  private readonly metrics: WebhookMetrics;
  private readonly maxRequestBytes: number;
  private readonly timeoutMs: number;
  /** The time limits of the requests being served. */
  private readonly deadlines = new Deadlines();
  /** Requests being served; shutdown waits for none, woken by `idle`. */
  private active = 0;
  private idle: (() => void) | undefined;
  private server: Server | undefined;
  private bound: WebhookServerAddress | undefined;
  private certificateLoaded = false;
  private stopping = false;
  private state: 'new' | 'started' | 'stopped' = 'new';
  private readonly listeningPromise: Promise<WebhookServerAddress>;
  private resolveListening: (address: WebhookServerAddress) => void = () => {};
  private rejectListening: (err: unknown) => void = () => {};

  constructor(private readonly options: WebhookServerOptions) {
    this.log = childLogger(options.logger ?? stderrControllerLogger, { component: 'webhook-server' });
    this.metrics = options.metrics ?? noopWebhookMetrics;
    this.maxRequestBytes = options.maxRequestBytes ?? defaultMaxRequestBytes;
    this.timeoutMs = options.timeoutMs ?? defaultWebhookTimeoutMs;
    if (!(this.maxRequestBytes > 0)) throw new RangeError(`maxRequestBytes must be positive, got ${this.maxRequestBytes}`);
    if (!(this.timeoutMs > 0)) throw new RangeError(`timeoutMs must be positive, got ${this.timeoutMs}`);
    this.listeningPromise = new Promise((resolve, reject) => {
      this.resolveListening = resolve;
      this.rejectListening = reject;
    });
    // A start that fails before anyone asked for the address must not be an unhandled rejection.
    this.listeningPromise.catch(() => undefined);
  }

  /**
   * Serves `handler` on `path` (exact match, e.g. `/validate-apps-v1-deployment`);
   * allowed before and after start. A path can be registered once.
   */
  register(path: string, handler: WebhookHandler): void {
    if (!pathPattern.test(path)) throw new TypeError(`webhook path must start with "/" and hold no query: ${JSON.stringify(path)}`);
    if (this.routes.has(path)) throw new Error(`a webhook is already registered at ${path}`);
    this.routes.set(path, { path, handler, log: childLogger(this.log, { webhook: path }) });
    this.metrics.registered(path);
    this.log.info({ path }, 'registering webhook');
  }

  /** The registered paths. */
  paths(): string[] {
    return [...this.routes.keys()];
  }

  /** Resolves with the bound address once listening; rejects if the start fails. */
  listening(): Promise<WebhookServerAddress> {
    return this.listeningPromise;
  }

  /** The bound address, once listening. */
  get address(): WebhookServerAddress | undefined {
    return this.bound;
  }

  /**
   * Listens until `signal` aborts, then stops accepting connections, lets
   * in-flight requests finish (each is bounded by the request timeout) and
   * resolves. Rejects when the certificate cannot be loaded or the port bound.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.state !== 'new') throw new Error('the webhook server can be started only once');
    this.state = 'started';
    let unsubscribe: () => void = () => {};
    try {
      const pair = this.loadCertificate();
      const server = createServer({ minVersion: 'TLSv1.2', ...this.options.tls, cert: pair.cert, key: pair.key }, (req, res) => void this.serve(req, res));
      this.server = server;
      unsubscribe = this.options.certificates.onChange((next) => this.rotate(server, next));
      this.bound = await bind(server, this.options.host, this.options.port ?? defaultWebhookPort);
    } catch (err) {
      unsubscribe();
      this.state = 'stopped';
      this.rejectListening(err);
      throw err;
    }
    this.log.info({ host: this.bound.host, port: this.bound.port }, 'serving webhook server');
    this.resolveListening(this.bound);
    try {
      await this.runUntilAborted(signal);
    } finally {
      unsubscribe();
      await this.shutdown();
    }
  }

  /**
   * A readiness check (for `mgr.addReadyCheck`): passes once the server listens
   * with a certificate and completes a TLS handshake, as controller-runtime's
   * `StartedChecker` does.
   */
  startedChecker(): () => Promise<void> {
    return async () => {
      const address = this.bound;
      if (!address || !this.server || this.stopping) throw new Error('webhook server has not been started yet');
      if (!this.certificateLoaded) throw new Error('webhook server has no serving certificate');
      await handshake(dialHost(address.host), address.port);
    };
  }

  private loadCertificate(): ServingCertificate {
    let pair: ServingCertificate;
    try {
      pair = this.options.certificates.current();
    } catch (err) {
      throw new Error(`webhook server: no serving certificate: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    this.certificateLoaded = true;
    return pair;
  }

  /** New connections get the new pair; open ones keep theirs, so in-flight requests finish. */
  private rotate(server: Server, pair: ServingCertificate): void {
    try {
      server.setSecureContext({ minVersion: 'TLSv1.2', ...this.options.tls, cert: pair.cert, key: pair.key });
      this.certificateLoaded = true;
      this.log.info({}, 'serving certificate updated');
    } catch (err) {
      this.log.error({ err }, 'new serving certificate rejected; still serving the previous one');
    }
  }

  /** Waits for the abort; a certificate source that fails to keep its pair fresh fails the server. */
  private async runUntilAborted(signal: AbortSignal): Promise<void> {
    const aborted = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const source = this.options.certificates.start?.(signal);
    if (!source) return aborted;
    await Promise.race([
      aborted,
      source.then(
        () => aborted,
        (err: unknown) => {
          if (signal.aborted) return;
          this.log.error({ err }, 'certificate source failed');
          throw err;
        },
      ),
    ]);
  }

  private async shutdown(): Promise<void> {
    this.stopping = true;
    this.state = 'stopped';
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.active > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.deadlines.clear();
    server.closeAllConnections();
    await closed;
    this.log.info({}, 'webhook server stopped');
  }

  /**
   * Serves one request; never rejects (a failure of the server itself is answered 500). Routing
   * and the metrics' bracket are here rather than in an async function of their own: one
   * promise and one resumption less per request.
   */
  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.active++;
    try {
      const target = req.url ?? '/';
      let { path, query } = splitTarget(target);
      let route = this.routes.get(path);
      if (!route) {
        // Not a registered path as sent: resolve it as a URL (dot segments, escapes) before giving up.
        const url = new URL(target, 'https://webhook');
        path = url.pathname;
        query = url.search.slice(1);
        route = this.routes.get(path);
      }
      if (!route) {
        this.status(res, 404, `no webhook is registered at path ${JSON.stringify(path)}`);
        return;
      }
      const started = performance.now();
      this.metrics.requestStarted(route.path);
      try {
        await this.answer(req, res, route, requestBudgetMs(this.timeoutMs, timeoutParam(query)), started);
      } finally {
        this.metrics.requestFinished(route.path, res.statusCode, (performance.now() - started) / 1000);
      }
    } catch (err) {
      this.log.error({ err }, 'webhook request failed');
      if (!res.headersSent) this.status(res, 500, 'internal error', true);
      else res.destroy();
    } finally {
      if (--this.active === 0 && this.idle) this.idle();
    }
  }

  private async answer(req: IncomingMessage, res: ServerResponse, route: Route, budgetMs: number, started: number): Promise<void> {
    if (req.method !== 'POST') {
      this.status(res, 405, `method ${req.method ?? ''} is not allowed: webhooks accept POST`, false, { Allow: 'POST' });
      return;
    }
    const type = mediaType(req);
    if (type !== 'application/json') {
      // Node reads and drops the unread body after the answer, so the connection stays usable.
      this.status(res, 415, `contentType=${req.headers['content-type'] ?? ''}, expected application/json`);
      return;
    }

    const { log, path } = route;
    const ctx = new RequestContext(log, this.options.client, res);
    const deadline = this.deadlines.start(budgetMs, started);
    try {
      const body = await deadline.race(readBody(req, this.maxRequestBytes));
      if (body === timedOut) {
        this.status(res, 408, `the request body did not arrive within ${formatMs(budgetMs)}`, true);
        return;
      }
      const parsed = parseJson(body);
      if ('error' in parsed) {
        this.status(res, 400, parsed.error);
        return;
      }
      // Racing the handler itself (not a chain built on it) also handles its rejection after a timeout.
      let answer: unknown;
      try {
        answer = await deadline.race(invoke(route.handler, parsed.value, ctx));
      } catch (err) {
        this.failed(res, path, parsed.value, err, log);
        return;
      }
      if (answer === timedOut) {
        ctx.abort(new Error('timed out'));
        log.error({ timeoutMs: budgetMs }, 'webhook handler timed out');
        this.status(res, 504, `the webhook handler at ${path} did not answer within ${formatMs(budgetMs)}`);
        return;
      }
      if (typeof answer !== 'object' || answer === null) {
        this.failed(res, path, parsed.value, new Error(`the handler answered ${String(answer)} instead of a review`), log);
        return;
      }
      this.observeAdmission(path, answer);
      this.json(res, 200, answer);
    } catch (err) {
      if (!(err instanceof BodyError)) throw err;
      this.status(res, err.code, err.message, true);
    } finally {
      deadline.finish();
      ctx.finish();
    }
  }

  /** A handler threw: an HTTP error it asked for, or a panic answered as a failed review. */
  private failed(res: ServerResponse, path: string, body: unknown, err: unknown, log: Logger): void {
    if (err instanceof WebhookRequestError) {
      this.status(res, err.code, err.message);
      return;
    }
    const kind = reviewKindOf(body) ?? 'admission';
    this.metrics.panicked(kind);
    log.error({ err }, 'observed a panic in webhook handler');
    const message = `panic: ${err instanceof Error ? err.message : String(err)} [recovered]`;
    const review = failureReview(body, 500, message);
    if (review) {
      this.observeAdmission(path, review);
      this.json(res, 200, review);
    } else this.status(res, 500, message);
  }

  /** Writes JSON; while stopping, asks the client not to reuse the connection. */
  private json(res: ServerResponse, code: number, body: object): void {
    writeJson(res, code, body, this.stopping);
  }

  private status(res: ServerResponse, code: number, message: string, close = false, headers: Record<string, string> = {}): void {
    writeStatus(res, code, message, close || this.stopping, headers);
  }

  private observeAdmission(path: string, answer: object): void {
    if (reviewKindOf(answer) !== 'admission') return;
    const response = (answer as { response?: { allowed?: unknown; status?: { code?: unknown } } }).response;
    if (!response) return;
    const code = typeof response.status?.code === 'number' ? response.status.code : 200;
    this.metrics.admissionResponse(path, response.allowed === true, code);
  }
}

/** Calls `handler`, turning a synchronous throw into a rejection. */
function invoke(handler: WebhookHandler, body: unknown, ctx: RequestContext): Promise<unknown> {
  try {
    return Promise.resolve(handler(body, ctx));
  } catch (err) {
    return Promise.reject(err);
  }
}

function parseJson(body: Buffer): { value: unknown } | { error: string } {
  if (body.length === 0) return { error: 'request body is empty' };
  try {
    return { value: JSON.parse(body.toString('utf8')) as unknown };
  } catch (err) {
    return { error: `unable to decode the request body as JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function dialHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}

function handshake(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Only checks that TLS is served; the caller may not trust (or name) this certificate.
    const socket = tlsConnect({ host, port, rejectUnauthorized: false, timeout: 10_000 }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new Error(`webhook server is not reachable on ${host}:${port}: TLS handshake timed out`));
    });
    socket.once('error', (err) => reject(new Error(`webhook server is not reachable on ${host}:${port}: ${err.message}`)));
  });
}
