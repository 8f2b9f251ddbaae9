/**
 * What a request authenticates with, and where it comes from. A static token
 * never changes; a token file is re-read when it changes; an exec plugin is run
 * again when its credential expires or the server answers 401.
 */

/**
 * A client certificate and its private key, PEM.
 *
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { type ClientCertificate, staticCredentials } from '@operant/runtime';
 *
 * const clientCertificate: ClientCertificate = { cert: await readFile('client.crt', 'utf8'), key: await readFile('client.key', 'utf8') };
 * const provider = staticCredentials({ clientCertificate }, 'client certificate');
 * ```
 */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/**
 * The credentials for one request; at most one of token and basic, plus an optional certificate.
 *
 * @example
 * ```ts
 * import { type Credentials, staticCredentials } from '@operant/runtime';
 *
 * const credentials: Credentials = { basic: { username: 'admin', password: 's3cret' } };
 * const provider = staticCredentials(credentials, 'basic auth');
 * ```
 */
export interface Credentials {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as `Authorization: Basic ...`. */
  basic?: { username: string; password: string };
  /** Presented in the TLS handshake (e.g. from an exec plugin); overrides the config's own client certificate. */
  clientCertificate?: ClientCertificate;
}

/**
 * A source of credentials, asked before every request.
 *
 * @example
 * ```ts
 * import type { CredentialProvider } from '@operant/runtime';
 *
 * const provider: CredentialProvider = { description: 'fixed token', credentials: async () => ({ token: 'abc' }) };
 * ```
 */
export interface CredentialProvider {
  /** What it is, for messages: `token`, `tokenFile /path`, `exec plugin aws-iam-authenticator`. */
  readonly description: string;
  /** The current credentials (cached where that is cheap and right). */
  credentials(): Promise<Credentials>;
  /**
   * Called when the server answered 401 with `used`: a provider that can fetch
   * new credentials drops them. Returns true when retrying may help.
   */
  invalidate?(used: Credentials): boolean;
}

/**
 * Credentials that never change (a token, basic auth, or none).
 *
 * @example
 * ```ts
 * import { staticCredentials } from '@operant/runtime';
 *
 * const provider = staticCredentials({ token: 'abc' }, 'token');
 * ```
 */
export function staticCredentials(credentials: Credentials, description: string): CredentialProvider {
  const frozen = Object.freeze({ ...credentials });
  return { description, credentials: () => Promise.resolve(frozen) };
}
