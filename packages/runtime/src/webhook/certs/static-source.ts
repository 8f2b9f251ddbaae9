/** A certificate source that always serves the same pair (generated in memory, or given). */
import type { CertificateSource, ServingCertificate } from '../contracts.js';

/**
 * A {@link CertificateSource} for a fixed pair: it never changes, so listeners are never called.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { staticCertificateSource } from '@operant/runtime';
 *
 * const source = staticCertificateSource({ cert: readFileSync('tls.crt', 'utf8'), key: readFileSync('tls.key', 'utf8') });
 * source.current().cert;
 * ```
 */
export function staticCertificateSource(pair: ServingCertificate): CertificateSource {
  const fixed: ServingCertificate = Object.freeze({ cert: pair.cert, key: pair.key });
  return {
    current: () => fixed,
    onChange: () => () => undefined,
  };
}
