/**
 * The token a fault proxy makes up for its kubeconfig: 32 random bytes, so
 * that no other process on the machine can guess it, compared in constant
 * time, so that none can find it out byte by byte either.
 *
 * Over HTTPS a client sends it as a bearer token. Over plain HTTP it is also
 * the first segment of the server URL (`http://127.0.0.1:<port>/chaos/<token>`):
 * client-go (kubectl, Go operators) reads no credentials from a kubeconfig
 * whose server is not https (clientcmd's "only try to read the auth
 * information if we are secure"), so the path is the one place every client
 * carries it.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

export class ProxyToken {
  /** The token, as the kubeconfig carries it (base64url). */
  readonly value = randomBytes(32).toString('base64url');
  /** The path prefix that carries it over plain HTTP. */
  readonly pathPrefix = `/chaos/${this.value}`;
  private readonly header = Buffer.from(`Bearer ${this.value}`);
  private readonly prefix = Buffer.from(this.pathPrefix);
  /** Where a given text is encoded to be compared: room for the longest expected text in UTF-8 at its worst (3 bytes a UTF-16 unit). */
  private readonly scratch = Buffer.allocUnsafe(3 * Math.max(this.header.length, this.prefix.length));

  /** True when an Authorization header bears this token. */
  matches(authorization: string): boolean {
    // Every header bearing the token has this length: others differ in it already (which says nothing of the token).
    return authorization.length === this.header.length && this.sameBytes(authorization, this.header);
  }

  /** The request target without the token's path prefix; undefined when it does not start with it. */
  stripPath(target: string): string | undefined {
    const n = this.pathPrefix.length;
    if (target.length < n || !this.sameBytes(target.slice(0, n), this.prefix)) return undefined;
    const next = target[n];
    if (next === undefined) return '/';
    if (next === '?') return `/${target.slice(n)}`;
    return next === '/' ? target.slice(n) : undefined;
  }

  /** `text` (as long as `expected` in UTF-16 units) has `expected`'s bytes, compared in constant time without a buffer per call. */
  private sameBytes(text: string, expected: Buffer): boolean {
    const written = this.scratch.write(text, 'utf8');
    return written === expected.length && timingSafeEqual(this.scratch.subarray(0, written), expected);
  }
}


/** Addresses a plain-HTTP proxy may listen on: only this machine can reach them. */
const loopback = new Set(['127.0.0.1', '::1']);

/** Throws unless `host` is a loopback address (a plain-HTTP proxy's token crosses the wire in the clear). */
export function assertLoopback(host: string): void {
  if (!loopback.has(host)) {
    throw new Error(
      `the chaos proxy serves plain HTTP only on loopback (127.0.0.1 or ::1), not on ${JSON.stringify(host)}: its token would cross the network in the clear; listen on 127.0.0.1, or serve HTTPS (the default)`,
    );
  }
}
