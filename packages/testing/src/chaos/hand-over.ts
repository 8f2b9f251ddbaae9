/**
 * Handing a request to an API server that runs in the proxy's own process
 * (TestEnv's proxies, given `RunningApiServer.serveInProcess`): a request no
 * fault can act on is passed to the server's handler as it came in, instead
 * of being sent on over the server's private socket, which costs a second
 * HTTP request, head and answer inside the process. The server must read the
 * request it would have read off the socket: the target less the proxy's
 * path prefix, and the Authorization header the proxy would have sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A server's handler for a request another server of the process took in;
 * false when it cannot take it now (it is stopping). `cut` is called when the
 * server stops before its answer is done, for the proxy to end the response
 * as it ends one whose connection to the server closed.
 */
export type InProcessHandler = (req: IncomingMessage, res: ServerResponse, cut: () => void) => boolean;

/**
 * Makes `req` read as it would reach the server through the proxy: `target`
 * as its URL, `authorization` as its one Authorization header (none when
 * undefined). Its other headers stay as they came.
 */
export function asSentOn(req: IncomingMessage, target: string, authorization: string | undefined): void {
  req.url = target;
  const raw = req.rawHeaders;
  for (let i = raw.length - 2; i >= 0; i -= 2) if (raw[i]!.toLowerCase() === 'authorization') raw.splice(i, 2);
  if (authorization !== undefined) raw.push('Authorization', authorization);
  // Node builds req.headers (and headersDistinct) from rawHeaders when first asked. Built already (for a
  // request that repeats a header), it is mended too; otherwise this builds it, as the server would at once.
  const headers = req.headers;
  if (authorization === undefined) delete headers.authorization;
  else headers.authorization = authorization;
}
