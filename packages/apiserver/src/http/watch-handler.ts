/**
 * Streams a watch as newline-terminated JSON events over a chunked response.
 * A watcher that does not read fast enough is cut off once its unsent bytes
 * pass a bound, so it can neither block writers nor grow memory without limit;
 * the client re-watches from the last revision it saw, as with kube.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { KubeObject } from '@operant/apimachinery';
import type { WatchOptions } from '../registry/options.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { StoredItem, startWatch, type WatchEventType } from '../registry/watch.js';
import { tableForResource } from '../tables/for-resource.js';
import { encodedJson } from '../storage/encoded-json.js';
import { eventHeads, eventTail, framedChunk, joined, storedEventLine } from './watch-chunks.js';
import type { ResponseForm } from './negotiate.js';
import type { ResourceRequest } from './request-info.js';

export interface WatchServingOptions {
  /** How often to send BOOKMARK events to watchers that allow them. */
  bookmarkIntervalMs: number;
  /** Unsent bytes after which a slow watcher is disconnected. */
  maxWatchBufferBytes: number;
  /** Default watch duration when the client gives no timeoutSeconds (kube: 30-60 minutes). */
  defaultWatchTimeoutMs: number;
}

/** How much a watch's replay may have waiting in its socket's buffer before it waits for a drain. */
const replayHighWaterMark = 64 * 1024;

/** Events a watcher may fall behind by before it is dropped (kube's watch cache drops a watcher whose buffer is full). */
const maxQueuedEvents = 100_000;

export function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  rs: ResourceStore,
  rr: ResourceRequest,
  opts: WatchOptions,
  form: ResponseForm,
  serving: WatchServingOptions,
  includeObject: 'None' | 'Metadata' | 'Object',
): void {
  if (rr.name) {
    // Watching one object by URL is a watch with a metadata.name field selector.
    const byName = `metadata.name=${rr.name}`;
    opts = { ...opts, fieldSelector: opts.fieldSelector ? `${opts.fieldSelector},${byName}` : byName };
  }
  let closed = false;
  /**
   * Adds an event's bytes to `outgoing`. An object as stored is sent from its kept encoding: a live
   * event as one line that the other watchers of its fan-out round send too; a replayed one between
   * shared constant parts (its line is this watcher's alone).
   */
  const encode = (type: WatchEventType, object: unknown, live: boolean): void => {
    // An initial event's object read back from disk: sent from its stored bytes, parsed only for other forms.
    if (object instanceof StoredItem) {
      if (form === 'object') return pushParts(eventHeads[type], object.bytes(), eventTail);
      object = object.entry.value;
    }
    let payload = object;
    if (type !== 'ERROR' && type !== 'BOOKMARK') {
      if (form === 'table') payload = tableForResource(rs.info, [object as KubeObject], { includeObject });
      else if (form === 'metadata') payload = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: (object as KubeObject).metadata };
      else if (live) return pushPart(storedEventLine(type, object as KubeObject));
      else return pushParts(eventHeads[type], encodedJson(object as KubeObject), eventTail);
    }
    pushPart(Buffer.from(`${JSON.stringify({ type, object: payload })}\n`, 'utf8'));
  };
  // Events wait in a queue until the socket takes them: the replay of an old resourceVersion (and
  // the initial state) arrives before the headers go out, all at once. They are encoded only as the
  // socket drains, so a watcher that does not read holds references to stored objects, never a
  // rendering of the whole history (issue 14, item 5); one that reads gets every event.
  const queue: Array<readonly [WatchEventType, unknown]> = [];
  let next = 0;
  let started = false;
  let waitingForDrain = false;
  /** Ends the response (normally) once the queue is written: after an expired watch's ERROR. */
  let endWhenFlushed = false;
  // Encoded events not yet written: they go out together, in one chunk, so a watcher that gets
  // several events in one turn (a burst of writes, a replay) gets them in one write, as
  // kube-apiserver flushes several events per chunk, and its client decodes them as one batch.
  let outgoing: Buffer[] = [];
  let outgoingBytes = 0;
  const pushPart = (part: Buffer): void => {
    outgoing.push(part);
    outgoingBytes += part.length;
  };
  const pushParts = (head: Buffer, body: Buffer, tail: Buffer): void => {
    outgoing.push(head, body, tail);
    outgoingBytes += head.length + body.length + tail.length;
  };
  // The socket the chunks are written to directly, each framed here as Node's response frames the
  // writes of a chunked body (see framedChunk): one buffer per write, which costs the server less
  // than a write through the response (four writes to the socket, corked, then copied into one
  // TLS record). Set once the headers went out, when nothing of the response waits in its own
  // buffer (a response queued behind another on the connection writes through the response).
  let socket: Socket | undefined;
  // Chunks handed to the response that the socket has not taken yet. While one is on its way (the
  // client reads slower than events come), live events wait in `outgoing` and go out together as the
  // next chunk once it has been taken (cork/uncork): a backlogged watcher gets several events per
  // write, which costs the server one write and its client one decode for all of them.
  let writesInFlight = 0;
  const written = (): void => {
    writesInFlight--;
    if (writesInFlight === 0 && outgoingBytes > 0 && next >= queue.length) flush();
  };
  /** Writes the waiting live events, unless a chunk is still on its way (then `written` does). */
  const flushLive = (): void => {
    if (writesInFlight === 0) flush();
  };

  const addEvent = (type: WatchEventType, object: unknown, live: boolean): boolean => {
    try {
      encode(type, object, live);
      return true;
    } catch (e) {
      // An event that cannot be rendered ends this watch; the client re-watches from its last revision.
      console.error(`watch on ${rs.info.resource}: ${(e as Error).message}`);
      close(true);
      return false;
    }
  };

  /** Writes the encoded events as one chunk; returns whether the socket took it without buffering past its mark. */
  const flush = (): boolean => {
    if (outgoing.length === 0 || closed) return true;
    const parts = outgoing;
    const bytes = outgoingBytes;
    outgoing = [];
    outgoingBytes = 0;
    writesInFlight++;
    if (socket) return socket.write(framedChunk(parts, bytes), written);
    return res.write(joined(parts, bytes), written);
  };

  /** Unsent bytes: those the response holds and those not yet handed to it. */
  const unsent = (): number => res.writableLength + outgoingBytes;

  /**
   * Writes queued events while the socket keeps up; resumes on 'drain'. It
   * stops at a small high-water mark, not at the slow-watcher bound: a
   * thousand watches replaying at once must not each buffer megabytes.
   */
  const pump = (): void => {
    const mark = Math.min(replayHighWaterMark, serving.maxWatchBufferBytes);
    while (next < queue.length && !closed) {
      if (unsent() > mark) {
        // A batch this size goes out; once the socket holds more than the mark, wait for it.
        if (outgoingBytes > 0 && flush() && res.writableLength <= mark) continue;
        if (!waitingForDrain) {
          waitingForDrain = true;
          (socket ?? res).once('drain', () => {
            waitingForDrain = false;
            pump();
          });
        }
        return;
      }
      const [type, object] = queue[next]!;
      queue[next++] = undefined as never;
      if (!addEvent(type, object, false)) return;
    }
    if (closed) return;
    flush();
    queue.length = 0;
    next = 0;
    if (endWhenFlushed) close(false);
  };

  const send = (type: WatchEventType, object: unknown): void => {
    if (closed) return;
    if (!started || next < queue.length) {
      if (queue.length - next >= maxQueuedEvents) {
        // A watcher this far behind is dropped, as kube drops one whose buffer fills; a replay this
        // long ends after what it holds (the client re-watches from there).
        if (started) close(true);
        else endWhenFlushed = true;
        return;
      }
      queue.push([type, object]);
      if (started) pump();
      return;
    }
    if (!addEvent(type, object, true)) return;
    // A live watcher that stopped reading is disconnected.
    if (unsent() > serving.maxWatchBufferBytes) close(true);
    // The events go in one write when the watch says a batch is over (the store's fan-out round, a
    // conversion's answer, a bookmark); while the socket has not taken the last chunk, with the
    // events after them, once it has (`written`).
  };

  // Starting the watch may throw (bad selector, bad resourceVersion): that is an
  // ordinary error answer, so the headers go out only after it succeeded.
  const watch = startWatch(rs, rr.namespace, opts, send, () => {
    // The replay's queue writes its own batches.
    if (started && next >= queue.length) flushLive();
  });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  const direct = res.socket;
  if (req.method === 'GET' && res.chunkedEncoding && direct && res.writableLength === direct.writableLength) socket = direct;
  started = true;

  const timer = setTimeout(() => close(false), watchTimeoutMs(opts.timeoutSeconds, serving.defaultWatchTimeoutMs));
  const bookmarks = opts.allowWatchBookmarks ? setInterval(() => watch.bookmark(), serving.bookmarkIntervalMs) : undefined;

  function close(abrupt: boolean): void {
    if (closed) return;
    closed = true;
    watch.stop();
    clearTimeout(timer);
    if (bookmarks) clearInterval(bookmarks);
    if (abrupt) {
      outgoing = [];
      res.destroy();
    } else {
      const last = outgoing.length ? Buffer.concat(outgoing, outgoingBytes) : undefined;
      outgoing = [];
      res.end(last);
    }
  }
  req.on('close', () => close(true));
  res.on('close', () => close(true));
  // A watch that failed at once (an expired resourceVersion) is over after its ERROR event.
  if (watch.ended) endWhenFlushed = true;
  pump();
}

/**
 * How long a watch lasts. timeoutSeconds=0 or none means the default, as in
 * kube's ListResource (minRequestTimeout × (1 + rand)). A request for longer
 * than the longest default (twice it, an hour by default) gets the default
 * too: a timer cannot run past 2^31 ms (Node fires it at once, and the client
 * would re-watch in a hot loop), and no watch needs to.
 */
export function watchTimeoutMs(timeoutSeconds: number | undefined, defaultWatchTimeoutMs: number, random: () => number = Math.random): number {
  const requested = (timeoutSeconds ?? 0) * 1000;
  if (requested > 0 && requested <= 2 * defaultWatchTimeoutMs) return requested;
  return defaultWatchTimeoutMs * (1 + random());
}
