/**
 * Streams a watch as newline-terminated JSON events over a chunked response.
 * A watcher that does not read fast enough is cut off once its unsent bytes
 * pass a bound, so it can neither block writers nor grow memory without limit;
 * the client re-watches from the last revision it saw, as with kube.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '@operant/apimachinery';
import type { WatchOptions } from '../registry/options.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { StoredItem, startWatch, type WatchEventType } from '../registry/watch.js';
import { tableForResource } from '../tables/for-resource.js';
import { encodedJson } from '../storage/encoded-json.js';
import { concatBytes } from '../storage/large-buffers.js';
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

/** The constant parts of an event line around an object: `{"type":"ADDED","object":` ... `}\n`. */
const eventHeads: Record<WatchEventType, Buffer> = Object.fromEntries(
  (['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const).map((t) => [t, Buffer.from(`{"type":"${t}","object":`)]),
) as Record<WatchEventType, Buffer>;
const eventTail = Buffer.from('}\n');

/**
 * The last chunk made of several parts, and the parts it was made of. The
 * watchers of one collection get the same events in a fan-out round, one after
 * another: all but the first send the bytes the first one joined. Kept until
 * the next turn of the event loop at most.
 */
let lastParts: readonly Buffer[] = [];
let lastChunk: Buffer | undefined;
const forgetLastChunk = (): void => {
  lastParts = [];
  lastChunk = undefined;
};

/** `parts` (`bytes` of them) as one buffer: the one made for the same parts just before, if it was. */
function joined(parts: readonly Buffer[], bytes: number): Buffer {
  if (parts.length === 1) return parts[0]!;
  if (lastChunk !== undefined && lastChunk.length === bytes && parts.length === lastParts.length && parts.every((p, i) => p === lastParts[i])) return lastChunk;
  if (lastChunk === undefined) setImmediate(forgetLastChunk);
  lastParts = parts;
  lastChunk = concatBytes(parts, bytes);
  return lastChunk;
}

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
  /** An event's bytes: an object as stored is sent from its kept encoding, between shared constant parts. */
  const encode = (type: WatchEventType, object: unknown): Buffer[] => {
    // An initial event's object read back from disk: sent from its stored bytes, parsed only for other forms.
    if (object instanceof StoredItem) {
      if (form === 'object') return [eventHeads[type], object.bytes(), eventTail];
      object = object.entry.value;
    }
    let payload = object;
    if (type !== 'ERROR' && type !== 'BOOKMARK') {
      if (form === 'table') payload = tableForResource(rs.info, [object as KubeObject], { includeObject });
      else if (form === 'metadata') payload = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: (object as KubeObject).metadata };
      else return [eventHeads[type], encodedJson(object as KubeObject), eventTail];
    }
    return [Buffer.from(`${JSON.stringify({ type, object: payload })}\n`, 'utf8')];
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
  let flushScheduled = false;
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

  const addEvent = (type: WatchEventType, object: unknown): boolean => {
    try {
      for (const part of encode(type, object)) {
        outgoing.push(part);
        outgoingBytes += part.length;
      }
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
    const chunk = joined(outgoing, outgoingBytes);
    outgoing = [];
    outgoingBytes = 0;
    writesInFlight++;
    return res.write(chunk, written);
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
          res.once('drain', () => {
            waitingForDrain = false;
            pump();
          });
        }
        return;
      }
      const [type, object] = queue[next]!;
      queue[next++] = undefined as never;
      if (!addEvent(type, object)) return;
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
    if (!addEvent(type, object)) return;
    // A live watcher that stopped reading is disconnected.
    if (unsent() > serving.maxWatchBufferBytes) {
      close(true);
      return;
    }
    // The events of a fan-out round go in one write, when the store says the round is over (or,
    // for events that came later, as from a conversion webhook, at the end of this turn); while the
    // socket has not taken the last chunk, with the events after them, once it has (`written`).
    if (!flushScheduled) {
      flushScheduled = true;
      process.nextTick(() => {
        flushScheduled = false;
        flushLive();
      });
    }
  };

  // Starting the watch may throw (bad selector, bad resourceVersion): that is an
  // ordinary error answer, so the headers go out only after it succeeded.
  const watch = startWatch(rs, rr.namespace, opts, send, () => {
    // The replay's queue writes its own batches.
    if (next >= queue.length) flushLive();
  });
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
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
