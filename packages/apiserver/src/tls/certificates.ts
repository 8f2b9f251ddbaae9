/**
 * Certificates for the embedded server: an ECDSA P-256 CA, serving
 * certificates and client certificates, built as DER and signed with
 * node:crypto. Hand-encoding the few fields an X.509 certificate needs keeps
 * a certificate library (and its ~150 ms of module loading) off the start-up
 * path; Node's X509Certificate checks the results in the tests.
 */
import { X509Certificate, createHash, createPrivateKey, generateKeyPair as generateKeyPairCb, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import {
  bitString,
  boolean,
  children,
  explicit,
  implicitPrimitive,
  namedBits,
  objectIdentifier,
  octetString,
  readElement,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.js';

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

const DAY_MS = 24 * 60 * 60 * 1000;
/** The CA outlives many serving certificates, so a persisted CA keeps old kubeconfigs valid. */
const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 365;
/** Backdating tolerates small clock differences between this process and its clients. */
const BACKDATE_MS = 5 * 60 * 1000;

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** KeyUsage bit numbers (RFC 5280 4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

const signatureAlgorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));

/**
 * Creates a self-signed ECDSA P-256 certificate authority (basicConstraints CA:true, keyCertSign).
 * It is valid for ten years.
 */
export async function generateCertificateAuthority(commonName = 'operant-ca'): Promise<CertificateAndKey> {
  const keys = await generateKeyPair();
  const now = Date.now();
  const subject = name([[OID.commonName, commonName]]);
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  const certDer = signCertificate(keys.privateKey, {
    issuer: subject,
    subject,
    spki,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CA_VALIDITY_DAYS * DAY_MS),
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign, KEY_USAGE.digitalSignature])),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spki))),
    ],
  });
  return { certPem: pem('CERTIFICATE', certDer), keyPem: privateKeyPem(keys.privateKey) };
}

/**
 * Issues a one-year TLS server certificate (serverAuth EKU) signed by `ca`, with DNS and IP
 * subject alternative names.
 */
export async function issueServingCertificate(
  ca: CertificateAndKey,
  options: ServingCertificateOptions,
): Promise<CertificateAndKey> {
  const { dnsNames, ipAddresses } = options;
  if (dnsNames.length === 0 && ipAddresses.length === 0) {
    throw new Error('a serving certificate needs at least one DNS name or IP address');
  }
  for (const ip of ipAddresses) {
    if (isIP(ip) === 0) throw new Error(`not an IP address: ${JSON.stringify(ip)}`);
  }
  const commonName = options.commonName ?? dnsNames[0] ?? ipAddresses[0];
  const names = [
    ...dnsNames.map((value) => implicitPrimitive(2, Buffer.from(value, 'ascii'))),
    ...ipAddresses.map((value) => implicitPrimitive(7, ipBytes(value))),
  ];
  return issueLeaf(ca, name([[OID.commonName, commonName]]), [
    extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.serverAuth))),
    extension(OID.subjectAltName, false, sequence(...names)),
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
  // One RDN per attribute, as Go's pkix.Name.ToRDNSequence writes them.
  const subject = name([...options.organizations.map((o) => [OID.organization, o] as const), [OID.commonName, options.commonName] as const]);
  return issueLeaf(ca, subject, [extension(OID.extKeyUsage, false, sequence(objectIdentifier(OID.clientAuth)))]);
}

async function issueLeaf(ca: CertificateAndKey, subject: Buffer, extensions: Buffer[]): Promise<CertificateAndKey> {
  const caCert = new X509Certificate(ca.certPem);
  const caKey = createPrivateKey(ca.keyPem);
  const keys = await generateKeyPair();
  const now = Date.now();
  const notAfter = Math.min(now + LEAF_VALIDITY_DAYS * DAY_MS, Date.parse(caCert.validTo));
  const caParts = tbsParts(caCert.raw);
  const certDer = signCertificate(caKey, {
    // Reuse the CA's encoded subject so issuer matching (a byte comparison in Go) cannot drift.
    issuer: caParts.subject,
    subject,
    spki: keys.publicKey.export({ type: 'spki', format: 'der' }),
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(notAfter),
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, namedBits([KEY_USAGE.digitalSignature])),
      ...extensions,
      extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyIdentifier(caParts.spki)))),
    ],
  });
  return { certPem: pem('CERTIFICATE', certDer), keyPem: privateKeyPem(keys.privateKey) };
}

interface TbsFields {
  issuer: Buffer;
  subject: Buffer;
  spki: Buffer;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}

/** Encodes a v3 TBSCertificate with a random positive serial, signs it with ECDSA-SHA256 and returns the DER certificate. */
function signCertificate(signingKey: KeyObject, f: TbsFields): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x40; // positive and minimal, 16 bytes
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    signatureAlgorithm,
    f.issuer,
    sequence(time(f.notBefore), time(f.notAfter)),
    f.subject,
    f.spki,
    explicit(3, sequence(...f.extensions)),
  );
  const signature = sign('sha256', tbs, { key: signingKey, dsaEncoding: 'der' });
  return sequence(tbs, signatureAlgorithm, bitString(signature));
}

/** A Name: one RDN (a SET with one attribute) per entry, values as UTF8String. */
function name(attributes: ReadonlyArray<readonly [string, string]>): Buffer {
  return sequence(...attributes.map(([oid, value]) => set(sequence(objectIdentifier(oid), utf8String(value)))));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(objectIdentifier(oid), boolean(true), octetString(value)) : sequence(objectIdentifier(oid), octetString(value));
}

/** The key identifier of RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: Buffer): Buffer {
  const [, subjectPublicKey] = children(readElement(spki).content);
  return createHash('sha1').update(subjectPublicKey.content.subarray(1)).digest();
}

/** The encoded subject Name and SubjectPublicKeyInfo of a DER certificate. */
function tbsParts(certDer: Buffer): { subject: Buffer; spki: Buffer } {
  const [tbs] = children(readElement(certDer).content);
  const fields = children(tbs.content);
  const i = fields[0].tag === 0xa0 ? 1 : 0; // skip the explicit version
  // serial, signature, issuer, validity, subject, subjectPublicKeyInfo
  return { subject: fields[i + 4].encoded, spki: fields[i + 5].encoded };
}

/** The 4 or 16 bytes of an IPv4 or IPv6 address. */
function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  let text = ip.replace(/%.*$/, '');
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hextets.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - headParts.length - tailParts.length).fill('0');
  const hextets = [...headParts, ...fill, ...tailParts];
  const out = Buffer.alloc(16);
  hextets.forEach((h, i) => out.writeUInt16BE(parseInt(h, 16), i * 2));
  return out;
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

const generateEcKeyPair = promisify(generateKeyPairCb);

function generateKeyPair(): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return generateEcKeyPair('ec', { namedCurve: 'P-256' });
}

function privateKeyPem(key: KeyObject): string {
  return pem('PRIVATE KEY', key.export({ type: 'pkcs8', format: 'der' }));
}
