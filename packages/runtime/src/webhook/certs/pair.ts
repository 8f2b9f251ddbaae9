/**
 * Checking a PEM certificate and key before serving them: both parse, and the
 * key is the certificate's. Errors name the files (or fields) involved, so a
 * broken Secret is found without reading code.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';

/**
 * A certificate or key that cannot be served, naming the files involved.
 *
 * @example
 * ```ts
 * import { CertificateError, directoryCertificateSource } from '@operant/runtime';
 *
 * try {
 *   await directoryCertificateSource('/tmp/k8s-webhook-server/serving-certs');
 * } catch (e) {
 *   if (e instanceof CertificateError) console.error(e.files, e.message);
 * }
 * ```
 */
export class CertificateError extends Error {
  constructor(
    message: string,
    /** The files (or fields) the problem is in. */
    readonly files: readonly string[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CertificateError';
  }
}

/** What a checked pair carries besides its PEM text. */
export interface CheckedPair {
  /** The leaf (first) certificate. */
  readonly leaf: X509Certificate;
  readonly notAfter: Date;
}

/**
 * Parses `cert` and `key` and verifies that the key belongs to the leaf
 * certificate; `names` says what to call them in errors.
 */
export function checkPair(cert: string, key: string, names: { cert: string; key: string }): CheckedPair {
  const leaf = parseCertificate(cert, names.cert);
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new CertificateError(`${names.key} does not contain a valid PEM private key: ${reason(e)}`, [names.key], { cause: e });
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new CertificateError(`the private key in ${names.key} does not match the certificate in ${names.cert}`, [names.cert, names.key]);
  }
  return { leaf, notAfter: new Date(leaf.validTo) };
}

/** Parses the first certificate of a PEM bundle. */
export function parseCertificate(pem: string, name: string): X509Certificate {
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CertificateError(`${name} does not contain a PEM certificate`, [name]);
  }
  try {
    return new X509Certificate(pem);
  } catch (e) {
    throw new CertificateError(`${name} does not contain a valid PEM certificate: ${reason(e)}`, [name], { cause: e });
  }
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
