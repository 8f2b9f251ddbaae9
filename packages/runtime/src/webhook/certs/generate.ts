/**
 * In-memory certificates for a webhook server: a fresh ECDSA P-256 CA (or one
 * given) and a serving certificate it signed, for local runs and tests.
 */
import type { CertificateSource, ServingCertificate } from '../contracts.js';
import { certificateNames, type ServiceName } from './names.js';
import { checkPair } from './pair.js';
import { staticCertificateSource } from './static-source.js';
import { createCertificateAuthority, issueServerCertificate } from './x509.js';

/**
 * A PEM CA certificate and its private key, to sign serving certificates with.
 *
 * @example
 * ```ts
 * import { type CertificateAuthority, generateServingCertificate } from '@operant/runtime';
 *
 * const first = await generateServingCertificate();
 * const ca: CertificateAuthority = { cert: first.caPem, key: first.caKey };
 * ```
 */
export interface CertificateAuthority {
  readonly cert: string;
  readonly key: string;
}

/**
 * Options of {@link generateServingCertificate}.
 *
 * @example
 * ```ts
 * import type { ServingCertificateOptions } from '@operant/runtime';
 *
 * const options: ServingCertificateOptions = { service: { name: 'webhook', namespace: 'system' }, validityDays: 30 };
 * ```
 */
export interface ServingCertificateOptions {
  /** DNS names (SANs); default `['localhost']`. The Service's names are added to these. */
  dnsNames?: readonly string[];
  /** IP addresses (SANs); default `['127.0.0.1', '::1']`. */
  ipAddresses?: readonly string[];
  /** Adds `<svc>`, `<svc>.<ns>`, `<svc>.<ns>.svc` and `<svc>.<ns>.svc.cluster.local`. */
  service?: ServiceName;
  /** How long the serving certificate is valid; default 365 days (never past the CA). */
  validityDays?: number;
  /** Sign with this CA instead of a new one (so the caBundle stays the same). */
  ca?: CertificateAuthority;
  /** How long a new CA is valid; default 3650 days. */
  caValidityDays?: number;
  /** The new CA's common name; default `operant-webhook-ca`. */
  caCommonName?: string;
}

/**
 * What {@link generateServingCertificate} makes: the pair to serve, the CA
 * that signed it (its PEM is the webhook configurations' caBundle), and a
 * static source serving the pair.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:https';
 * import { generateServingCertificate } from '@operant/runtime';
 *
 * const { caPem, cert, key, source } = await generateServingCertificate();
 * createServer({ cert, key }, (req, res) => res.end('ok'));
 * ```
 */
export interface GeneratedCertificates extends ServingCertificate {
  /** The CA certificate (PEM): what clients trust, and what goes into caBundle. */
  readonly caPem: string;
  /** The CA's private key (PEM), to issue further certificates with the same CA. */
  readonly caKey: string;
  /** When the serving certificate expires. */
  readonly notAfter: Date;
  /** Serves `{ cert, key }` unchanged. */
  readonly source: CertificateSource;
}

/**
 * Generates an ECDSA P-256 CA (unless `ca` is given) and a serving certificate
 * signed by it for `localhost`, `127.0.0.1`, `::1` (unless other names are
 * given) and the Service's DNS names.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:https';
 * import { generateServingCertificate, injectCABundle } from '@operant/runtime';
 *
 * const certs = await generateServingCertificate({ service: { name: 'webhook', namespace: 'system' } });
 * const server = createServer({ cert: certs.cert, key: certs.key });
 * await injectCABundle(client, certs.caPem, { mutating: ['sidecarset-mutating'] });
 * ```
 */
export async function generateServingCertificate(options: ServingCertificateOptions = {}): Promise<GeneratedCertificates> {
  const validityDays = options.validityDays ?? 365;
  if (!(validityDays > 0)) throw new RangeError(`validityDays must be positive, got ${validityDays}`);
  const ca = options.ca ?? (await createCertificateAuthority(options.caCommonName ?? 'operant-webhook-ca', options.caValidityDays ?? 3650));
  const { dnsNames, ipAddresses } = certificateNames(options);
  const leaf = await issueServerCertificate(ca, dnsNames, ipAddresses, validityDays);
  const { notAfter } = checkPair(leaf.cert, leaf.key, { cert: 'the generated certificate', key: 'the generated key' });
  return {
    caPem: ca.cert,
    caKey: ca.key,
    cert: leaf.cert,
    key: leaf.key,
    notAfter,
    source: staticCertificateSource(leaf),
  };
}
