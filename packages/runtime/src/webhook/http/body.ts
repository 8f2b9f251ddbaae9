/**
 * Reading a request body up to a size limit, so that one oversized request
 * cannot take the process's memory. Internal.
 */
import type { IncomingMessage } from 'node:http';

/** Why a body could not be read. */
export class BodyError extends Error {
  constructor(
    readonly code: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

/** The message controller-runtime gives for an oversized body. */
export function tooLargeMessage(limit: number): string {
  return `request entity is too large; limit is ${limit} bytes`;
}

/**
 * Resolves with the body; rejects with a {@link BodyError} (413) once it
 * exceeds `limit` bytes. The excess is read and dropped (nothing is kept) until
 * the body ends, or up to `max(limit, 1 MiB)` more bytes, before rejecting: a
 * client still sending when the answer comes and the connection closes would
 * see a reset instead of the 413.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // The listeners are unnamed arrows into one object: a named local function costs a
    // defineProperty per request where the source runs through a keep-names transform (tsx).
    const read = new BodyRead(limit, resolve, reject);
    // `on`, not `once`: each settles at most once by itself (BodyRead.settled), and `once` wraps every listener.
    req.on('data', (chunk: Buffer) => read.data(chunk));
    req.on('end', () => read.end());
    req.on('error', (err) => read.fail(`unable to read the request body: ${err.message}`));
    req.on('aborted', () => read.fail('the client closed the connection before sending the whole body'));
  });
}

/** One body being read: its chunks, and whether it went over the limit or settled. */
class BodyRead {
  private readonly chunks: Buffer[] = [];
  private readonly discardLimit: number;
  private size = 0;
  private dropped = 0;
  private over = false;
  private settled = false;

  constructor(
    private readonly limit: number,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: BodyError) => void,
  ) {
    this.discardLimit = Math.max(limit, 1024 * 1024);
  }

  data(chunk: Buffer): void {
    if (this.over) {
      this.dropped += chunk.length;
      if (this.dropped > this.discardLimit) this.tooLarge();
      return;
    }
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.over = true;
      this.chunks.length = 0;
    } else this.chunks.push(chunk);
  }

  end(): void {
    if (this.over) this.tooLarge();
    else if (!this.settled) {
      this.settled = true;
      // A review usually arrives in one chunk: no copy then.
      this.resolve(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size));
    }
  }

  fail(message: string): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(new BodyError(400, message));
  }

  private tooLarge(): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(new BodyError(413, tooLargeMessage(this.limit)));
  }
}
