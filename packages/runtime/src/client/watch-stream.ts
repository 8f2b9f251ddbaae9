/**
 * Reads a watch response: newline-delimited JSON events over a chunked body,
 * parsed as chunks arrive (an event split across chunks is joined; several in
 * one chunk are decoded together). Two readers share the decoding:
 * {@link watchEvents} yields event by event (for `Client.watch`), and
 * {@link readWatchEvents} hands each chunk's events to a callback at once (for
 * informers, where one await per event is a large share of the cost).
 * Both end when the server ends the response, or quietly when the caller's
 * signal aborts; a broken connection or an undecodable line is an error.
 */
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import type { KubeObject } from '@operant/apimachinery';
import type { WatchEvent, WatchEventType } from '../cache/list-watch.js';

const ignore = (): void => {};

function isEventType(type: unknown): type is WatchEventType {
  return type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED' || type === 'BOOKMARK' || type === 'ERROR';
}

/** Decodes one line; undefined for a blank one. */
function decodeEvent<T extends KubeObject>(line: string, request: string): WatchEvent<T> | undefined {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    // Blank lines are rare: test for them only when parsing failed.
    if (line.trim() === '') return undefined;
    throw new Error(`watch ${request}: undecodable event ${JSON.stringify(line.slice(0, 200))}`);
  }
  const { type, object } = (event ?? {}) as { type?: unknown; object?: unknown };
  if (!isEventType(type) || typeof object !== 'object' || object === null) {
    throw new Error(`watch ${request}: not a watch event: ${JSON.stringify(line.slice(0, 200))}`);
  }
  return { type, object: object as T };
}

/** Splits the body's text into events, keeping an unfinished line for the next chunk. */
class EventDecoder<T extends KubeObject> {
  private pending = '';

  constructor(private readonly request: string) {}

  /**
   * Appends the complete events of `chunk` to `out`. On an undecodable line it
   * throws, leaving in `out` the events that preceded it.
   */
  push(chunk: string, out: WatchEvent<T>[]): void {
    const text = this.pending + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      if (nl > start) {
        const event = decodeEvent<T>(text.slice(start, nl), this.request);
        if (event) out.push(event);
      }
      start = nl + 1;
    }
    this.pending = start === 0 ? text : text.slice(start);
  }

  /** The body ended: decodes a last line that had no newline. */
  end(out: WatchEvent<T>[]): void {
    const rest = this.pending;
    this.pending = '';
    if (rest === '') return;
    const event = decodeEvent<T>(rest, this.request);
    if (event) out.push(event);
  }
}

/**
 * Yields the events of a watch response.
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from 'node:http';
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { Typed } from '@operant/runtime';
 * import { watchEvents } from './watch-stream.js';
 *
 * declare const response: IncomingMessage; // the answer to GET /api/v1/pods?watch=1
 * for await (const event of watchEvents<Typed<corev1.Pod>>(response, 'GET /api/v1/pods?watch=1', signal)) console.log(event.type);
 * ```
 */
export async function* watchEvents<T extends KubeObject>(res: IncomingMessage, request: string, signal?: AbortSignal): AsyncGenerator<WatchEvent<T>> {
  res.setEncoding('utf8');
  const decoder = new EventDecoder<T>(request);
  const batch: WatchEvent<T>[] = [];
  try {
    for await (const chunk of res as AsyncIterable<string>) {
      let failure: unknown;
      try {
        decoder.push(chunk, batch);
      } catch (e) {
        failure = e;
      }
      // The events before an undecodable line still count.
      for (let i = 0; i < batch.length; i++) yield batch[i]!;
      batch.length = 0;
      if (failure !== undefined) throw failure;
    }
    decoder.end(batch);
    for (const event of batch) yield event;
  } catch (e) {
    if (signal?.aborted) return;
    throw e;
  } finally {
    // Ends the connection when the consumer stops early (break, return, throw).
    if (!res.complete) res.destroy();
  }
}

/**
 * Hands the events of a watch response to `onEvents`, one synchronous call per
 * received chunk that completes at least one event (in order; an array the
 * callee may keep). Resolves when the server ends the response, or as soon as
 * `signal` aborts; rejects when the connection breaks, a line cannot be
 * decoded (after delivering the events before it), or `onEvents` throws (with
 * what it threw). The response is closed whenever reading stops early.
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from 'node:http';
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { Typed } from '@operant/runtime';
 * import { readWatchEvents } from './watch-stream.js';
 *
 * declare const response: IncomingMessage; // the answer to GET /api/v1/pods?watch=1
 * await readWatchEvents<Typed<corev1.Pod>>(response, 'GET /api/v1/pods?watch=1', signal, (events) => {
 *   for (const event of events) console.log(event.type, event.object.metadata.name);
 * });
 * ```
 */
export function readWatchEvents<T extends KubeObject>(
  res: IncomingMessage,
  request: string,
  signal: AbortSignal | undefined,
  onEvents: (events: WatchEvent<T>[]) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const decoder = new EventDecoder<T>(request);
    let settled = false;
    const settle = (err: unknown): void => {
      if (settled) return;
      settled = true;
      res.off('data', onData);
      stopWatching();
      // A late socket error on a response nobody reads any more must not crash the process.
      res.on('error', ignore);
      signal?.removeEventListener('abort', onAbort);
      if (!res.complete) res.destroy();
      if (err === undefined || signal?.aborted) resolve();
      else reject(err);
    };
    /** Delivers `events`, then stops on `failure` or on what `onEvents` threw; false once reading has stopped. */
    const deliver = (events: WatchEvent<T>[], failure: unknown): boolean => {
      try {
        if (events.length > 0) onEvents(events);
      } catch (e) {
        failure = e;
      }
      if (failure === undefined) return true;
      settle(failure);
      return false;
    };
    const onData = (chunk: string): void => {
      if (settled) return;
      const events: WatchEvent<T>[] = [];
      let failure: unknown;
      try {
        decoder.push(chunk, events);
      } catch (e) {
        failure = e;
      }
      deliver(events, failure);
    };
    const onAbort = (): void => settle(undefined);
    res.setEncoding('utf8');
    // 'end', 'error' and a premature close, in one place.
    const stopWatching = finished(res, { writable: false }, (err) => {
      if (settled) return;
      if (err) {
        settle(err);
        return;
      }
      const events: WatchEvent<T>[] = [];
      let failure: unknown;
      try {
        decoder.end(events);
      } catch (e) {
        failure = e;
      }
      if (deliver(events, failure)) settle(undefined);
    });
    res.on('data', onData);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
