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
    const chunks: Buffer[] = [];
    const discardLimit = Math.max(limit, 1024 * 1024);
    let size = 0;
    let dropped = 0;
    let over = false;
    let settled = false;
    const tooLarge = (): void => {
      if (settled) return;
      settled = true;
      reject(new BodyError(413, tooLargeMessage(limit)));
    };
    req.on('data', (chunk: Buffer) => {
      if (over) {
        dropped += chunk.length;
        if (dropped > discardLimit) tooLarge();
        return;
      }
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
      } else chunks.push(chunk);
    });
    req.once('end', () => {
      if (over) tooLarge();
      else if (!settled) {
        settled = true;
        // A review usually arrives in one chunk: no copy then.
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      }
    });
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      reject(new BodyError(400, message));
    };
    req.once('error', (err) => fail(`unable to read the request body: ${err.message}`));
    req.once('aborted', () => fail('the client closed the connection before sending the whole body'));
  });
}
