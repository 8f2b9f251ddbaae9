/**
 * Writing the server's answers: a review as JSON, or an HTTP error as a
 * metav1.Status (kube's error body), so that every answer is JSON a client
 * (or the API server relaying it) can read. Internal.
 */
import type { ServerResponse } from 'node:http';
import type { Status, StatusReason } from '@operant/apimachinery';
import { reviewWithEncodedPatch } from '../admission/encoded-patch.js';

const reasons: Record<number, StatusReason> = {
  400: 'BadRequest',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  408: 'Timeout',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** A failure Status with the reason kube pairs with `code`. */
export function failureStatus(code: number, message: string): Status {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  const reason = reasons[code];
  if (reason) status.reason = reason;
  return status;
}

/** Writes `body` as JSON with `code`; `close` asks the client not to reuse the connection. */
export function writeJson(res: ServerResponse, code: number, body: object, close = false): void {
  const payload = reviewWithEncodedPatch(body) ?? JSON.stringify(body);
  const length = String(Buffer.byteLength(payload));
  // Name-value pairs in one array: Node writes them as given, without walking an object's keys.
  res.writeHead(
    code,
    close ? ['Content-Type', 'application/json', 'Content-Length', length, 'Connection', 'close'] : ['Content-Type', 'application/json', 'Content-Length', length],
  );
  // A string: Node sends it in one write with the head.
  res.end(payload);
}

/** Writes an HTTP error as a metav1.Status. */
export function writeStatus(res: ServerResponse, code: number, message: string, close = false, extraHeaders: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
  writeJson(res, code, failureStatus(code, message), close);
}
