/**
 * What the proxy reads of a request's headers, read from its raw headers in
 * one pass: building node's `req.headers` object costs more than everything
 * else the proxy does with them. A request that repeats a header is read from
 * `req.headers` after all, so that node's rules for repeats (joined, or the
 * first kept) still decide what goes upstream.
 */
import type { IncomingMessage } from 'node:http';
import { hopByHop } from './respond.js';

export interface RequestHead {
  /** The Authorization header, if any. */
  authorization: string | undefined;
  /** Whether it announces a body (Content-Length or Transfer-Encoding). */
  hasBody: boolean;
  /** Whether it asks for an upgrade (exec, attach, port-forward). */
  upgrade: boolean;
  /**
   * The headers that go upstream, as name/value pairs with lower-case names:
   * less the connection's own, Authorization (each request goes on with its
   * own credentials) and Expect (the proxy has read the body whole already:
   * a 100-continue was answered by its server).
   */
  forwarded: string[];
}

export function requestHead(req: IncomingMessage): RequestHead {
  const raw = req.rawHeaders;
  const head: RequestHead = { authorization: undefined, hasBody: false, upgrade: false, forwarded: [] };
  // A handful of names: an array finds a repeat sooner than a set is made.
  const seen: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (seen.includes(name)) return fromHeaders(req);
    seen.push(name);
    const value = raw[i + 1]!;
    if (name === 'authorization') head.authorization = value;
    else if (name === 'content-length' || name === 'transfer-encoding') head.hasBody = true;
    else if (name === 'upgrade') head.upgrade = value !== '';
    if (!hopByHop.has(name) && name !== 'authorization' && name !== 'expect') head.forwarded.push(name, value);
  }
  return head;
}

/** The same from node's headers object, for a request that repeats a header. */
function fromHeaders(req: IncomingMessage): RequestHead {
  const headers = req.headers;
  const forwarded: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || hopByHop.has(name) || name === 'authorization' || name === 'expect') continue;
    if (Array.isArray(value)) for (const v of value) forwarded.push(name, v);
    else forwarded.push(name, value);
  }
  return {
    authorization: headers.authorization,
    hasBody: headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined,
    upgrade: Boolean(headers.upgrade),
    forwarded,
  };
}
