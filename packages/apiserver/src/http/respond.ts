/** Writing JSON answers, Status errors and Warning headers. */
import type { ServerResponse } from 'node:http';
import { StatusError, internalError, type Status } from '@operant/apimachinery';

export function sendJson(res: ServerResponse, code: number, body: unknown, contentType = 'application/json'): void {
  sendText(res, code, JSON.stringify(body), contentType);
}

/** Sends already-serialized JSON. */
export function sendText(res: ServerResponse, code: number, text: string, contentType = 'application/json'): void {
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
  res.end(text);
}

/** Any thrown value as the Status kube would send; unexpected errors become 500 InternalError. */
export function toStatus(err: unknown): Status {
  if (err instanceof StatusError) return err.status;
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
  const quoted = warnings.map((w) => `299 - ${JSON.stringify(w.replace(/[\r\n]+/g, ' '))}`);
  res.setHeader('Warning', quoted);
}
