/**
 * The checks kube's certificates validation makes on the PEM bytes of a
 * CertificateSigningRequest (pkg/apis/certificates/validation): the request
 * must be a `CERTIFICATE REQUEST` block holding a PKCS#10 request whose
 * signature verifies with its own public key, and an issued certificate must
 * be CERTIFICATE blocks only. Each answers kube's error text, or undefined.
 */
import { X509Certificate } from 'node:crypto';
import { decodePem } from './pem.js';
import { x509Library } from './certificates.js';

/** What Go's CheckSignature answers when a signature does not verify, by the public key's algorithm. */
const verificationFailure: Record<string, string> = {
  'RSASSA-PKCS1-v1_5': 'crypto/rsa: verification error',
  'RSA-PSS': 'crypto/rsa: verification error',
  ECDSA: 'x509: ECDSA verification failure',
  Ed25519: 'x509: Ed25519 verification failure',
};

/**
 * Why `pemBytes` is no valid certificate request (kube's validateCSR), or
 * undefined. Go's ASN.1 parser words each malformation its own way; any
 * request that does not parse is reported here as Go reports a truncated one.
 */
export async function certificateRequestError(pemBytes: Buffer): Promise<string | undefined> {
  const decoded = decodePem(pemBytes);
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const x509 = await x509Library();
  let request: InstanceType<typeof x509.Pkcs10CertificateRequest>;
  let keyAlgorithm: string;
  try {
    request = new x509.Pkcs10CertificateRequest(decoded.block.bytes);
    keyAlgorithm = request.publicKey.algorithm.name;
  } catch {
    return 'asn1: syntax error: data truncated';
  }
  let verified: boolean;
  try {
    verified = await request.verify();
  } catch {
    return 'x509: cannot verify signature: algorithm unimplemented';
  }
  return verified ? undefined : (verificationFailure[keyAlgorithm] ?? 'x509: cannot verify signature: algorithm unimplemented');
}

/** Why `pemBytes` is no valid status.certificate (kube's validateCertificate), or undefined; empty bytes are valid. */
export function certificateChainError(pemBytes: Buffer): string | undefined {
  if (pemBytes.length === 0) return undefined;
  let blocks = 0;
  for (let rest = pemBytes, next = decodePem(rest); next; rest = next.rest, next = decodePem(rest)) {
    const { block } = next;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.hasHeaders) return 'no PEM block headers are permitted';
    blocks++;
    try {
      new X509Certificate(block.bytes);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}
