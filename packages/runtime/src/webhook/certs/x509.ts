/**
 * Certificate minting with @peculiar/x509: an ECDSA P-256 certificate
 * authority and serving certificates signed by it. The library is loaded on
 * first use because loading it costs ~100 ms (tsyringe, ASN.1 schemas), which
 * a process that reads its certificates from files never needs to pay.
 */
import { createPrivateKey, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';

let library: Promise<typeof X509> | undefined;

/** tsyringe (inside @peculiar/x509) needs the Reflect metadata polyfill loaded before it. */
function x509(): Promise<typeof X509> {
  library ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return library;
}

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface PemPair {
  readonly cert: string;
  readonly key: string;
}

const { subtle } = webcrypto;
const keyAlgorithm: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const signingAlgorithm: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Backdated so that clients whose clocks run a little behind still accept a fresh certificate. */
const BACKDATE_MS = 5 * 60 * 1000;

/** Creates a self-signed CA (basicConstraints CA:true, keyCertSign) valid for `validityDays`. */
export async function createCertificateAuthority(commonName: string, validityDays: number): Promise<PemPair> {
  const lib = await x509();
  const keys = await subtle.generateKey(keyAlgorithm, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [commonName] }],
    keys,
    signingAlgorithm,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + validityDays * DAY_MS),
    extensions: [
      new lib.BasicConstraintsExtension(true, 0, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign | lib.KeyUsageFlags.digitalSignature, true),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await exportKey(keys.privateKey) };
}

/**
 * Issues a TLS server certificate (serverAuth) for the given names, signed by
 * `ca`. It never outlives the CA, since clients would reject it anyway.
 */
export async function issueServerCertificate(ca: PemPair, dnsNames: readonly string[], ipAddresses: readonly string[], validityDays: number): Promise<PemPair> {
  if (dnsNames.length === 0 && ipAddresses.length === 0) throw new Error('a serving certificate needs at least one DNS name or IP address');
  for (const ip of ipAddresses) {
    if (isIP(ip) === 0) throw new Error(`not an IP address: ${JSON.stringify(ip)}`);
  }
  const lib = await x509();
  const caCert = new lib.X509Certificate(ca.cert);
  const [caKey, keys] = await Promise.all([importKey(ca.key), subtle.generateKey(keyAlgorithm, true, ['sign', 'verify'])]);
  const now = Date.now();
  const names: X509.JsonGeneralName[] = [
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ];
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: [{ CN: [dnsNames[0] ?? ipAddresses[0]] }],
    // The CA's encoded subject as is: Go matches issuers byte for byte.
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(now + validityDays * DAY_MS, caCert.notAfter.getTime())),
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth]),
      new lib.SubjectAlternativeNameExtension(names),
      await lib.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { cert: cert.toString('pem'), key: await exportKey(keys.privateKey) };
}

/** A positive 128-bit serial in hex: unique per certificate, so rotated leaves never collide. */
function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return Buffer.from(bytes).toString('hex');
}

async function exportKey(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Accepts PKCS#8 and SEC1 (`EC PRIVATE KEY`, as openssl writes it). */
async function importKey(pem: string): Promise<webcrypto.CryptoKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return subtle.importKey('pkcs8', der, keyAlgorithm, false, ['sign']);
}
