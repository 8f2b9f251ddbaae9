/**
 * Certificates for running an operator's webhooks on a developer machine: made
 * once into a directory and reused while still good, so the caBundle written
 * into the webhook configurations stays the same from one run to the next.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateServingCertificate, type CertificateAuthority, type GeneratedCertificates, type ServingCertificateOptions } from './generate.js';
import { certificateNames } from './names.js';
import { checkPair } from './pair.js';
import { staticCertificateSource } from './static-source.js';
import { createCertificateAuthority, DAY_MS } from './x509.js';

/**
 * Options of {@link ensureLocalCertificates}.
 *
 * @example
 * ```ts
 * import type { LocalCertificatesOptions } from '@operant/runtime';
 *
 * const options: LocalCertificatesOptions = { renewBeforeDays: 30, dnsNames: ['localhost', 'host.docker.internal'] };
 * ```
 */
export interface LocalCertificatesOptions extends Omit<ServingCertificateOptions, 'ca'> {
  /** Certificates expiring within this many days are made anew; default 30. */
  renewBeforeDays?: number;
}

/**
 * What {@link ensureLocalCertificates} leaves in the directory, and whether it
 * made anything.
 *
 * @example
 * ```ts
 * import { ensureLocalCertificates, type LocalCertificates } from '@operant/runtime';
 *
 * const local: LocalCertificates = await ensureLocalCertificates('.operant/webhook-certs');
 * if (local.created.length > 0) console.log('new certificates in', local.dir);
 * ```
 */
export interface LocalCertificates extends GeneratedCertificates {
  readonly dir: string;
  /** The files written this time (none when everything was reused). */
  readonly created: readonly string[];
}

/**
 * The files {@link ensureLocalCertificates} keeps: the pair as a `kubernetes.io/tls` Secret names it, plus the CA.
 *
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { join } from 'node:path';
 * import { localCertificateFiles } from '@operant/runtime';
 *
 * const caPem = readFileSync(join('.operant/webhook-certs', localCertificateFiles.caCert), 'utf8');
 * ```
 */
export const localCertificateFiles = Object.freeze({ cert: 'tls.crt', key: 'tls.key', caCert: 'ca.crt', caKey: 'ca.key' });

/**
 * Makes sure `dir` holds a CA (`ca.crt`, `ca.key`) and a serving pair signed
 * by it (`tls.crt`, `tls.key`) for the requested names, creating or renewing
 * only what is missing, broken, expiring within `renewBeforeDays`, or (for the
 * pair) missing a name. A renewed pair keeps the CA, so the caBundle is stable.
 *
 * @example
 * ```ts
 * import { directoryCertificateSource, ensureLocalCertificates, injectCABundle } from '@operant/runtime';
 *
 * const certs = await ensureLocalCertificates('.operant/webhook-certs');
 * await injectCABundle(client, certs.caPem, { validating: ['sidecarset-validating'] });
 * const source = await directoryCertificateSource(certs.dir);
 * ```
 */
export async function ensureLocalCertificates(dir: string, options: LocalCertificatesOptions = {}): Promise<LocalCertificates> {
  const renewBefore = (options.renewBeforeDays ?? 30) * DAY_MS;
  const files = localCertificateFiles;
  const path = (name: string): string => join(dir, name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created: string[] = [];

  let ca = await reusableCA(path(files.caCert), path(files.caKey), renewBefore);
  if (!ca) {
    ca = await createCertificateAuthority(options.caCommonName ?? 'operant-webhook-ca', options.caValidityDays ?? 3650);
    await writeAtomically(path(files.caKey), ca.key, 0o600);
    await writeAtomically(path(files.caCert), ca.cert, 0o644);
    created.push(files.caCert, files.caKey);
  }

  const names = certificateNames(options);
  let pair = await reusablePair(path(files.cert), path(files.key), ca, names, renewBefore);
  if (!pair) {
    const made = await generateServingCertificate({ ...options, ca });
    pair = { cert: made.cert, key: made.key, notAfter: made.notAfter };
    // Key first: a directory source watching this directory ignores the pair until the certificate follows.
    await writeAtomically(path(files.key), pair.key, 0o600);
    await writeAtomically(path(files.cert), pair.cert, 0o644);
    created.push(files.key, files.cert);
  }

  return {
    dir,
    created,
    caPem: ca.cert,
    caKey: ca.key,
    cert: pair.cert,
    key: pair.key,
    notAfter: pair.notAfter,
    source: staticCertificateSource(pair),
  };
}

/** The CA in the directory, when it parses, matches its key, is a CA, and is not about to expire. */
async function reusableCA(certPath: string, keyPath: string, renewBefore: number): Promise<CertificateAuthority | undefined> {
  const [cert, key] = await Promise.all([readIfPresent(certPath), readIfPresent(keyPath)]);
  if (cert === undefined || key === undefined) return undefined;
  try {
    const { leaf, notAfter } = checkPair(cert, key, { cert: certPath, key: keyPath });
    if (!leaf.ca || notAfter.getTime() - Date.now() < renewBefore) return undefined;
    return { cert, key };
  } catch {
    return undefined;
  }
}

/** The serving pair in the directory, when it is signed by `ca`, covers every name and is not about to expire. */
async function reusablePair(
  certPath: string,
  keyPath: string,
  ca: CertificateAuthority,
  names: { dnsNames: string[]; ipAddresses: string[] },
  renewBefore: number,
): Promise<{ cert: string; key: string; notAfter: Date } | undefined> {
  const [cert, key] = await Promise.all([readIfPresent(certPath), readIfPresent(keyPath)]);
  if (cert === undefined || key === undefined) return undefined;
  try {
    const { leaf, notAfter } = checkPair(cert, key, { cert: certPath, key: keyPath });
    const caCert = new X509Certificate(ca.cert);
    if (!leaf.checkIssued(caCert) || !leaf.verify(caCert.publicKey)) return undefined;
    if (notAfter.getTime() - Date.now() < renewBefore) return undefined;
    if (names.dnsNames.some((n) => leaf.checkHost(n, { wildcards: false }) !== n)) return undefined;
    if (names.ipAddresses.some((ip) => leaf.checkIP(ip) === undefined)) return undefined;
    return { cert, key, notAfter };
  } catch {
    return undefined;
  }
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Write then rename, so a reader never sees half a file. */
async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, path);
}
