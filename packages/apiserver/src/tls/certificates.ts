import { createPrivateKey, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';

let library: Promise<typeof X509> | undefined;

/**
 * @peculiar/x509 takes over 100 ms to load (tsyringe, ASN.1 schemas), so it is loaded
 * when a certificate is first made or read, not at start-up: a server restarted on
 * its data dir reuses its certificates and never loads it. tsyringe needs the Reflect metadata
 * polyfill loaded first.
 */
export function x509Library(): Promise<typeof X509> {
  library ??= import('reflect-metadata').then(() => import('@peculiar/x509'));
  return library;
}

/** A certificate and its private key, both PEM (the key as PKCS#8 `PRIVATE KEY`). */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

/** Names a serving certificate is valid for; at least one is required (Go's TLS ignores the CN). */
export interface ServingCertificateOptions {
  dnsNames: string[];
  ipAddresses: string[];
  /** Subject CN; defaults to the first DNS name, else the first IP address. */
  commonName?: string;
}

/** Identity carried by a client certificate, read by kube-apiserver as CN = user and O = groups. */
export interface ClientCertificateOptions {
  commonName: string;
  organizations: string[];
}

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

// @peculiar/x509 signs with its default provider, Node's global webcrypto (Node >= 19). Node loads
// webcrypto when it is first read: here only when a certificate is made, not at every start.
const subtle = (): webcrypto.SubtleCrypto => webcrypto.subtle;
const keyAlgorithm: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const signingAlgorithm: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

const DAY_MS = 24 * 60 * 60 * 1000;
/** The CA outlives many serving certificates, so a persisted CA keeps old kubeconfigs valid. */
const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 365;
/** Backdating tolerates small clock differences between this process and its clients. */
const BACKDATE_MS = 5 * 60 * 1000;

/**
 * Creates a self-signed ECDSA P-256 certificate authority (basicConstraints CA:true, keyCertSign).
 * It is valid for ten years.
 */
export async function generateCertificateAuthority(commonName = 'operant-ca'): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  const keys = await generateKeyPair();
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [commonName] }],
    keys,
    signingAlgorithm,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CA_VALIDITY_DAYS * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/**
 * Issues a one-year TLS server certificate (serverAuth EKU) signed by `ca`, with DNS and IP
 * subject alternative names.
 */
export async function issueServingCertificate(
  ca: CertificateAndKey,
  options: ServingCertificateOptions,
): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  const { dnsNames, ipAddresses } = options;
  if (dnsNames.length === 0 && ipAddresses.length === 0) {
    throw new Error('a serving certificate needs at least one DNS name or IP address');
  }
  for (const ip of ipAddresses) {
    if (isIP(ip) === 0) throw new Error(`not an IP address: ${JSON.stringify(ip)}`);
  }
  const commonName = options.commonName ?? dnsNames[0] ?? ipAddresses[0];
  const names: X509.JsonGeneralName[] = [
    ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
  ];
  return issueLeaf(ca, [{ CN: [commonName] }], [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(names),
  ]);
}

/**
 * Issues a one-year TLS client certificate (clientAuth EKU) signed by `ca`. Kubernetes
 * authenticates it as user `commonName` in groups `organizations`.
 */
export async function issueClientCertificate(
  ca: CertificateAndKey,
  options: ClientCertificateOptions,
): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  // One RDN per attribute, as Go's pkix.Name.ToRDNSequence writes them.
  const subject: X509.JsonName = [
    ...options.organizations.map((o) => ({ O: [o] })),
    { CN: [options.commonName] },
  ];
  return issueLeaf(ca, subject, [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])]);
}

async function issueLeaf(
  ca: CertificateAndKey,
  subject: X509.JsonName,
  extensions: X509.Extension[],
): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  const caCert = new x509.X509Certificate(ca.certPem);
  const [caKey, keys] = await Promise.all([importPrivateKey(ca.keyPem), generateKeyPair()]);
  const now = Date.now();
  const notAfter = Math.min(now + LEAF_VALIDITY_DAYS * DAY_MS, caCert.notAfter.getTime());
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    // Reuse the CA's encoded subject so issuer matching (a byte comparison in Go) cannot drift.
    issuer: caCert.subjectName,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(notAfter),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...extensions,
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

async function generateKeyPair(): Promise<CryptoKeyPair> {
  return subtle().generateKey(keyAlgorithm, true, ['sign', 'verify']);
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle().exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Imports an ECDSA P-256 key from PEM; accepts PKCS#8 and SEC1 (`EC PRIVATE KEY`, as openssl writes). */
async function importPrivateKey(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return subtle().importKey('pkcs8', der, keyAlgorithm, false, ['sign']);
}
