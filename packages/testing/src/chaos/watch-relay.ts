/**
 * Relays a watch response line by line, so that faults can act between
 * events and inside one: kube sends each event as one JSON object followed by
 * a newline, in chunks that need not match the lines. The relay holds a
 * partial line until its newline arrives; before sending each event it asks
 * the proxy whether to stall (a partition), drop it (a bookmark) or cut the
 * stream in its middle. While no fault could act on the stream, the whole
 * events of a chunk go on in one write, as they came (the proxy then costs
 * little more than a pipe). Reading upstream only as fast as the client takes
 * the events keeps a stalled stream's backlog in the sockets, not in memory here.
 */
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** What the proxy decides for each event of a stream. */
export interface WatchRelayHooks {
  /** True while no fault could act on this stream's events: they are passed on without looking at them. */
  quiet(): boolean;
  /** Told how many events went on unexamined while quiet. */
  passed(events: number): void;
  /** Resolves when the event may go (waits out a partition). */
  beforeEvent(): Promise<void>;
  /** True to swallow this BOOKMARK. */
  dropBookmark(): boolean;
  /** True to send half of this event and reset the connection. */
  cut(eventType: string): boolean;
}

/** The `type` of an event line, without parsing the object it carries. */
export function eventType(line: string): string {
  const m = /"type"\s*:\s*"([A-Z]+)"/.exec(line.slice(0, 64));
  return m?.[1] ?? 'UNKNOWN';
}

/**
 * Sends `upstream`'s events to `res` (headers already written), applying the
 * hooks. Resolves when either side ends; a cut resolves `'cut'`.
 */
export async function relayWatch(upstream: Readable, res: ServerResponse, hooks: WatchRelayHooks): Promise<'ended' | 'cut' | 'closed'> {
  const closed = (): boolean => res.destroyed || res.writableEnded;
  res.once('close', () => upstream.destroy());
  // Bytes after the last newline seen: the start of an event still arriving.
  let pending: Buffer = Buffer.alloc(0);
  try {
    for await (const chunk of upstream as AsyncIterable<Buffer>) {
      const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      const lastNewline = data.lastIndexOf(0x0a);
      pending = lastNewline < 0 ? data : data.subarray(lastNewline + 1);
      if (lastNewline < 0) continue;
      const events = data.subarray(0, lastNewline + 1);
      if (hooks.quiet()) {
        hooks.passed(countLines(events));
        if (!res.write(events)) await drained(res);
        continue;
      }
      for (const line of events.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        await hooks.beforeEvent();
        if (closed()) return 'closed';
        const type = eventType(line);
        if (type === 'BOOKMARK' && hooks.dropBookmark()) continue;
        if (hooks.cut(type)) {
          await cutInHalf(res, line);
          upstream.destroy();
          return 'cut';
        }
        if (!res.write(`${line}\n`)) await drained(res);
      }
    }
  } catch {
    // The upstream connection broke (or was destroyed because the client left): end the client's too.
    if (!closed()) res.destroy();
    return 'closed';
  }
  if (closed()) return 'closed';
  res.end(pending);
  return 'ended';
}

/** Non-empty lines in `data` (which ends with a newline). */
function countLines(data: Buffer): number {
  let lines = 0;
  let start = 0;
  for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
    if (nl > start) lines++;
    start = nl + 1;
  }
  return lines;
}

/** Writes the first half of an event, then drops the connection once those bytes are out. */
function cutInHalf(res: ServerResponse, line: string): Promise<void> {
  const half = line.slice(0, Math.max(1, Math.floor(line.length / 2)));
  return new Promise((resolve) => {
    res.write(half, () => {
      res.destroy();
      resolve();
    });
  });
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
