/**
 * A lean HTTP/1.1 client for the requests no fault acts on: it writes the
 * request in one go, reads the answer's head and frames its body
 * (Content-Length, chunked, or until the connection closes) with plain buffer
 * scans, and writes it into the client's response as it comes. Undici does
 * the same with a parser in WebAssembly and several layers of handlers (and,
 * since 7.x, a turn of the event loop before it reuses an idle connection),
 * which cost a proxied request more than the rest of the proxy together;
 * requests that faults may act on (and watches) still go through undici.
 *
 * It reaches either the private Unix socket of an API server in this process
 * (TestEnv's proxies), or any API server at its URL over TCP or TLS (`operant
 * chaos`): then its connections are opened by undici's own connector with the
 * pool's TLS settings (the same certificates, SNI, session reuse, TCP
 * keep-alive and no-delay, 10 s connect timeout), each request carries the
 * Host header undici would send, and idle connections are closed when undici
 * would close them (the server's `Keep-Alive: timeout` less 2 s, else 4 s).
 *
 * Connections are kept alive and never pipelined. A connection that fails or
 * closes before its answer is complete ends that answer: a 502 when nothing
 * was sent yet (with the connection's error, say `connect ECONNREFUSED ...`,
 * when it had one), a cut response otherwise, as through undici.
 */
import { connect, type Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { hopByHop } from './respond.js';

const crlfCrlf = Buffer.from('\r\n\r\n');
const crlf = Buffer.from('\r\n');
/** A head longer than node's default limit (16 KiB) is no answer of node's server. */
const maxHeadBytes = 16 * 1024;
/**
 * On a private socket, idle connections are closed after this long: well
 * inside its keep-alive (65 s, the server's), so that the server never closes
 * one just as a request is sent on it, and long enough that a test's pauses
 * between requests do not cost new connections.
 */
const privateSocketIdleMs = 30_000;

/** Where a {@link SocketClient} sends its requests. */
export interface Endpoint {
  /** Opens a new connection (a socket that may still be connecting: writes wait for it). */
  connect(): Socket;
  /** The Host header's value. */
  host: string;
  /**
   * How long a connection may stay idle after an answer, given the answer's
   * `Keep-Alive` header (undefined when it had none); 0 or less: close it.
   */
  idleMs(keepAlive: string | undefined): number;
}

/** The private Unix socket at `socketPath()` (asked at each new connection: a restarted server listens on a new one). */
function privateSocket(socketPath: () => string): Endpoint {
  return { connect: () => connect(socketPath()), host: 'localhost', idleMs: () => privateSocketIdleMs };
}

/** Header values that could smuggle another header (a kubeconfig's token, say): such a request goes through undici, which refuses it. */
const unsafeValue = /[\r\n\0]/;

export class SocketClient {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private closed = false;

  readonly endpoint: Endpoint;
  /** What every request's head starts with after its request line. */
  private readonly hostLine: string;

  /**
   * `target`: an {@link Endpoint}, or the path of a private Unix socket, asked
   * at each new connection (a restarted server listens on a new socket).
   */
  constructor(target: (() => string) | Endpoint) {
    this.endpoint = typeof target === 'function' ? privateSocket(target) : target;
    this.hostLine = ` HTTP/1.1\r\nhost: ${this.endpoint.host}\r\n`;
  }

  /** Whether `send` can carry these headers (no value with a line break or NUL). */
  static accepts(headers: readonly string[]): boolean {
    for (let i = 1; i < headers.length; i += 2) if (unsafeValue.test(headers[i]!)) return false;
    return true;
  }

  /**
   * Sends the request and writes the answer into `res` as it comes. `failed`
   * is told when no answer could be had and none has started.
   */
  send(method: string, path: string, headers: readonly string[], body: Buffer, res: ServerResponse, failed: (err: Error) => void): void {
    // The client left while the request was being read: there is no one to answer.
    if (res.destroyed) return;
    let head = `${method} ${path}${this.hostLine}`;
    for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    head += '\r\n';
    let connection = this.idle.pop();
    if (connection === undefined) {
      if (this.closed) return failed(new Error('the proxy is stopping'));
      connection = new Connection(this.endpoint.connect(), this);
      this.open.add(connection);
    }
    connection.start(new Exchange(method === 'HEAD', res, failed), head, body);
  }

  /** Closes every connection; answers under way are cut. */
  close(): void {
    this.closed = true;
    for (const c of this.open) c.socket.destroy();
    this.idle.length = 0;
  }

  /** @internal A connection is free for the next request. */
  release(connection: Connection): void {
    if (this.closed) connection.socket.destroy();
    else this.idle.push(connection);
  }

  /** @internal A connection has closed. */
  forget(connection: Connection): void {
    this.open.delete(connection);
    const i = this.idle.indexOf(connection);
    if (i >= 0) this.idle.splice(i, 1);
  }
}

/** One request's answer being read: where it goes, and how far its body has come. */
class Exchange {
  status = 0;
  /** Body bytes still to come (Content-Length); -1: chunked or until close. */
  remaining = -1;
  chunked = false;
  /** The body ends when the connection does (neither a length nor chunked). */
  untilClose = false;
  /** The server said it closes the connection after this answer. */
  closing = false;
  /** The answer's Keep-Alive header (how long the server keeps the connection idle), if any. */
  keepAlive: string | undefined;
  /** Chunked: bytes of the current chunk still to come; 0 between chunks. */
  chunkLeft = 0;
  /** Chunked: the CRLF after a chunk's data is still to come. */
  chunkEnd = false;
  /** Chunked: the last chunk came; its trailers are being skipped. */
  trailers = false;
  done = false;

  constructor(
    readonly head: boolean,
    readonly res: ServerResponse,
    readonly failed: (err: Error) => void,
  ) {}
}

class Connection {
  private exchange: Exchange | undefined;
  /** Bytes received but not yet used (a head or chunk-size line cut between reads). */
  private pending: Buffer | undefined;
  /** Reading is paused until the client's response drains. */
  private paused = false;
  /** What the socket failed with, if it did: the 502 says it (a refused connection, a certificate not trusted). */
  private error: Error | undefined;
  private readonly clientLeft = (): void => {
    // The client went before its answer was complete: nobody reads the rest of this connection's answer.
    if (this.exchange && !this.exchange.done) this.socket.destroy();
  };
  private readonly drained = (): void => {
    this.paused = false;
    this.socket.resume();
  };

  constructor(
    readonly socket: Socket,
    private readonly client: SocketClient,
  ) {
    socket.on('data', (data: Buffer) => this.received(data));
    socket.on('error', (err: Error) => (this.error ??= err)); // 'close' follows and ends the exchange
    socket.on('close', () => this.closed());
    socket.on('timeout', () => {
      // Out of the idle list at once: 'close' comes a tick later, and a request must not take it meanwhile.
      client.forget(this);
      socket.destroy();
    });
  }

  start(exchange: Exchange, head: string, body: Buffer): void {
    this.exchange = exchange;
    this.socket.setTimeout(0);
    exchange.res.on('close', this.clientLeft);
    if (body.length === 0) this.socket.write(head, 'latin1');
    else {
      this.socket.cork();
      this.socket.write(head, 'latin1');
      this.socket.write(body);
      this.socket.uncork();
    }
  }

  private received(data: Buffer): void {
    const x = this.exchange;
    if (x === undefined) {
      // Nothing was asked: a server that talks out of turn is not one to reuse.
      this.socket.destroy();
      return;
    }
    let buf = this.pending ? Buffer.concat([this.pending, data]) : data;
    this.pending = undefined;
    try {
      while (!x.done) {
        if (x.status === 0) {
          const end = buf.indexOf(crlfCrlf);
          if (end < 0) {
            if (buf.length > maxHeadBytes) throw new Error('the server sent a head longer than 16 KiB');
            this.pending = buf;
            return;
          }
          const text = buf.toString('latin1', 0, end);
          buf = buf.subarray(end + 4);
          if (!this.readHead(x, text)) continue; // an interim (1xx) answer: the real one follows
          if (x.remaining === 0 && !x.chunked && !x.untilClose) {
            this.complete(x, undefined);
            break;
          }
          // The whole body in this read: it goes out with the end of the response, in one write.
          if (x.remaining > 0 && buf.length >= x.remaining) {
            const whole = buf.subarray(0, x.remaining);
            buf = buf.subarray(x.remaining);
            x.remaining = 0;
            this.complete(x, whole);
            break;
          }
          continue;
        }
        if (buf.length === 0) return;
        if (!x.chunked) {
          if (x.untilClose) {
            this.write(x, buf);
            return;
          }
          const n = Math.min(buf.length, x.remaining);
          this.write(x, buf.subarray(0, n));
          buf = buf.subarray(n);
          x.remaining -= n;
          if (x.remaining === 0) this.complete(x, undefined);
          continue;
        }
        buf = this.chunk(x, buf);
      }
      // Bytes after a complete answer that was not asked for: do not reuse the connection.
      if (buf.length > 0) this.socket.destroy();
    } catch (err) {
      this.fail(x, err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Reads a head; false for an interim (1xx) answer. */
  private readHead(x: Exchange, text: string): boolean {
    const lines = text.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!statusLine) throw new Error(`the server sent no HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 100))}`);
    const status = Number(statusLine[2]);
    if (status < 200) return false;
    const headers: string[] = [];
    let length: number | undefined;
    let keepAlive = statusLine[1] === '1';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error(`the server sent a malformed header line: ${JSON.stringify(line.slice(0, 100))}`);
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      const lower = name.toLowerCase();
      if (lower === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value))) throw new Error(`the server sent a bad Content-Length: ${JSON.stringify(value)}`);
        length = Number(value);
        continue;
      } else if (lower === 'transfer-encoding') {
        if (value.toLowerCase().split(',').some((v) => v.trim() === 'chunked')) x.chunked = true;
        continue;
      } else if (lower === 'connection') {
        const tokens = value.toLowerCase().split(',').map((v) => v.trim());
        if (tokens.includes('close')) keepAlive = false;
        else if (tokens.includes('keep-alive')) keepAlive = true;
        continue;
      } else if (lower === 'keep-alive') {
        x.keepAlive = value;
        continue;
      } else if (hopByHop.has(lower)) continue;
      headers.push(name, value);
    }
    x.status = status;
    x.closing = !keepAlive;
    const bodiless = x.head || status === 204 || status === 304;
    if (bodiless) {
      x.chunked = false;
      x.remaining = 0;
    } else if (x.chunked) length = undefined;
    else if (length !== undefined) x.remaining = length;
    else {
      x.untilClose = true;
      x.closing = true;
    }
    if (length !== undefined) headers.push('Content-Length', String(length));
    x.res.writeHead(status, headers);
    return true;
  }

  /** Takes what it can of a chunked body from `buf`; returns the rest. */
  private chunk(x: Exchange, buf: Buffer): Buffer {
    if (x.chunkLeft > 0) {
      const n = Math.min(buf.length, x.chunkLeft);
      this.write(x, buf.subarray(0, n));
      x.chunkLeft -= n;
      if (x.chunkLeft === 0) x.chunkEnd = true;
      return buf.subarray(n);
    }
    const eol = buf.indexOf(crlf);
    if (eol < 0) {
      if (buf.length > maxHeadBytes) throw new Error('the server sent a chunk line longer than 16 KiB');
      this.pending = buf;
      return Buffer.alloc(0);
    }
    const line = buf.toString('latin1', 0, eol);
    const rest = buf.subarray(eol + 2);
    if (x.chunkEnd) {
      if (line !== '') throw new Error('the server sent no CRLF after a chunk');
      x.chunkEnd = false;
      return rest;
    }
    if (x.trailers) {
      // Trailers are dropped (node's server sends none unless asked); the empty line ends the body.
      if (line === '') this.complete(x, undefined);
      return rest;
    }
    const size = /^([0-9a-fA-F]+)[ \t]*(?:;.*)?$/.exec(line);
    if (!size) throw new Error(`the server sent a bad chunk size: ${JSON.stringify(line.slice(0, 100))}`);
    x.chunkLeft = parseInt(size[1]!, 16);
    if (x.chunkLeft === 0) x.trailers = true;
    return rest;
  }

  private write(x: Exchange, data: Buffer): void {
    if (data.length === 0) return;
    // The client is slow: stop reading until it has taken what is buffered.
    if (!x.res.write(data) && !this.paused) {
      this.paused = true;
      this.socket.pause();
      x.res.once('drain', this.drained);
    }
  }

  private complete(x: Exchange, whole: Buffer | undefined): void {
    x.done = true;
    this.exchange = undefined;
    x.res.off('close', this.clientLeft);
    x.res.off('drain', this.drained);
    this.pending = undefined;
    if (this.paused) {
      // The next answer on this connection must be read.
      this.paused = false;
      this.socket.resume();
    }
    if (whole !== undefined) x.res.end(whole);
    else x.res.end();
    const idleMs = x.closing ? 0 : this.client.endpoint.idleMs(x.keepAlive);
    if (idleMs <= 0) this.socket.destroy();
    else {
      this.socket.setTimeout(idleMs);
      this.client.release(this);
    }
  }

  private fail(x: Exchange, err: Error): void {
    x.done = true;
    this.exchange = undefined;
    x.res.off('close', this.clientLeft);
    x.res.off('drain', this.drained);
    this.socket.destroy();
    if (x.res.headersSent) x.res.destroy();
    else if (!x.res.destroyed) x.failed(err);
  }

  private closed(): void {
    this.client.forget(this);
    const x = this.exchange;
    if (x === undefined) return;
    // A body read until the connection closes is complete now; any other answer was cut.
    if (x.untilClose && x.status !== 0) this.complete(x, undefined);
    else if (x.status === 0) this.fail(x, this.error ?? new Error('the server closed the connection before answering'));
    else this.fail(x, new Error('the server closed the connection in the middle of an answer'));
  }
}
