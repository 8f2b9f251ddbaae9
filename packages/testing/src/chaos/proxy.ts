/**
 * The fault proxy: an HTTPS server that stands between an operator and its
 * API server, forwards every request, and injects faults on the way. It is
 * HTTP-aware: each request is classified like kube-apiserver does it (verb,
 * group, resource, namespace, name) so that a fault can be aimed at, say,
 * creates of Deployments in one namespace; and watch responses are relayed
 * event by event, so that a stream can be cut inside an event, lose its
 * bookmarks, or stall.
 *
 * It hands out a kubeconfig of its own (its URL, its CA, a token it made up),
 * so any operator can be pointed at it. A request bearing that token is sent
 * on with the upstream kubeconfig's credentials; a request bearing other
 * credentials (a ServiceAccount token, say) is sent on as it is; a request
 * bearing none is refused, so that no other process on the machine borrows
 * the upstream identity. Upgrades (exec, port-forward) are not proxied.
 *
 * With `plainHttp` it serves plain HTTP on loopback instead, for tests and
 * local runs: no second TLS termination, which is most of what a proxy costs.
 * Then only requests bearing its own token pass.
 *
 * In front of a server in its own process (`upstreamInProcess`), a request
 * no fault can act on is handed to the server's handler with the credentials
 * it would have gone on with, rather than sent on as a second HTTP request.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { dirname } from 'node:path';
import { StatusError } from '@operant/apimachinery';
import { ApiError, Client, loadKubeConfig, type ClientConfig } from '@operant/runtime';
import { processCertificates } from '../certificates.js';
import { ActiveFault, type InjectedFault, type InjectOptions } from './active-fault.js';
import { applyClusterFault } from './cluster-faults.js';
import { errorStatus, expiredWatchEvent, isClusterFault, isOperatorFault, isServerFault, type clusterFaultKinds, type Fault, type FaultKind } from './faults.js';
import type { FaultOutcome, ServerFaultHandler } from './handed-faults.js';
import { playSchedule, type PlayOptions } from './play.js';
import { Prng } from './prng.js';
import { proxyKubeconfigText } from './proxy-kubeconfig.js';
import { assertLoopback, ProxyToken } from './proxy-token.js';
import type { FailedWrite, FaultRecord } from './records.js';
import type { ChaosReport } from './report.js';
import type { ChaosSchedule } from './schedule.js';
import { closedPromise, nameInBody, readAll, readBody, resetConnection, responseHeaders, sendStatus, sleep } from './respond.js';
import { requestHead, type RequestHead } from './request-head.js';
import { describeRequest, requestInfo, type RequestInfo } from './request-info.js';
import { asSentOn, type InProcessHandler } from './hand-over.js';
import { authorizationOf, pipeAnswer, Upstream, type Auth } from './upstream.js';
import { relayWatch } from './watch-relay.js';

/**
 * Options of {@link FaultProxy.start}.
 *
 * @example
 * ```ts
 * import { loadKubeConfig } from '@operant/runtime';
 * import type { FaultProxyOptions } from '@operant/testing';
 *
 * const options: FaultProxyOptions = { upstream: await loadKubeConfig(), port: 0, onRecord: (r) => console.log(r.type, r.request ?? '') };
 * ```
 */
export interface FaultProxyOptions {
  /** The API server to forward to, and the credentials to use there. */
  upstream: ClientConfig;
  /** Where to listen; default 127.0.0.1. */
  host?: string;
  /**
   * Serve plain HTTP instead of HTTPS (default false), for tests and local
   * runs: it spares every request a second TLS termination. Only on loopback
   * (`host` 127.0.0.1 or ::1; any other is refused), and only requests bearing
   * the proxy's own token pass; others get 401. The kubeconfig carries the
   * token as a bearer token and in its server URL's path
   * (`http://127.0.0.1:<port>/chaos/<token>`), because client-go (kubectl, Go
   * operators) sends no kubeconfig credentials to an http server.
   */
  plainHttp?: boolean;
  /** Default 0: any free port. */
  port?: number;
  /** Told of every record as it is made (the CLI prints the timeline from it). */
  onRecord?: (record: FaultRecord) => void;
  /** Carries out server faults (`restart-server`); a durable TestEnv's `faultProxy()` brings one. */
  server?: ServerFaultHandler;
  /**
   * Reach the upstream server on this Unix domain socket, in plain HTTP,
   * instead of at its URL: the private socket of a server in this process
   * (`startApiServer({ privateSocket: true })`'s `socketPath`; TestEnv's
   * proxies use it), which spares each request a TLS leg to its own process.
   * A function is asked at each new connection (a restarted server listens on
   * a new socket). Requests go on with the upstream kubeconfig's token, as
   * over HTTPS; a credential plugin's client certificate still goes to the
   * URL over TLS.
   */
  upstreamSocket?: string | (() => string);
  /**
   * The upstream server's own handler, when the server runs in this process
   * (`RunningApiServer.serveInProcess`; TestEnv's proxies pass it): a request
   * that no fault in force can act on, and that is no watch (the proxy relays
   * watches event by event, for faults put in force later), is handed to it
   * as it came, with the target and the Authorization header it would have
   * gone on with, and its body unread: no second HTTP request inside the
   * process. The proxy still counts and admits every request. When the
   * handler declines (its server is stopping), or the upstream credentials
   * are a client certificate, the request is sent on as usual. A request the
   * server is still answering when it stops ends as on the socket: 502 before
   * its answer started, cut after.
   */
  upstreamInProcess?: InProcessHandler;
}

/**
 * Takes a cluster fault back, trying again while the server cannot be reached
 * (another fault may have it down or partitioned): a knob left behind would
 * crash-loop a pod or silence a node for good. Gives up after about 30 s.
 */
async function retryUndo(undo: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await undo();
    } catch (err) {
      // The server's own refusal (a 4xx other than 429) will not change; an outage or overload will.
      if ((err instanceof ApiError && err.code < 500 && err.code !== 429) || attempt >= 150) throw err;
      await sleep(200);
    }
  }
}

/** A request as the timeline names it, or how to name it when a fault hits it. */
type Described = string | (() => string);

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** The faults that act on the events inside a watch stream. */
const streamFaultKinds = new Set<FaultKind>(['partition', 'drop-bookmarks', 'cut-watch']);

/**
 * Whether a request may be a watch: a GET whose target says `watch` (the
 * query parameter or the old path prefix), or hides it in percent-encoding.
 */
function mayBeWatch(method: string, target: string): boolean {
  return method === 'GET' && (target.includes('watch') || target.includes('%'));
}

/**
 * A running fault proxy.
 *
 * @example
 * ```ts
 * import { Client, ConfigMap, isStatus, loadKubeConfig } from '@operant/runtime';
 * import { FaultProxy } from '@operant/testing';
 *
 * const proxy = await FaultProxy.start({ upstream: await loadKubeConfig() });
 * const viaProxy = Client.fromConfig(await proxy.clientConfig());
 * proxy.inject({ kind: 'error', code: 503, verbs: ['list'], resources: ['configmaps'] }, { times: 2 });
 * await viaProxy.list(ConfigMap, { namespace: 'default' }).catch((err) => console.log(err.message)); // the server is currently unable...
 * await proxy.stop();
 * ```
 */
export class FaultProxy {
  /** `https://127.0.0.1:<port>` (`http://` with `plainHttp`; its kubeconfig's server URL then carries the token in its path) */
  readonly url: string;
  /** A kubeconfig for the proxy (YAML): its URL, its CA (none over plain HTTP) and its token. */
  readonly kubeconfig: string;
  /** The timeline so far. */
  readonly records: FaultRecord[] = [];
  /** The writes that faults made fail, so far. */
  readonly failedWrites: FailedWrite[] = [];
  /** Requests proxied so far. */
  requests = 0;

  private readonly faults: ActiveFault[] = [];
  /**
   * The faults handed over whose handler has not answered yet (a restart answers once the server is back,
   * after its window): true once the window closed meanwhile, so that its end is recorded after its hit.
   */
  private readonly handing = new Map<ActiveFault, boolean>();
  private nextId = 1;
  private readonly started = performance.now();
  private readonly upstream: Upstream;
  /** The client of cluster faults, on the upstream credentials; made when the first one starts. */
  private clusterClient: Client | undefined;
  /** What faults still do after they end: cluster faults being taken back (their knobs removed), handed-over faults under way. */
  private readonly aftermath = new Set<Promise<unknown>>();
  private stopped: Promise<void> | undefined;
  /**
   * Every connection accepted, from the moment it is accepted: over HTTPS the
   * HTTP server knows one only once its TLS handshake is done, so its
   * closeAllConnections misses those still shaking hands.
   */
  private readonly sockets = new Set<Socket>();
  private readonly plainHttp: boolean;
  private played: { readonly schedule: ChaosSchedule; report?: ChaosReport } | undefined;

  private constructor(
    private readonly server: Server,
    upstream: ClientConfig,
    private readonly token: ProxyToken,
    private readonly onRecord: ((record: FaultRecord) => void) | undefined,
    private readonly serverFaults: ServerFaultHandler | undefined,
    /** The CA of the serving certificate; undefined: plain HTTP. */
    caPem: string | undefined,
    upstreamSocket: FaultProxyOptions['upstreamSocket'],
    private readonly inProcess: InProcessHandler | undefined,
  ) {
    const { port, address } = server.address() as AddressInfo;
    // Listening on every address (0.0.0.0, ::), it is reached on loopback: the unspecified address is no
    // place to connect to, and its serving certificate names 127.0.0.1 and ::1, not it.
    const host = address === '::' ? '[::1]' : address.includes(':') ? `[${address}]` : address === '0.0.0.0' ? '127.0.0.1' : address;
    this.plainHttp = caPem === undefined;
    this.url = `${this.plainHttp ? 'http' : 'https'}://${host}:${port}`;
    this.kubeconfig = proxyKubeconfigText({
      // Over plain HTTP the token is in the server URL too: client-go sends no kubeconfig credentials to an http server.
      url: this.plainHttp ? `${this.url}${token.pathPrefix}` : this.url,
      caPem,
      token: token.value,
      namespace: upstream.namespace,
    });
    this.upstream = new Upstream(upstream, typeof upstreamSocket === 'string' ? () => upstreamSocket : upstreamSocket);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /**
   * Starts a proxy in front of `options.upstream`, serving HTTPS with the
   * process's certificate ({@link processCertificates}), or plain HTTP on
   * loopback with `plainHttp`.
   *
   * @example
   * ```ts
   * import { loadKubeConfig } from '@operant/runtime';
   * import { FaultProxy } from '@operant/testing';
   *
   * // For a test on this machine: plain HTTP on 127.0.0.1, only its own token passes.
   * const proxy = await FaultProxy.start({ upstream: await loadKubeConfig(), plainHttp: true });
   * console.log(proxy.url); // http://127.0.0.1:<port>
   * await proxy.stop();
   * ```
   */
  static async start(options: FaultProxyOptions): Promise<FaultProxy> {
    const host = options.host ?? '127.0.0.1';
    if (options.plainHttp) assertLoopback(host);
    const certs = options.plainHttp ? undefined : await processCertificates();
    const token = new ProxyToken();
    let proxy: FaultProxy | undefined;
    const handle = (req: IncomingMessage, res: ServerResponse): void => proxy!.handle(req, res);
    const server = certs ? createHttpsServer({ cert: certs.cert, key: certs.key }, handle) : createHttpServer(handle);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    proxy = new FaultProxy(server, options.upstream, token, options.onRecord, options.server, certs?.caPem, options.upstreamSocket, options.upstreamInProcess);
    return proxy;
  }

  /** Answers 502 when the server could not be asked (or the proxy failed), or drops an answer already started. */
  private failed(res: ServerResponse, err: unknown): void {
    if (!res.headersSent) sendStatus(res, new StatusError(502, 'InternalError', `chaos proxy: ${err instanceof Error ? err.message : String(err)}`).status);
    else res.destroy();
  }

  /**
   * Ends a handed-over request's response when the server stops under it, as
   * the socket route ends one whose connection the server closed (the lean
   * client's words): 502 before the answer started, cut after. The server's
   * handler may still try to answer; the response takes nothing more.
   */
  private serverClosed(res: ServerResponse): void {
    this.failed(res, new Error(res.headersSent ? 'the server closed the connection in the middle of an answer' : 'the server closed the connection before answering'));
    if (!res.destroyed) res.once('finish', () => res.destroy());
  }

  /** A client configuration for the proxy (what `Client.fromConfig` or `Manager.create({ kubeconfig })` take). */
  clientConfig(): Promise<ClientConfig> {
    return loadKubeConfig({ kubeconfigText: this.kubeconfig });
  }

  /**
   * Writes {@link kubeconfig} to `path`, mode 0600 even when the file was
   * there already: written beside it and renamed, so that the token is never
   * in a file others may read.
   */
  async writeKubeconfig(path: string): Promise<void> {
    // Its URL would be refused: a client given it would fail with ECONNREFUSED, far from the cause.
    if (this.stopped) throw new Error('FaultProxy.writeKubeconfig: the proxy is stopped');
    const fail = (what: string): Error => new Error(`cannot write the kubeconfig ${path}: ${what}`);
    await makeDirectories(dirname(path), fail);
    const temporary = `${path}.${randomUUID()}.tmp`;
    try {
      await writeFile(temporary, this.kubeconfig, { mode: 0o600, flag: 'wx' });
      await rename(temporary, path);
    } catch (e) {
      // The temporary holds the token: it does not stay behind (a path that is a directory fails the rename).
      await rm(temporary, { force: true });
      throw fail((e as NodeJS.ErrnoException).code === 'EISDIR' ? `${path} is a directory` : errnoReason(e));
    }
  }

  /** Milliseconds since the proxy started: the clock of its records. */
  now(): number {
    return performance.now() - this.started;
  }

  /**
   * Puts a fault in force until it is removed (or has hit `times` requests).
   * The proxy numbers the faults put in force on it, 1, 2, 3...: that number is
   * the fault's `id`, the `faultId` of its records and `#<id>` in the timeline.
   *
   * @example
   * ```ts
   * declare const proxy: import('@operant/testing').FaultProxy;
   * const cut = proxy.inject({ kind: 'cut-watch', resources: ['configmaps'] }, { times: 1 });
   * await cut.ended; // the next configmaps watch event was cut in half
   * ```
   */
  inject(fault: Fault, options: InjectOptions = {}): InjectedFault {
    // The proxy numbers its faults itself: a report tells a schedule's faults from others injected beside it by these ids.
    const id = this.nextId++;
    const active = new ActiveFault(id, fault, new Prng(options.seed ?? id), options.times, (f) => {
      this.faults.splice(this.faults.indexOf(f), 1);
      if (this.handing.has(f)) this.handing.set(f, true);
      else this.recordEnd(f);
    });
    this.faults.push(active);
    this.record({ type: 'start', faultId: id, fault });
    if (isClusterFault(fault)) this.track(this.clusterFault(active, fault));
    else if (isOperatorFault(fault)) {
      const handler = options.operator;
      this.track(this.handOver(active, handler && ((window) => handler(fault, window)), 'no operator handler: the test that runs the operator carries out operator faults (PlayOptions.operator)'));
    } else if (isServerFault(fault)) {
      const handler = this.serverFaults;
      this.track(this.handOver(active, handler && ((window) => handler(fault, window)), 'no server handler: whoever runs the API server carries out server faults (a durable TestEnv\'s faultProxy())'));
    }
    return active;
  }

  /**
   * Plays a schedule: prints its seed, puts each fault in force during its
   * window, and resolves when the schedule is over (or `signal` aborts) with
   * what happened. The proxy keeps forwarding, without faults, afterwards.
   *
   * @example
   * ```ts
   * import { chaos } from '@operant/testing';
   *
   * declare const proxy: import('@operant/testing').FaultProxy;
   * const report = await proxy.play(chaos({ seed: 1234, duration: 10_000, faults: ['error', 'cut-watch', 'expire'] }));
   * console.log(report.timeline());
   * console.log(report.summary());
   * ```
   */
  play(schedule: ChaosSchedule, options?: PlayOptions): Promise<ChaosReport> {
    // A stopped proxy forwards nothing: a schedule played on it would report a run that never was.
    if (this.stopped) return Promise.reject(new Error('FaultProxy.play: the proxy is stopped'));
    const played: { schedule: ChaosSchedule; report?: ChaosReport } = { schedule };
    this.played = played;
    return playSchedule(this, schedule, options).then((report) => (played.report = report));
  }

  /**
   * The schedule this proxy played last (or plays now): its report once it
   * has ended, else the schedule. A failed `env.converges` shows it.
   *
   * @example
   * ```ts
   * import { describePlayed } from '@operant/testing';
   *
   * declare const proxy: import('@operant/testing').FaultProxy;
   * const played = proxy.lastPlayed();
   * if (played) console.log(describePlayed(played)); // the seed, the faults at their offsets, the hits per kind
   * ```
   */
  lastPlayed(): ChaosReport | ChaosSchedule | undefined {
    return this.played?.report ?? this.played?.schedule;
  }

  /** True once {@link stop} was called. */
  get isStopped(): boolean {
    return this.stopped !== undefined;
  }

  /**
   * Resolves once what ended faults still do is done: cluster faults taken
   * back (their knobs removed), handed-over faults returned (a restarted server
   * serving again). A schedule's play waits for it before it reports.
   */
  async settled(): Promise<void> {
    while (this.aftermath.size > 0) await Promise.all([...this.aftermath]);
  }

  /** The faults in force now. */
  active(): readonly InjectedFault[] {
    return [...this.faults];
  }

  /** Removes every fault, then stops serving and closes every connection: idle, busy, or still in its TLS handshake. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      for (const f of [...this.faults]) f.remove();
      // Cluster faults take their knobs back before the client that does it closes.
      await this.settled();
      await new Promise<void>((resolve) => {
        this.server.close(() => resolve());
        this.server.closeAllConnections();
        // A connection in its TLS handshake now would otherwise be served after the close, and kept alive as
        // long as its client sends (one that never finishes its handshake, for the TLS handshake timeout, 120 s).
        for (const socket of this.sockets) socket.destroy();
      });
      this.upstream.close();
      this.clusterClient?.close();
    })();
    return this.stopped;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private track(work: Promise<unknown>): void {
    const done = work.catch(() => undefined);
    this.aftermath.add(done);
    void done.finally(() => this.aftermath.delete(done));
  }

  private record(r: Omit<FaultRecord, 'at'>): void {
    const record = { at: Math.round(this.now()), ...r };
    this.records.push(record);
    try {
      this.onRecord?.(record);
    } catch {
      // A printer must not break the proxy.
    }
  }

  /**
   * Does what a cluster fault does when it starts, and records a hit, or a
   * miss when there was nothing to act on (or no way to look); the schedule
   * goes on. A fault that lasts its window is taken back when it ends.
   */
  private async clusterFault(f: ActiveFault, fault: Extract<Fault, { kind: (typeof clusterFaultKinds)[number] }>): Promise<void> {
    this.clusterClient ??= Client.fromConfig(this.upstream.config, { qps: Infinity, userAgent: 'operant-chaos' });
    const outcome = await applyClusterFault(this.clusterClient, fault, (candidates) => f.strike(candidates)).catch((err: unknown) => ({
      request: undefined,
      undo: undefined,
      detail: `could not list the candidates: ${err instanceof Error ? err.message : String(err)}`,
    }));
    if (outcome.request) this.hit(f, outcome.request, outcome.detail);
    else this.record({ type: 'miss', faultId: f.id, fault: f.fault, detail: outcome.detail });
    const undo = outcome.undo;
    if (!undo) return;
    const undone = f.ended.then(() =>
      retryUndo(undo).catch((err: unknown) => this.record({ type: 'miss', faultId: f.id, fault: f.fault, detail: `could not take the fault back: ${err instanceof Error ? err.message : String(err)}` })),
    );
    this.track(undone);
  }

  /** Hands a fault over to its handler (`none` says why there is none), and records what it struck (a hit) or why nothing (a miss). */
  private async handOver(f: ActiveFault, strike: ((window: AbortSignal) => Promise<FaultOutcome>) | undefined, none: string): Promise<void> {
    this.handing.set(f, false);
    const window = new AbortController();
    void f.ended.then(() => window.abort());
    const outcome = strike
      ? await strike(window.signal).catch((err: unknown) => ({ target: undefined, detail: `the handler failed: ${err instanceof Error ? err.message : String(err)}` }))
      : { target: undefined, detail: none };
    // Counted even when the window closed meanwhile: the process was struck.
    if (outcome.target !== undefined) {
      f.hits++;
      this.hit(f, outcome.target, outcome.detail);
    } else this.record({ type: 'miss', faultId: f.id, fault: f.fault, detail: outcome.detail });
    const ended = this.handing.get(f);
    this.handing.delete(f);
    if (ended) this.recordEnd(f);
  }

  private recordEnd(f: ActiveFault): void {
    this.record({ type: 'end', faultId: f.id, fault: f.fault, detail: `${f.hits} hit${f.hits === 1 ? '' : 's'}` });
  }

  /** The first fault of `kind` that hits this request, counting the hit. */
  private take(kind: FaultKind, info: RequestInfo): ActiveFault | undefined {
    return this.faults.find((f) => f.fault.kind === kind && f.take(info));
  }

  private hit(f: ActiveFault, request: Described, detail: string): void {
    this.record({ type: 'hit', faultId: f.id, fault: f.fault, request: typeof request === 'string' ? request : request(), detail });
    f.settle();
  }

  private failedWrite(f: ActiveFault, info: RequestInfo, name: string | undefined, applied: boolean, outcome: string): void {
    if (!writeVerbs.has(info.verb)) return;
    this.failedWrites.push({
      at: Math.round(this.now()),
      verb: info.verb,
      resource: `${info.resource}${info.group ? `.${info.group}` : ''}`,
      ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      faultId: f.id,
      fault: f.fault,
      applied,
      outcome,
    });
  }

  /**
   * The request's target without the token's path prefix, and whether it
   * bears the proxy's token; undefined when it may not pass. Over HTTPS a
   * request bearing other credentials passes (as itself); over plain HTTP
   * only the token does, in the path (the kubeconfig's server URL) or as a
   * bearer token.
   */
  private admit(req: IncomingMessage, head: RequestHead): { target: string; own: boolean } | undefined {
    const target = req.url ?? '/';
    const header = head.authorization;
    if (this.plainHttp) {
      const rest = this.token.stripPath(target);
      if (rest !== undefined) return { target: rest, own: true };
      return header !== undefined && this.token.matches(header) ? { target, own: true } : undefined;
    }
    return header === undefined ? undefined : { target, own: this.token.matches(header) };
  }

  /**
   * Takes a request in: admits it, reads its body and its credentials, then
   * routes it. Written without async functions: a request no fault can act on
   * (most of them) then waits for nothing but its credentials.
   */
  private handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      this.requests++;
      const head = requestHead(req);
      const admitted = this.admit(req, head);
      if (admitted === undefined) {
        req.resume();
        return sendStatus(res, new StatusError(401, 'Unauthorized', 'Unauthorized: the chaos proxy wants the token of its kubeconfig').status);
      }
      if (this.inProcess !== undefined && !head.upgrade && this.nothingActs(req.method ?? 'GET', admitted.target)) return this.toServerInProcess(req, head, res, admitted);
      this.receive(req, head, res, admitted);
    } catch (err) {
      this.failed(res, err);
    }
  }

  /** Reads the body of an admitted request, then goes on to send it upstream. */
  private receive(req: IncomingMessage, head: RequestHead, res: ServerResponse, admitted: { target: string; own: boolean }): void {
    const body = readBody(req, head.hasBody);
    if (!(body instanceof Promise)) return this.authenticated(req, head, res, admitted, body);
    // catch, not then's second handler: a throw inside authenticated must answer 502 too, not go unhandled.
    body.then((read) => this.authenticated(req, head, res, admitted, read)).catch((err: unknown) => this.failed(res, err));
  }

  /**
   * Whether no fault in force can act on a request: it is no watch (a fault
   * put in force later acts on an open stream), and no fault's scope takes it
   * in (a fault acts only on requests it covers).
   */
  private nothingActs(method: string, target: string): boolean {
    if (mayBeWatch(method, target)) return false;
    if (this.faults.length === 0) return true;
    const info = requestInfo(method, target);
    return !this.faults.some((f) => f.covers(info));
  }

  /**
   * Hands a request no fault can act on to the server in this process, with
   * the credentials it would go upstream with.
   */
  private toServerInProcess(req: IncomingMessage, head: RequestHead, res: ServerResponse, admitted: { target: string; own: boolean }): void {
    if (!admitted.own) return this.toServerInProcessWith(req, head, res, admitted, head.authorization);
    this.upstream
      .ownCredentials()
      .then((credentials) => {
        // A client certificate goes in a TLS handshake, which a hand-over has none of.
        if (credentials.clientCertificate) this.receive(req, head, res, admitted);
        else this.toServerInProcessWith(req, head, res, admitted, authorizationOf({ credentials }));
      })
      .catch((err: unknown) => this.failed(res, err));
  }

  private toServerInProcessWith(req: IncomingMessage, head: RequestHead, res: ServerResponse, admitted: { target: string; own: boolean }, authorization: string | undefined): void {
    // The client left while the credentials were awaited: there is no one to answer.
    if (res.destroyed) return void req.resume();
    // Asked again: a fault put in force while the credentials were awaited may act on it.
    if (this.nothingActs(req.method ?? 'GET', admitted.target)) {
      asSentOn(req, admitted.target, authorization);
      if (this.inProcess!(req, res, () => this.serverClosed(res))) return;
    }
    this.receive(req, head, res, admitted);
  }

  /** Goes on with the credentials the request is sent upstream with. */
  private authenticated(req: IncomingMessage, head: RequestHead, res: ServerResponse, admitted: { target: string; own: boolean }, body: Buffer): void {
    if (!admitted.own) return this.route(req, head, res, admitted.target, body, { header: head.authorization! });
    this.upstream
      .ownCredentials()
      .then((credentials) => this.route(req, head, res, admitted.target, body, { credentials }))
      .catch((err: unknown) => this.failed(res, err));
  }

  /** Sends a request no fault can act on straight on; any other is classified and looked at by the faults. */
  private route(req: IncomingMessage, head: RequestHead, res: ServerResponse, target: string, body: Buffer, auth: Auth): void {
    try {
      if (head.upgrade) return sendStatus(res, new StatusError(400, 'BadRequest', 'the chaos proxy does not proxy upgrades (exec, attach, port-forward)').status);
      const method = req.method ?? 'GET';
      // Nothing can act on a request that is no watch while no fault is in force: it is not even classified.
      // (A watch is relayed event by event even then: a fault put in force later acts on open streams.)
      if (this.faults.length === 0 && !mayBeWatch(method, target)) return this.upstream.pipe(method, head, target, body, auth, res, (err) => this.failed(res, err));
      this.underFaults(head, res, target, method, body, auth).catch((err: unknown) => this.failed(res, err));
    } catch (err) {
      this.failed(res, err);
    }
  }

  private async underFaults(head: RequestHead, res: ServerResponse, target: string, method: string, body: Buffer, auth: Auth): Promise<void> {
    const info = requestInfo(method, target);
    // Described only for the timeline: a request no fault hits never pays for it (nor for parsing its body).
    let described: string | undefined;
    const request = (): string => (described ??= describeRequest(info, info.name ?? nameInBody(body)));
    if (!(await this.outlastPartitions(info, request, res))) return;
    let delay = 0;
    for (const f of this.faults) {
      if (f.fault.kind === 'latency' && f.take(info)) {
        delay += f.fault.ms;
        this.hit(f, request, `delayed ${f.fault.ms} ms`);
      }
    }
    if (delay > 0) await sleep(delay);
    if (res.destroyed) return;

    const error = this.take('error', info);
    const reset = error ? undefined : this.take('reset', info);
    // A watch changes nothing: a fault "after applying" it is the same fault before.
    const applied =
      info.verb !== 'watch' && ((error?.fault.kind === 'error' && error.fault.applied === true) || (reset?.fault.kind === 'reset' && reset.fault.applied === true));
    if (error && !applied) return this.answerError(error, info, request, nameInBody(body), false, res);
    if (reset && !applied) {
      this.hit(reset, request, 'connection reset');
      this.failedWrite(reset, info, info.name ?? nameInBody(body), false, 'connection reset');
      return resetConnection(res);
    }

    if (info.verb === 'watch') {
      const rv = info.resourceVersion;
      const expire = rv && rv !== '0' ? this.take('expire', info) : undefined;
      if (expire) {
        this.hit(expire, request, `410 Expired for resourceVersion ${rv}`);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
        res.end(expiredWatchEvent(rv!));
        return;
      }
      return this.relay(method, head, res, target, info, request, body, auth);
    }

    const upstream = await this.upstream.forward(method, head, target, body, auth);
    if (error || reset) {
      const answer = await readAll(upstream.body);
      const done = upstream.statusCode !== undefined && upstream.statusCode < 300;
      const name = info.name ?? (done ? nameInBody(answer) : undefined) ?? nameInBody(body);
      if (error) return this.answerError(error, info, request, name, done, res, ` after the server answered ${upstream.statusCode}`);
      this.hit(reset!, request, `connection reset after the server answered ${upstream.statusCode}`);
      this.failedWrite(reset!, info, name, done, 'connection reset');
      return resetConnection(res);
    }
    pipeAnswer(upstream, res);
  }

  private answerError(f: ActiveFault, info: RequestInfo, request: Described, name: string | undefined, applied: boolean, res: ServerResponse, after = ''): void {
    const fault = f.fault as Extract<Fault, { kind: 'error' }>;
    const status = errorStatus(fault.code, fault.retryAfterSeconds);
    this.hit(f, request, `answered ${fault.code}${after}`);
    this.failedWrite(f, info, name, applied, String(fault.code));
    const retryAfter = status.details?.retryAfterSeconds;
    sendStatus(res, status, retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : {});
  }

  private async relay(method: string, head: RequestHead, res: ServerResponse, target: string, info: RequestInfo, request: Described, body: Buffer, auth: Auth): Promise<void> {
    const upstream = await this.upstream.forward(method, head, target, body, auth);
    if (upstream.statusCode !== 200) return pipeAnswer(upstream, res);
    res.once('close', () => upstream.body.destroy());
    res.writeHead(200, responseHeaders(upstream.headers, false));
    res.flushHeaders();
    let events = 0;
    let stalled: ActiveFault | undefined;
    await relayWatch(upstream.body, res, {
      quiet: () => !this.faults.some((f) => streamFaultKinds.has(f.fault.kind) && f.covers(info)),
      passed: (n) => {
        events += n;
      },
      beforeEvent: async () => {
        await this.outlastPartitions(info, request, res, (f) => {
          if (stalled !== f) this.hit(f, request, 'watch stream stalled');
          stalled = f;
        });
      },
      dropBookmark: () => {
        const f = this.take('drop-bookmarks', info);
        if (f) this.hit(f, request, 'bookmark dropped');
        return f !== undefined;
      },
      cut: (type) => {
        const f = this.take('cut-watch', info);
        if (f) this.hit(f, request, `cut in the middle of an event (${type}), after ${events} whole event${events === 1 ? '' : 's'}`);
        else events++;
        return f !== undefined;
      },
    });
  }

  /**
   * Waits while a partition covers the request; false when the client left
   * meanwhile. `onHang` is told of each partition waited for (default: a hit).
   */
  private async outlastPartitions(info: RequestInfo, request: Described, res: ServerResponse, onHang?: (f: ActiveFault) => void): Promise<boolean> {
    for (;;) {
      const partition = this.faults.find((f) => f.fault.kind === 'partition' && f.covers(info));
      if (!partition) return !res.destroyed;
      if (onHang) onHang(partition);
      else if (partition.take(info)) this.hit(partition, request, 'hung until the partition ended');
      await Promise.race([partition.ended, closedPromise(res)]);
      if (res.destroyed) return false;
    }
  }
}

/** The reason of a Node file-system error without its code and path: `read-only file system` of `EROFS: read-only file system, open '/x'`. */
function errnoReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return /^[A-Z]+: (.*?), \w+ '.*'$/.exec(message)?.[1] ?? message;
}

/**
 * `mkdir -p`, a directory at a time: Node's recursive mkdir loops forever
 * where a directory exists but its child's mkdir says ENOENT (under /proc).
 */
async function makeDirectories(dir: string, fail: (what: string) => Error): Promise<void> {
  try {
    await mkdir(dir);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      const isDirectory = await stat(dir).then((s) => s.isDirectory(), () => false);
      if (isDirectory) return;
      throw fail(`${dir} is not a directory`);
    }
    if (code !== 'ENOENT' || dirname(dir) === dir) throw fail(`cannot create ${dir}: ${errnoReason(e)}`);
  }
  await makeDirectories(dirname(dir), fail);
  try {
    await mkdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fail(`cannot create ${dir}: ${errnoReason(e)}`);
  }
}
