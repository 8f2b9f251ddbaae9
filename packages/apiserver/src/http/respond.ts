/** Writing JSON answers, Status errors and Warning headers. */
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError, internalError, unknownError, type Status, type StatusReason } from '@operant/apimachinery';
import { StoreError } from '../storage/types.js';

export function sendJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  sendText(res, code, JSON.stringify(body), contentType);
}

/** Sends already-serialized JSON (text, or its UTF-8 bytes). */
export function sendText(res: ServerResponse, code: number, text: string | Buffer, contentType = 'application/json'): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

/** Any thrown value as the Status kube would send; unexpected errors become 500 InternalError. */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
  // etcd's refusals (too large, NOSPACE) reach kube's clients as they are: a 500 without a reason (ErrorToAPIStatus).
  if (err instanceof StoreError && (err.code === 'TooLarge' || err.code === 'NoSpace')) return unknownError(err.message).status;
  return internalError(err instanceof Error ? err.message : String(err)).status;
}

export function sendError(res: ServerResponse, err: unknown): void {
  const status = toStatus(err);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (status.details?.retryAfterSeconds) res.setHeader('Retry-After', String(status.details.retryAfterSeconds));
  sendJson(res, status.code, status);
}

/** Adds `Warning: 299 - "<text>"` headers, which kubectl prints as `Warning: <text>`. */
export function addWarnings(res: ServerResponse, warnings: string[]): void {
  if (warnings.length === 0) return;
  const set = res.getHeader('Warning');
  const earlier = set === undefined ? [] : Array.isArray(set) ? set : [String(set)];
  res.setHeader('Warning', [...earlier, ...warnings.map(warningHeader)]);
}

/**
 * One Warning header value as kube writes it (net.NewWarningHeader): the text in
 * quotes with `"` and `\` escaped, in UTF-8. Node takes header values as latin1
 * strings, so the UTF-8 bytes are passed that way; control characters, which
 * Node refuses in headers, become spaces.
 */
function warningHeader(text: string): string {
  const quoted = `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
  return Buffer.from(quoted, 'utf8').toString('latin1').replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');
}

/**
 * Answers a request Node's HTTP parser refused (an unknown method, a malformed
 * request line, headers too large) with a Status, as every error of this server
 * is one, then closes the connection. Node's default is a bare 400.
 */
export function answerClientError(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = clientErrorStatus(err);
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The Status answerClientError answers a client error of Node's with. */
function clientErrorStatus(err: Error & { code?: string; reason?: string }): Status {
  const [code, reason, message]: [number, StatusReason, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'RequestEntityTooLarge', 'Request Header Fields Too Large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'HPE_HEADERS_TIMEOUT'
        ? [408, 'Timeout', 'Request Timeout']
        : [400, 'BadRequest', `Bad Request: ${err.reason ?? err.code ?? err.message}`];
  return new StatusError(code, reason, message).status;
}

/**
 * Answers a request not received whole within the request timeout as a
 * connection of the server's gets it from answerClientError (408, then the
 * connection closes), for a request another server of the process took in:
 * its connection is not the server's, so Node's timeouts do not see it.
 */
export function answerRequestTimeout(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(clientErrorStatus(Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })));
  res.writeHead(408, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}
