/**
 * The proxy's side towards the API server: a keep-alive pool of connections
 * with the upstream kubeconfig's TLS settings (undici's, which costs a
 * fraction of node:http's client per request), the lean client of
 * socket-client.ts for the requests no fault acts on (it writes each answer
 * into the client's response as it parses it; a fraction of undici's cost
 * again), and the credentials each request goes on with. A request bearing the proxy's own token is sent with
 * the upstream kubeconfig's credentials (token, basic auth or client
 * certificate); one bearing other credentials is sent as it is (only over
 * HTTPS: a plain-HTTP proxy takes its own token alone); one bearing none is
 * refused.
 *
 * Given a private socket of a server in this process (`socketPath`), the pool
 * reaches it there in plain HTTP instead of over TLS to its URL: the same
 * requests with the same credentials, minus a TLS leg to its own process.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import type { ClientConfig, Credentials } from '@operant/runtime';
import { Socket } from 'node:net';
import { buildConnector, Pool, type Dispatcher } from '../lazy-packages.js';
import type { RequestHead } from './request-head.js';
import { hopByHop, responseHeaders } from './respond.js';
import { SocketClient, type Endpoint } from './socket-client.js';

/** What a request authenticates upstream with: its own Authorization header, or the upstream kubeconfig's credentials. */
export type Auth = { header: string } | { credentials: Credentials };

/** The server's answer as it starts: its status and headers, and its body streaming in. */
export interface UpstreamAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** Sends the server's answer on as it came. */
export function pipeAnswer(upstream: UpstreamAnswer, res: ServerResponse): void {
  res.writeHead(upstream.statusCode, responseHeaders(upstream.headers, true));
  const body = upstream.body;
  res.once('close', () => body.destroy());
  body.pipe(res);
}

/** The Authorization header a request goes upstream with; undefined when it has none (no credentials, or a client certificate). */
export function authorizationOf(auth: Auth): string | undefined {
  if ('header' in auth) return auth.header;
  const { token, basic } = auth.credentials;
  if (token) return `Bearer ${token}`;
  if (basic) return `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  return undefined;
}

export class Upstream {
  private readonly url: URL;
  /** What every request's options share, worked out once. */
  private readonly hostname: string;
  private readonly pathPrefix: string;
  private readonly pool: Pool;
  /** The lean client of the requests no fault acts on. */
  private readonly lean: SocketClient;

  /**
   * `socketPath`: the upstream server's private Unix domain socket, asked
   * again for each new connection (a restarted server has a new one).
   */
  constructor(
    readonly config: ClientConfig,
    socketPath?: () => string,
  ) {
    this.url = new URL(config.server);
    this.hostname = this.url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.pathPrefix = this.url.pathname.replace(/\/+$/, '');
    const tls = config.tls;
    const connectOptions: buildConnector.BuildOptions =
      this.url.protocol === 'https:'
        ? {
            ca: tls.ca,
            cert: tls.clientCertificate?.cert,
            key: tls.clientCertificate?.key,
            rejectUnauthorized: !tls.insecureSkipTlsVerify,
            servername: tls.serverName,
          }
        : {};
    this.lean = new SocketClient(socketPath ?? atUrl(this.url, this.hostname, buildConnector(connectOptions)));
    this.pool = new Pool(socketPath ? 'http://localhost' : this.url.origin, {
      connect: socketPath ? (options, callback) => buildConnector({ socketPath: socketPath() })(options, callback) : connectOptions,
      // A watch may be quiet for minutes, and a partitioned client holds its request: no timeouts of the pool's own.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /** How a request bearing the proxy's token goes on: with the upstream kubeconfig's credentials. */
  ownCredentials(): Promise<Credentials> {
    return this.config.credentials.credentials();
  }

  /** Sends the request upstream to `target` (its path and query) with `auth`; resolves with the answer as it starts. */
  async forward(method: string, head: RequestHead, target: string, body: Buffer, auth: Auth): Promise<UpstreamAnswer> {
    const out = this.outgoing(method, head, target, body, auth);
    // A credential plugin's own certificate needs a connection of its own.
    if (out.cert) return this.forwardWithCertificate(method, out.path, out.headers, body, out.cert);
    const answer = await this.pool.request({ method: method as 'GET', path: out.path, headers: out.headers, body: body.length > 0 ? body : null });
    return { statusCode: answer.statusCode, headers: answer.headers as IncomingHttpHeaders, body: answer.body };
  }

  /**
   * Sends the request upstream and its answer on to `res` as it comes: what
   * {@link forward} and piping its body do, without a body stream in between
   * (the path of every request no fault acts on). `failed` is told when the
   * server could not be asked (no answer has started then).
   */
  pipe(method: string, head: RequestHead, target: string, body: Buffer, auth: Auth, res: ServerResponse, failed: (err: Error) => void): void {
    const out = this.outgoing(method, head, target, body, auth);
    if (out.cert) {
      this.forwardWithCertificate(method, out.path, out.headers, body, out.cert).then((answer) => pipeAnswer(answer, res), failed);
      return;
    }
    if (SocketClient.accepts(out.headers)) return this.lean.send(method, out.path, out.headers, body, res, failed);
    this.pool.dispatch({ method, path: out.path, headers: out.headers, body: body.length > 0 ? body : null }, new AnswerToResponse(res, failed));
  }

  /** The request as it goes upstream: its headers less the connection's own, with `auth`'s credentials, as name/value pairs (`head.forwarded`, taken over: a request goes upstream once). */
  private outgoing(method: string, head: RequestHead, target: string, body: Buffer, auth: Auth): { path: string; headers: string[]; cert?: { cert: string; key: string } } {
    const headers = head.forwarded;
    if (body.length > 0 || method === 'POST' || method === 'PUT' || method === 'PATCH') headers.push('content-length', String(body.length));
    const authorization = authorizationOf(auth);
    if (authorization !== undefined) headers.push('authorization', authorization);
    const cert = 'credentials' in auth ? auth.credentials.clientCertificate : undefined;
    return { path: this.pathPrefix + target, headers, ...(cert ? { cert } : {}) };
  }

  private forwardWithCertificate(method: string, path: string, pairs: string[], body: Buffer, cert: { cert: string; key: string }): Promise<UpstreamAnswer> {
    const tls = this.config.tls;
    // As an object, so that node's client adds the Host header (it adds none to a list of pairs).
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < pairs.length; i += 2) {
      const [name, value] = [pairs[i]!, pairs[i + 1]!];
      const had = headers[name];
      headers[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
    }
    return new Promise((resolve, reject) => {
      const out = httpsRequest(
        { hostname: this.hostname, port: this.url.port || undefined, method, path, headers, agent: false, cert: cert.cert, key: cert.key, ca: tls.ca, rejectUnauthorized: !tls.insecureSkipTlsVerify, servername: tls.serverName },
        (res) => resolve({ statusCode: res.statusCode ?? 502, headers: res.headers, body: res }),
      );
      out.on('error', reject);
      out.end(body);
    });
  }

  /** Closes the connections (open watches end). */
  close(): void {
    this.lean.close();
    void this.pool.destroy();
  }
}

/** Undici's keep-alive defaults (Client options keepAliveTimeout, keepAliveTimeoutThreshold, keepAliveMaxTimeout). */
const keepAliveDefaultMs = 4_000;
const keepAliveThresholdMs = 2_000;
const keepAliveMaxMs = 600_000;

/**
 * The server at `url` (`hostname` without IPv6 brackets) as the lean client's
 * endpoint, reached as undici's pool reaches it: connections opened by the
 * pool's connector (`connector`, made with the same options), the Host header
 * undici sends, and an idle connection kept as long as undici keeps one (the
 * server's `Keep-Alive: timeout` less a margin, else 4 s), so that neither
 * client meets a connection the server is closing more often than the other.
 */
function atUrl(url: URL, hostname: string, connector: buildConnector.connector): Endpoint {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const options = { hostname, host: url.host, protocol: url.protocol, port, servername: undefined, localAddress: null, httpSocket: undefined };
  return {
    connect: () => {
      // The connector returns the socket it opens (its callback is for when it is connected, which the lean
      // client need not wait for: writes wait). The socket's own 'error' (a refused connection, an untrusted
      // certificate, the connect timeout) fails its request.
      const socket: unknown = (connector as (...args: Parameters<buildConnector.connector>) => unknown)(options, noCallback);
      if (!(socket instanceof Socket)) throw new Error("undici's connector returned no socket");
      return socket;
    },
    host: `${url.hostname}${url.port ? `:${url.port}` : ''}`,
    idleMs: (keepAlive) => {
      const hinted = keepAlive === undefined ? undefined : /timeout=(\d+)/.exec(keepAlive);
      return hinted ? Math.min(Number.parseInt(hinted[1]!, 10) * 1000 - keepAliveThresholdMs, keepAliveMaxMs) : keepAliveDefaultMs;
    },
  };
}

function noCallback(): void {}

/**
 * Writes an upstream answer into the client's response as undici parses it:
 * the status and headers (less the connection's own) as they arrive, each
 * chunk of the body as it arrives, with the server's reading paused while the
 * client is slow. Undici's own request() would put a body stream, a promise
 * and a pipe between them for every request.
 */
class AnswerToResponse implements Dispatcher.DispatchHandler {
  private abort: ((err?: Error) => void) | undefined;
  /** Listens for the client leaving: made once, at the first connect (not a class field, which would cost every request a named closure under tsx). */
  private clientLeft: (() => void) | undefined;
  private resume: (() => void) | undefined;
  /**
   * The whole body when it came in one chunk that completes the length the
   * headers announced: written with the end of the response, so that a small
   * answer goes out as one write without the cork-and-uncork of a separate one.
   */
  private whole: Buffer | undefined;
  /** The Content-Length the server announced; -1 when none. */
  private length = -1;

  constructor(
    private readonly res: ServerResponse,
    private readonly failed: (err: Error) => void,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    // Told again when undici retries the request on another connection.
    if (this.clientLeft === undefined) this.res.on('close', (this.clientLeft = () => this.abort!(new Error('the client closed the connection'))));
    // A client that leaves ends the upstream request (and a connection whose answer nobody reads).
    this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const headers: string[] = [];
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toString('latin1');
      const lower = name.toLowerCase();
      const value = rawHeaders[i + 1]!.toString('latin1');
      if (lower === 'content-length') this.length = Number(value);
      else if (hopByHop.has(lower)) continue;
      headers.push(name, value);
    }
    this.res.writeHead(statusCode, headers);
    this.resume = resume;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.whole === undefined && chunk.length === this.length) {
      this.whole = chunk;
      return true;
    }
    const more = this.res.write(chunk);
    // Undici stops reading until it is resumed: when the client has taken what is buffered.
    if (!more) this.res.once('drain', this.resume!);
    return more;
  }

  onComplete(): void {
    if (this.clientLeft) this.res.off('close', this.clientLeft);
    if (this.whole !== undefined) this.res.end(this.whole);
    else this.res.end();
  }

  onError(err: Error): void {
    if (this.clientLeft) this.res.off('close', this.clientLeft);
    if (this.res.headersSent) this.res.destroy();
    else if (!this.res.destroyed) this.failed(err);
  }
}
