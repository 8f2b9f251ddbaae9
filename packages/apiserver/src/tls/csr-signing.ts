/**
 * What kube-controller-manager's CSR signing controllers do with an approved
 * CertificateSigningRequest (pkg/controller/certificates/signer and
 * authority): check the request against its signer's rules, then issue a
 * certificate from the cluster CA under kube's permissive signing policy.
 * The texts of the rules are kube's, as the `Failed` condition shows them.
 */
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { x509Library } from './certificates.js';
import { decodePem } from './pem.js';

/** The signer names kube's signing controllers serve; any other is left to its own signer. */
export const kubernetesSigners = [
  'kubernetes.io/kube-apiserver-client',
  'kubernetes.io/kube-apiserver-client-kubelet',
  'kubernetes.io/kubelet-serving',
  'kubernetes.io/legacy-unknown',
] as const;

/** kube-controller-manager's --cluster-signing-duration default: one year. */
export const defaultSigningDurationMs = 8760 * 60 * 60 * 1000;
const minimumDurationMs = 10 * 60 * 1000;
/** Backdating covers clock skew; it must stay under the shortest duration a request may ask for. */
const backdateMs = 5 * 60 * 1000;
/** A certificate shorter than this keeps its whole lifetime; a longer one gives back the backdate. */
const shortMs = 8 * 60 * 60 * 1000;

/** The parts of a PKCS#10 request the signers' rules look at. */
export interface ParsedRequest {
  organizations: string[];
  commonName: string;
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

/** The set of usages as Go's sets.String lists it: distinct, sorted. */
const usageSet = (usages: readonly string[]): string[] => [...new Set(usages)].sort();
const sameSet = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((u, i) => u === b[i]);
const goList = (values: readonly string[]): string => `[${values.join(' ')}]`;

const kubeletServingUsages = ['digital signature', 'key encipherment', 'server auth'];
const kubeletServingUsagesNoRsa = ['digital signature', 'server auth'];
const kubeletClientUsages = ['client auth', 'digital signature', 'key encipherment'];
const kubeletClientUsagesNoRsa = ['client auth', 'digital signature'];

const onlySystemNodes = (r: ParsedRequest): boolean => r.organizations.length === 1 && r.organizations[0] === 'system:nodes';

/** kube's ValidateKubeletServingCSR. */
function kubeletServingError(r: ParsedRequest, usages: readonly string[]): string | undefined {
  if (!onlySystemNodes(r)) return 'subject organization is not system:nodes';
  if (r.dnsNames.length === 0 && r.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (r.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (r.uris.length > 0) return 'URI subjectAltNames are not allowed';
  const set = usageSet(usages);
  if (!sameSet(set, kubeletServingUsages) && !sameSet(set, kubeletServingUsagesNoRsa)) return `usages did not match ${goList(kubeletServingUsages)}`;
  if (!r.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** kube's ValidateKubeletClientCSR. */
function kubeletClientError(r: ParsedRequest, usages: readonly string[]): string | undefined {
  if (!onlySystemNodes(r)) return 'subject organization is not system:nodes';
  if (r.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (r.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (r.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (r.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!r.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  const set = usageSet(usages);
  if (!sameSet(set, kubeletClientUsages) && !sameSet(set, kubeletClientUsagesNoRsa)) return `usages did not match ${goList(kubeletClientUsages)}`;
  return undefined;
}

/** kube's validAPIServerClientUsages: client auth required; digital signature and key encipherment allowed. */
function apiServerClientError(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/**
 * Why the signer named `signerName` refuses to sign this request (kube's
 * isRequestForSignerFn), or undefined when it signs it. The legacy-unknown
 * signer has no rules.
 */
export function signerRuleError(signerName: string, request: ParsedRequest, usages: readonly string[]): string | undefined {
  switch (signerName) {
    case 'kubernetes.io/kubelet-serving':
      return kubeletServingError(request, usages);
    case 'kubernetes.io/kube-apiserver-client-kubelet':
      return kubeletClientError(request, usages);
    case 'kubernetes.io/kube-apiserver-client':
      return apiServerClientError(usages);
    default:
      return undefined;
  }
}

/** The attribute types Go's pkix.Name keeps, in the order its ToRDNSequence writes them back. */
const goSubjectOrder: Array<[oid: string, single: boolean]> = [
  ['2.5.4.6', false], // C
  ['2.5.4.8', false], // ST
  ['2.5.4.7', false], // L
  ['2.5.4.9', false], // street
  ['2.5.4.17', false], // postalCode
  ['2.5.4.10', false], // O
  ['2.5.4.11', false], // OU
  ['2.5.4.3', true], // CN: Go keeps the last one
  ['2.5.4.5', true], // serialNumber
];

/** A request parsed, with what signing needs beside the rules' view. */
export interface CertificateRequest {
  parsed: ParsedRequest;
  /** The subject as Go re-encodes cr.Subject: one RDN per kept attribute type, in its order. */
  subject: X509.JsonName;
  publicKey: X509.PublicKey;
  sans: X509.JsonGeneralName[];
}

/** Parses the PEM `CERTIFICATE REQUEST` of a CSR (validation has checked it and its signature). */
export async function parseCertificateRequest(pemBytes: Buffer): Promise<CertificateRequest> {
  const decoded = decodePem(pemBytes);
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const x509 = await x509Library();
  const request = new x509.Pkcs10CertificateRequest(decoded.block.bytes);
  const byType = new Map<string, string[]>();
  for (const rdn of request.subjectName.toJSON()) {
    for (const [type, values] of Object.entries(rdn)) {
      const oid = oidOf(type);
      byType.set(oid, [...(byType.get(oid) ?? []), ...values]);
    }
  }
  const subject: X509.JsonName = [];
  for (const [oid, single] of goSubjectOrder) {
    const values = byType.get(oid) ?? [];
    const kept = single ? values.slice(-1).filter((v) => v !== '') : values;
    if (kept.length > 0) subject.push({ [oid]: kept });
  }
  const names: X509.JsonGeneralName[] = [];
  for (const ext of request.extensions) {
    if (ext instanceof x509.SubjectAlternativeNameExtension) names.push(...ext.names.toJSON());
  }
  const of = (type: X509.JsonGeneralName['type']): string[] => names.filter((n) => n.type === type).map((n) => n.value);
  const parsed: ParsedRequest = {
    organizations: byType.get('2.5.4.10') ?? [],
    commonName: (byType.get('2.5.4.3') ?? []).at(-1) ?? '',
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
  };
  // Go writes the names back DNS, email, IP, URI; other kinds of name are not carried over.
  const sans = [
    ...parsed.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...parsed.emailAddresses.map((value) => ({ type: 'email' as const, value })),
    ...parsed.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
    ...parsed.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  return { parsed, subject, publicKey: request.publicKey, sans };
}

/** The short names @peculiar/x509 gives the attribute types Go keeps (others come as OIDs or are dropped, as Go drops them). */
const shortNameOids: Record<string, string> = { C: '2.5.4.6', ST: '2.5.4.8', L: '2.5.4.7', O: '2.5.4.10', OU: '2.5.4.11', CN: '2.5.4.3' };
const oidOf = (type: string): string => shortNameOids[type] ?? type;

/** certificates/v1 key usages as X.509 key usage bits (Go's keyUsageDict). */
const keyUsageBits: Record<string, number> = {
  signing: 1, 'digital signature': 1, 'content commitment': 2, 'key encipherment': 4, 'key agreement': 16,
  'data encipherment': 8, 'cert sign': 32, 'crl sign': 64, 'encipher only': 128, 'decipher only': 256,
};
/** certificates/v1 key usages as extended key usage OIDs, in the order of Go's ExtKeyUsage values (it sorts by them). */
const extKeyUsageOids: Array<[usages: string[], oid: string]> = [
  [['any'], '2.5.29.37.0'],
  [['server auth'], '1.3.6.1.5.5.7.3.1'],
  [['client auth'], '1.3.6.1.5.5.7.3.2'],
  [['code signing'], '1.3.6.1.5.5.7.3.3'],
  [['email protection', 's/mime'], '1.3.6.1.5.5.7.3.4'],
  [['ipsec end system'], '1.3.6.1.5.5.7.3.5'],
  [['ipsec tunnel'], '1.3.6.1.5.5.7.3.6'],
  [['ipsec user'], '1.3.6.1.5.5.7.3.7'],
  [['timestamping'], '1.3.6.1.5.5.7.3.8'],
  [['ocsp signing'], '1.3.6.1.5.5.7.3.9'],
  [['microsoft sgc'], '1.3.6.1.4.1.311.10.3.3'],
  [['netscape sgc'], '2.16.840.1.113730.4.1'],
];
const knownExtUsages = new Set(extKeyUsageOids.flatMap(([u]) => u));

/** How long a certificate lives (kube's signer.duration): the request's expirationSeconds within [10 min, the signer's maximum]. */
export function signingDurationMs(expirationSeconds: number | undefined, maximumMs = defaultSigningDurationMs): number {
  if (expirationSeconds === undefined) return maximumMs;
  const requested = expirationSeconds * 1000;
  return requested > maximumMs ? maximumMs : requested < minimumDurationMs ? minimumDurationMs : requested;
}

/** The CA's key for WebCrypto, with the signature algorithm Go picks for it. */
async function caSigningKey(keyPem: string): Promise<{ key: webcrypto.CryptoKey; algorithm: webcrypto.Algorithm | webcrypto.EcdsaParams }> {
  const key = createPrivateKey(keyPem);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const { subtle } = webcrypto;
  if (key.asymmetricKeyType === 'ec') {
    const curve = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' }[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new Error(`unsupported CA key curve ${key.asymmetricKeyDetails?.namedCurve ?? ''}`);
    const hash = { 'P-256': 'SHA-256', 'P-384': 'SHA-384', 'P-521': 'SHA-512' }[curve];
    return { key: await subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: curve }, false, ['sign']), algorithm: { name: 'ECDSA', hash } };
  }
  if (key.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { key: await subtle.importKey('pkcs8', der, algorithm, false, ['sign']), algorithm };
  }
  if (key.asymmetricKeyType === 'ed25519') {
    return { key: await subtle.importKey('pkcs8', der, { name: 'Ed25519' }, false, ['sign']), algorithm: { name: 'Ed25519' } };
  }
  throw new Error(`unsupported CA key type ${key.asymmetricKeyType ?? ''}`);
}

/** Go's %v of a time.Time in UTC, as kube's signer errors print NotAfter. */
const goTime = (d: Date): string => `${d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} +0000 UTC`;

/**
 * Issues a certificate for `request` from `ca` as kube's CSR signer does
 * (authority.PermissiveSigningPolicy): the request's subject and names, the
 * given usages, not a CA, backdated 5 minutes and cut at the CA's own
 * expiry. Returns the PEM of the certificate.
 *
 * @throws with kube's text when a usage is unknown or the CA has expired.
 */
export async function signCertificateRequest(
  ca: { certPem: string; keyPem: string },
  request: CertificateRequest,
  usages: readonly string[],
  durationMs: number,
  now = new Date(),
): Promise<string> {
  const unrecognized = usages.filter((u) => keyUsageBits[u] === undefined && !knownExtUsages.has(u));
  if (unrecognized.length > 0) throw new Error(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const x509 = await x509Library();
  const caCert = new x509.X509Certificate(ca.certPem);
  const signerNotAfter = caCert.notAfter;
  const notBefore = new Date(now.getTime() - backdateMs);
  let notAfter = new Date(now.getTime() + (durationMs < shortMs ? durationMs : durationMs - backdateMs));
  if (notAfter.getTime() >= signerNotAfter.getTime()) notAfter = signerNotAfter;
  if (notBefore.getTime() >= signerNotAfter.getTime()) throw new Error(`the signer has expired: NotAfter=${goTime(signerNotAfter)}`);
  if (now.getTime() >= signerNotAfter.getTime()) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(signerNotAfter)}`);

  const bits = usages.reduce((acc, u) => acc | (keyUsageBits[u] ?? 0), 0);
  const ext = extKeyUsageOids.filter(([names]) => names.some((n) => usages.includes(n))).map(([, oid]) => oid);
  // Go's order: key usage, extended key usage, basic constraints, authority key id, names.
  const extensions: X509.Extension[] = [];
  if (bits !== 0) extensions.push(new x509.KeyUsagesExtension(bits, true));
  if (ext.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(ext));
  extensions.push(new x509.BasicConstraintsExtension(false, undefined, true));
  const caKeyId = caCert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  if (caKeyId) extensions.push(new x509.AuthorityKeyIdentifierExtension(caKeyId));
  if (request.sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(request.sans, request.subject.length === 0));

  const { key, algorithm } = await caSigningKey(ca.keyPem);
  const serial = randomBytes(16);
  serial[0] &= 0x7f; // a positive INTEGER below 2^128, as Go's rand.Int(2^128) gives
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: request.subject,
    issuer: caCert.subjectName,
    publicKey: request.publicKey,
    signingKey: key,
    signingAlgorithm: algorithm,
    notBefore,
    notAfter,
    extensions,
  });
  return cert.toString('pem') + '\n';
}
