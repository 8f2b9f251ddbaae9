/**
 * The proxy's HTTP plumbing: which headers are the connection's own (not
 * forwarded), answering with a kube Status, dropping a connection, reading a
 * body, and finding an object's name in one.
 */
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Status } from '@operant/apimachinery';

/** Headers that belong to one connection, not to the request (RFC 9110 7.6.1), plus the length the proxy sets itself. */
export const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length']);

/** An upstream answer's headers for the client; a streamed (watch) answer loses its length. */
export function responseHeaders(headers: IncomingHttpHeaders, keepLength: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (hopByHop.has(name) && !(keepLength && name === 'content-length'))) continue;
    out[name] = value;
  }
  return out;
}

export function sendStatus(res: ServerResponse, status: Status, headers: OutgoingHttpHeaders = {}): void {
  const body = JSON.stringify(status);
  res.writeHead(status.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * Drops the connection without an answer: the client reads `socket hang up`
 * (ECONNRESET). A TCP RST proper (`resetAndDestroy`) is not available under
 * TLS, and a client cannot tell the difference before a response starts.
 */
export function resetConnection(res: ServerResponse): void {
  res.socket?.destroy();
  res.destroy();
}

const noBody = Buffer.alloc(0);

/**
 * A request's body. One that announces none (`announced` false: no
 * Content-Length, no Transfer-Encoding: most GETs, every watch) is not waited
 * for: the stream is only drained, so a bodiless request costs no promise and
 * no listeners.
 */
export function readBody(req: IncomingMessage, announced: boolean): Buffer | Promise<Buffer> {
  if (!announced) {
    req.resume();
    return noBody;
  }
  return readAll(req);
}

export function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** `metadata.name` of a JSON body (`<generateName>*` when it has only that). */
export function nameInBody(body: Buffer): string | undefined {
  if (body.length === 0 || body[0] !== 0x7b) return undefined;
  try {
    const meta = (JSON.parse(body.toString('utf8')) as { metadata?: { name?: string; generateName?: string } }).metadata;
    return meta?.name ?? (meta?.generateName ? `${meta.generateName}*` : undefined);
  } catch {
    return undefined;
  }
}

export function closedPromise(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.once('close', () => resolve());
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
