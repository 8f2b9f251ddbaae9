/** The media type of a request, without parameters. Internal. */
import type { IncomingMessage } from 'node:http';

/** `application/json` for `application/json; charset=utf-8`; '' when absent. */
export function mediaType(req: IncomingMessage): string {
  const header = req.headers['content-type'];
  if (header === undefined) return '';
  // The usual header needs no splitting or case folding.
  if (header === 'application/json') return header;
  return header.split(';')[0]!.trim().toLowerCase();
}
