/**
 * A per-user cache of the CA and serving certificate of in-memory servers.
 *
 * Making a CA and a certificate means loading the X.509 library (over 100 ms)
 * and signing twice; an in-memory server that finds a usable pair here starts
 * without either. The directory holds a CA key, so it is kept as private as a
 * data dir: 0700, its file 0600, owned by the user. A file that others could
 * read or that another user owns is never trusted: it is replaced, with a
 * warning.
 *
 * A pair is checked with node:crypto (the CA's key is the CA's, the CA issued
 * the certificate, which matches its key and covers exactly the names asked
 * for) when it is made or first read; what was checked (the names, the expiry
 * dates) is written beside it with a SHA-256 digest of all of it. A start that
 * finds the digest right reads those facts instead of parsing the certificates
 * and keys again (some milliseconds of each start); anything else (no digest,
 * another digest: a file changed since) is checked again in full.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { makeDirectories } from './make-directories.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { generateCertificateAuthority, issueServingCertificate, type CertificateAndKey } from './certificates.js';
import { writeFileAtomic } from './kubeconfig.js';
import { generateToken, keyMatches, renewBeforeMs, servingStillUsable, stillValid, type ServingHosts, type ServingMaterial } from './material.js';

/** CA, serving certificate and keys in one file, so that concurrent starts replace it whole. */
const CACHE_FILE = 'serving.json';

interface CachedPair {
  ca: CertificateAndKey;
  serving: CertificateAndKey;
}

/** A cached pair, with what was checked of it when the record's digest is right. */
type Checked = CachedPair & { verified?: VerifiedFacts };

/** What was checked of a pair when it was written: the names it covers, exactly, and when each certificate expires. */
export interface VerifiedFacts {
  dnsNames: string[];
  ipAddresses: string[];
  /** The serving certificate's and the CA's notAfter, epoch ms. */
  notAfter: number;
  caNotAfter: number;
  /** SHA-256 (hex) of the pair and the facts above: see {@link verifiedDigest}. */
  digest: string;
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/**
 * The per-user certificate cache: `$XDG_CACHE_HOME/operant/pki`, else
 * `~/.cache/operant/pki`.
 */
export function defaultServingCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'operant', 'pki');
}

/**
 * Serving material for an in-memory server: the CA and serving certificate
 * from `dir` when they are usable (issued by the CA, covering exactly `hosts`,
 * not near expiry), else made and stored there for the next start. The admin
 * token is new at each start, as for any in-memory server. A cache that cannot
 * be used or written never fails the start: the material is then made in
 * memory, and `warn` says why.
 */
export async function cachedServingMaterial(dir: string, hosts: ServingHosts, warn: (message: string) => void): Promise<ServingMaterial> {
  const adminToken = generateToken();
  // Synchronous: a few small local files, read before anything is served (no thread pool needed for them).
  const writable = privateDirectory(dir, warn);
  const cached = writable ? readCache(join(dir, CACHE_FILE), warn) : undefined;
  if (cached?.verified) {
    if (verifiedUsable(cached.verified, hosts)) return { ca: cached.ca, serving: cached.serving, adminToken };
  } else if (cached && servingStillUsable(cached.serving, cached.ca, hosts, { exact: true })) {
    // Checked in full (a file without the digest, or changed since): the next start need not.
    if (writable) await writeCache(dir, cached.ca, cached.serving, hosts, warn);
    return { ca: cached.ca, serving: cached.serving, adminToken };
  }
  // The CA (its key checked, or vouched for by the digest) is kept when only the serving
  // certificate must change (another --host, near expiry).
  const ca = cached && caUsable(cached.ca) ? cached.ca : await generateCertificateAuthority();
  const serving = await issueServingCertificate(ca, hosts);
  if (writable) await writeCache(dir, ca, serving, hosts, warn);
  return { ca, serving, adminToken };
}

/** Writes the pair, checked for `hosts`, with the facts of the check and their digest. */
async function writeCache(dir: string, ca: CertificateAndKey, serving: CertificateAndKey, hosts: ServingHosts, warn: (message: string) => void): Promise<void> {
  const facts = {
    dnsNames: [...hosts.dnsNames],
    ipAddresses: [...hosts.ipAddresses],
    notAfter: new Date(new X509Certificate(serving.certPem).validTo).getTime(),
    caNotAfter: new Date(new X509Certificate(ca.certPem).validTo).getTime(),
  };
  const verified: VerifiedFacts = { ...facts, digest: verifiedDigest({ ca, serving }, facts) };
  await writeFileAtomic(join(dir, CACHE_FILE), `${JSON.stringify({ ca, serving, verified })}\n`, 0o600).catch((err: Error) =>
    warn(`cannot write the certificate cache ${join(dir, CACHE_FILE)}: ${err.message}`),
  );
}

/**
 * The digest of a pair and the facts checked of it: SHA-256 over their JSON, in a fixed order.
 * (It tells a file this server wrote from one changed since; it is no secret.)
 */
export function verifiedDigest(pair: CachedPair, facts: Omit<VerifiedFacts, 'digest'>): string {
  const text = JSON.stringify([pair.ca.certPem, pair.ca.keyPem, pair.serving.certPem, pair.serving.keyPem, facts.dnsNames, facts.ipAddresses, facts.notAfter, facts.caNotAfter]);
  return createHash('sha256').update(text).digest('hex');
}

/** Whether the facts checked of a pair (their digest right) say it serves `hosts`, exactly, and neither certificate is near expiry. */
function verifiedUsable(verified: VerifiedFacts, hosts: ServingHosts): boolean {
  const now = Date.now();
  return (
    sameNames(verified.dnsNames, hosts.dnsNames) &&
    sameNames(verified.ipAddresses, hosts.ipAddresses) &&
    verified.notAfter - now > renewBeforeMs &&
    verified.caNotAfter - now > renewBeforeMs
  );
}

const sameNames = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

/** Creates `dir` (0700) or makes it private; false when it cannot be used at all. */
function privateDirectory(dir: string, warn: (message: string) => void): boolean {
  try {
    makeDirectories(dir, 0o700);
    const st = lstatSync(dir);
    if (!st.isDirectory()) {
      warn(`certificate cache ${dir} is not a directory; certificates are made for this start only`);
      return false;
    }
    if (process.getuid && st.uid !== process.getuid()) {
      warn(`certificate cache ${dir} is owned by uid ${st.uid}, not by this user; certificates are made for this start only`);
      return false;
    }
    if (st.mode & 0o077) {
      warn(`certificate cache ${dir} had permission ${octal(st.mode)}; set to 0700 so that other users cannot read its CA key`);
      chmodSync(dir, 0o700);
    }
    return true;
  } catch (err) {
    warn(`cannot use the certificate cache ${dir}: ${(err as Error).message}; certificates are made for this start only`);
    return false;
  }
}

/**
 * The cached pair, with the facts checked of it when their digest is right; undefined when there
 * is none or it must not be trusted (then `warn` says why).
 */
function readCache(file: string, warn: (message: string) => void): Checked | undefined {
  let text: string;
  try {
    let fd: number;
    try {
      // O_NOFOLLOW: a symbolic link in place of the file is not followed; O_NONBLOCK: nor does a FIFO block the start.
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new Error('not a regular file');
      if (process.getuid && st.uid !== process.getuid()) {
        warn(`certificate cache ${file} is owned by uid ${st.uid}, not by this user; replaced with a new CA and certificate`);
        return undefined;
      }
      if (st.mode & 0o077) {
        warn(`certificate cache ${file} had permission ${octal(st.mode)}, so others may know its CA key; replaced with a new CA and certificate`);
        return undefined;
      }
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    warn(`cannot read the certificate cache ${file}: ${(err as Error).message}; replaced`);
    return undefined;
  }
  const pair = parseCache(text);
  if (!pair) warn(`certificate cache ${file} is not a CA and certificate this server wrote; replaced`);
  return pair;
}

function parseCache(text: string): Checked | undefined {
  let value: Partial<CachedPair> & { verified?: Partial<VerifiedFacts> };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return undefined;
  }
  const pem = (pair: Partial<CertificateAndKey> | undefined): pair is CertificateAndKey => typeof pair?.certPem === 'string' && typeof pair.keyPem === 'string';
  if (!pem(value.ca) || !pem(value.serving)) return undefined;
  const pair = { ca: { certPem: value.ca.certPem, keyPem: value.ca.keyPem }, serving: { certPem: value.serving.certPem, keyPem: value.serving.keyPem } };
  const v = value.verified;
  const names = (list: unknown): list is string[] => Array.isArray(list) && list.every((n) => typeof n === 'string');
  if (v && names(v.dnsNames) && names(v.ipAddresses) && typeof v.notAfter === 'number' && typeof v.caNotAfter === 'number' && typeof v.digest === 'string') {
    const facts = { dnsNames: v.dnsNames, ipAddresses: v.ipAddresses, notAfter: v.notAfter, caNotAfter: v.caNotAfter };
    if (verifiedDigest(pair, facts) === v.digest) return { ...pair, verified: { ...facts, digest: v.digest } };
  }
  // Not checked yet (or changed since): the caller checks it in full. A pair whose CA key is not the
  // CA's is no pair this server wrote.
  return caKeyMatches(pair.ca) ? pair : undefined;
}

/** Whether the CA's key is the CA's (a reissue must never sign with a stranger's key). */
function caKeyMatches(ca: CertificateAndKey): boolean {
  try {
    return keyMatches(ca);
  } catch {
    return false;
  }
}

/** Whether a cached CA may sign a new serving certificate: a CA certificate, not near expiry. */
function caUsable(ca: CertificateAndKey): boolean {
  try {
    const cert = new X509Certificate(ca.certPem);
    return cert.ca && stillValid(cert);
  } catch {
    return false;
  }
}
