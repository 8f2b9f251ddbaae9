import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { mkdir, readText } from './files.js';
import { isIP } from 'node:net';
import { join } from 'node:path';
import {
  type CertificateAndKey,
  generateCertificateAuthority,
  issueServingCertificate,
} from './certificates.js';
import { writeFileAtomic } from './kubeconfig.js';

/** Names the serving certificate must cover. */
export interface ServingHosts {
  dnsNames: string[];
  ipAddresses: string[];
}

/** Everything the server needs to serve HTTPS and to hand out an admin kubeconfig. */
export interface ServingMaterial {
  /** The CA: clients trust it, and client certificates it signed authenticate. Its key is absent when the caller provided the CA. */
  ca: { certPem: string; keyPem?: string };
  serving: CertificateAndKey;
  /** Bearer token of the built-in admin user. */
  adminToken: string;
}

/** A serving certificate this close to expiry is reissued at startup. */
export const renewBeforeMs = 30 * 24 * 60 * 60 * 1000;

const FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  adminToken: 'admin-token',
} as const;

/** Generates a bearer token: 32 random bytes, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Returns the CA, serving certificate and admin token. With `dir`, they live in `dir/pki/` and are
 * reused across restarts, so kubeconfigs written earlier keep working; the serving certificate
 * alone is reissued (by the same CA) when it no longer covers `hosts` or is near expiry.
 * Without `dir`, everything is created in memory.
 *
 * @throws if `ca.crt` exists without a matching `ca.key`: replacing the CA silently would
 *   invalidate every kubeconfig handed out.
 */
export async function loadOrCreateServingMaterial(
  dir: string | undefined,
  hosts: ServingHosts,
): Promise<ServingMaterial> {
  if (dir === undefined) {
    const ca = await generateCertificateAuthority();
    return { ca, serving: await issueServingCertificate(ca, hosts), adminToken: generateToken() };
  }
  const pki = join(dir, 'pki');
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const path = (name: string): string => join(pki, name);

  let ca = await loadCertificateAuthority(path(FILES.caCert), path(FILES.caKey));
  let caIsNew = false;
  if (!ca) {
    ca = await generateCertificateAuthority();
    caIsNew = true;
    // The certificate is written last: its presence marks a complete CA. Everything in the data
    // dir is 0600 (as etcd keeps its files), or the next start would warn and fix it.
    await writeFileAtomic(path(FILES.caKey), ca.keyPem, 0o600);
    await writeFileAtomic(path(FILES.caCert), ca.certPem, 0o600);
  }

  let serving = caIsNew ? undefined : await loadPair(path(FILES.servingCert), path(FILES.servingKey));
  if (!serving || !servingStillUsable(serving, ca, hosts)) {
    serving = await issueServingCertificate(ca, hosts);
    await writeFileAtomic(path(FILES.servingKey), serving.keyPem, 0o600);
    await writeFileAtomic(path(FILES.servingCert), serving.certPem, 0o600);
  }

  return { ca, serving, adminToken: await loadOrCreateAdminToken(pki) };
}

/**
 * A CA certificate and a serving certificate with its key, made by the
 * caller, for a server that must start without minting certificates (a test
 * environment per test file shares one pair per process).
 */
export interface ProvidedServingMaterial {
  /** The CA certificate (PEM) that signed `certPem`. */
  caPem: string;
  /** The serving certificate (PEM); it must cover the address the server is reached at. */
  certPem: string;
  /** The serving certificate's private key (PEM). */
  keyPem: string;
}

/**
 * Serving material from certificates the caller made: checked (the key is the
 * certificate's, the CA issued it, it covers `reachedAt`) but never generated.
 * The admin token is new, or the one kept in `dir` when there is a data dir.
 */
export async function providedServingMaterial(provided: ProvidedServingMaterial, dir: string | undefined, reachedAt: string): Promise<ServingMaterial> {
  const problem = servingProblem(provided, reachedAt);
  if (problem) throw new Error(`servingMaterial: ${problem}`);
  const serving = { certPem: provided.certPem, keyPem: provided.keyPem };
  let adminToken = generateToken();
  if (dir !== undefined) {
    const pki = join(dir, 'pki');
    await mkdir(pki, { recursive: true, mode: 0o700 });
    adminToken = await loadOrCreateAdminToken(pki);
  }
  return { ca: { certPem: provided.caPem }, serving, adminToken };
}

/** Why the provided pair cannot serve at `reachedAt` (an IP address or a host name), or undefined. */
function servingProblem(provided: ProvidedServingMaterial, reachedAt: string): string | undefined {
  let cert: X509Certificate;
  let caCert: X509Certificate;
  try {
    cert = new X509Certificate(provided.certPem);
    caCert = new X509Certificate(provided.caPem);
    if (!keyMatches(provided)) return 'keyPem is not the key of certPem';
  } catch (err) {
    return `cannot parse the certificates or key: ${(err as Error).message}`;
  }
  if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return 'certPem was not issued by caPem';
  const covered = isIP(reachedAt) ? cert.checkIP(reachedAt) !== undefined : cert.checkHost(reachedAt, { subject: 'never', wildcards: false }) !== undefined;
  if (!covered) return `certPem does not cover ${reachedAt}, the address the server is reached at`;
  if (new Date(cert.validTo).getTime() <= Date.now()) return `certPem expired at ${cert.validTo}`;
  return undefined;
}

/** The admin token kept in `pki`, made on first use. */
async function loadOrCreateAdminToken(pki: string): Promise<string> {
  const file = join(pki, FILES.adminToken);
  let adminToken = (await readOptional(file))?.trim();
  if (!adminToken) {
    adminToken = generateToken();
    await writeFileAtomic(file, adminToken, 0o600);
  }
  return adminToken;
}

async function loadCertificateAuthority(certPath: string, keyPath: string): Promise<CertificateAndKey | undefined> {
  const certPem = await readOptional(certPath);
  if (certPem === undefined) return undefined;
  const keyPem = await readOptional(keyPath);
  if (keyPem === undefined) throw new Error(`${certPath} exists but ${keyPath} is missing`);
  if (!keyMatches({ certPem, keyPem })) throw new Error(`${keyPath} does not match ${certPath}`);
  return { certPem, keyPem };
}

async function loadPair(certPath: string, keyPath: string): Promise<CertificateAndKey | undefined> {
  const [certPem, keyPem] = await Promise.all([readOptional(certPath), readOptional(keyPath)]);
  return certPem === undefined || keyPem === undefined ? undefined : { certPem, keyPem };
}

/**
 * Whether a stored serving certificate was issued by `ca`, matches its key and covers `hosts`
 * (with `exact`, those names and no others, as a newly issued one would).
 */
export function servingStillUsable(serving: CertificateAndKey, ca: CertificateAndKey, hosts: ServingHosts, options: { exact?: boolean } = {}): boolean {
  try {
    const cert = new X509Certificate(serving.certPem);
    const caCert = new X509Certificate(ca.certPem);
    return (
      keyMatches(serving) &&
      cert.checkIssued(caCert) &&
      cert.verify(caCert.publicKey) &&
      stillValid(cert) &&
      hosts.dnsNames.every((name) => cert.checkHost(name, { subject: 'never', wildcards: false }) !== undefined) &&
      hosts.ipAddresses.every((ip) => cert.checkIP(ip) !== undefined) &&
      (!options.exact || subjectAltNameCount(cert) === hosts.dnsNames.length + hosts.ipAddresses.length)
    );
  } catch {
    // Unparseable files are replaced rather than fatal: the serving pair is derived material.
    return false;
  }
}

/** Whether `cert` stays valid for longer than the renewal margin. */
export function stillValid(cert: X509Certificate): boolean {
  return new Date(cert.validTo).getTime() - Date.now() > renewBeforeMs;
}

/** How many names the certificate's subjectAltName lists (Node joins them with ", "; no DNS name or IP holds one). */
function subjectAltNameCount(cert: X509Certificate): number {
  return cert.subjectAltName ? cert.subjectAltName.split(', ').length : 0;
}

/** Whether `pair.keyPem` is the private key of `pair.certPem`. */
export function keyMatches(pair: { certPem: string; keyPem: string }): boolean {
  return new X509Certificate(pair.certPem).checkPrivateKey(createPrivateKey(pair.keyPem));
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readText(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
