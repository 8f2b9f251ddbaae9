/** The media type of a request, without parameters. Internal. */
import type { IncomingMessage } from 'node:http';

/** `application/json` for `application/json; charset=utf-8`; '' when absent. */
export function mediaType(req: IncomingMessage): string {
  const header = req.headers['content-type'] ?? '';
  return header.split(';')[0]!.trim().toLowerCase();
}
