/**
 * A per-user cache of the CA and serving certificate of in-memory servers.
 *
 * Making a CA and a certificate means loading the X.509 library (over 100 ms)
 * and signing twice; an in-memory server that finds a usable pair here starts
 * without either, checking the pair with node:crypto alone. The directory holds
 * a CA key, so it is kept as private as a data dir: 0700, its file 0600, owned
 * by the user. A file that others could read or that another user owns is never
 * trusted: it is replaced, with a warning.
 */
import { X509Certificate } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, close, fstat, lstat, mkdir, open, readText } from './files.js';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { generateCertificateAuthority, issueServingCertificate, type CertificateAndKey } from './certificates.js';
import { writeFileAtomic } from './kubeconfig.js';
import { generateToken, keyMatches, servingStillUsable, stillValid, type ServingHosts, type ServingMaterial } from './material.js';

/** CA, serving certificate and keys in one file, so that concurrent starts replace it whole. */
const CACHE_FILE = 'serving.json';

interface CachedPair {
  ca: CertificateAndKey;
  serving: CertificateAndKey;
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
  const writable = await privateDirectory(dir, warn);
  const cached = writable ? await readCache(join(dir, CACHE_FILE), warn) : undefined;
  if (cached && servingStillUsable(cached.serving, cached.ca, hosts, { exact: true })) {
    return { ...cached, adminToken };
  }
  // The CA is kept when only the serving certificate must change (another --host, near expiry).
  const ca = cached && caUsable(cached.ca) ? cached.ca : await generateCertificateAuthority();
  const serving = await issueServingCertificate(ca, hosts);
  if (writable) {
    await writeFileAtomic(join(dir, CACHE_FILE), `${JSON.stringify({ ca, serving })}\n`, 0o600).catch((err: Error) =>
      warn(`cannot write the certificate cache ${join(dir, CACHE_FILE)}: ${err.message}`),
    );
  }
  return { ca, serving, adminToken };
}

/** Creates `dir` (0700) or makes it private; false when it cannot be used at all. */
async function privateDirectory(dir: string, warn: (message: string) => void): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const st = await lstat(dir);
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
      await chmod(dir, 0o700);
    }
    return true;
  } catch (err) {
    warn(`cannot use the certificate cache ${dir}: ${(err as Error).message}; certificates are made for this start only`);
    return false;
  }
}

/** The cached pair, or undefined when there is none or it must not be trusted (then `warn` says why). */
async function readCache(file: string, warn: (message: string) => void): Promise<CachedPair | undefined> {
  let text: string;
  try {
    // O_NOFOLLOW: a symbolic link in place of the file is not followed; O_NONBLOCK: nor does a FIFO block the start.
    const fd = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (fd === undefined) return undefined;
    try {
      const st = await fstat(fd);
      if (!st.isFile()) throw new Error('not a regular file');
      if (process.getuid && st.uid !== process.getuid()) {
        warn(`certificate cache ${file} is owned by uid ${st.uid}, not by this user; replaced with a new CA and certificate`);
        return undefined;
      }
      if (st.mode & 0o077) {
        warn(`certificate cache ${file} had permission ${octal(st.mode)}, so others may know its CA key; replaced with a new CA and certificate`);
        return undefined;
      }
      text = await readText(fd);
    } finally {
      await close(fd);
    }
  } catch (err) {
    warn(`cannot read the certificate cache ${file}: ${(err as Error).message}; replaced`);
    return undefined;
  }
  const pair = parseCache(text);
  if (!pair) warn(`certificate cache ${file} is not a CA and certificate this server wrote; replaced`);
  return pair;
}

function parseCache(text: string): CachedPair | undefined {
  try {
    const value = JSON.parse(text) as Partial<CachedPair>;
    const pem = (pair: Partial<CertificateAndKey> | undefined): pair is CertificateAndKey => typeof pair?.certPem === 'string' && typeof pair.keyPem === 'string';
    if (!pem(value.ca) || !pem(value.serving)) return undefined;
    const pair = { ca: { certPem: value.ca.certPem, keyPem: value.ca.keyPem }, serving: { certPem: value.serving.certPem, keyPem: value.serving.keyPem } };
    // The serving pair is checked by servingStillUsable; the CA's key must be the CA's, or a reissue would sign with a stranger's key.
    return keyMatches(pair.ca) ? pair : undefined;
  } catch {
    return undefined;
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
