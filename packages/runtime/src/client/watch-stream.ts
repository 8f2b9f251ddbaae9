/**
 * Reads a watch response: newline-delimited JSON events over a chunked body,
 * parsed as chunks arrive (an event split across chunks is joined; several in
 * one chunk are all yielded). The iteration ends when the server ends the
 * response, or quietly when the caller's signal aborts; a broken connection
 * or an undecodable line throws.
 */
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '@operant/apimachinery';
import type { WatchEvent, WatchEventType } from '../cache/list-watch.js';

const eventTypes = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

function decodeEvent<T extends KubeObject>(line: string, request: string): WatchEvent<T> {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    throw new Error(`watch ${request}: undecodable event ${JSON.stringify(line.slice(0, 200))}`);
  }
  const { type, object } = (event ?? {}) as { type?: unknown; object?: unknown };
  if (typeof type !== 'string' || !eventTypes.has(type as WatchEventType) || typeof object !== 'object' || object === null) {
    throw new Error(`watch ${request}: not a watch event: ${JSON.stringify(line.slice(0, 200))}`);
  }
  return { type: type as WatchEventType, object: object as T };
}

/**
 * Yields the events of a watch response.
 *
 * @example
 * ```ts
 * for await (const event of watchEvents<Pod>(response, 'GET /api/v1/pods?watch=1', signal)) console.log(event.type);
 * ```
 */
export async function* watchEvents<T extends KubeObject>(res: IncomingMessage, request: string, signal?: AbortSignal): AsyncGenerator<WatchEvent<T>> {
  res.setEncoding('utf8');
  let pending = '';
  try {
    for await (const chunk of res as AsyncIterable<string>) {
      let text = pending + chunk;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        const line = text.slice(start, nl);
        start = nl + 1;
        if (line.trim() !== '') yield decodeEvent<T>(line, request);
      }
      pending = text.slice(start);
      text = '';
    }
    if (pending.trim() !== '') yield decodeEvent<T>(pending, request);
  } catch (e) {
    if (signal?.aborted) return;
    throw e;
  } finally {
    // Ends the connection when the consumer stops early (break, return, throw).
    if (!res.complete) res.destroy();
  }
}
