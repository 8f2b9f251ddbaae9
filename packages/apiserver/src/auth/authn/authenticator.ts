/**
 * Request authentication as kube-apiserver chains it: a client certificate
 * verified against the client CA (CN = user, O = groups), then a bearer token
 * (the admin's static token, then ServiceAccount JWTs); the first that
 * succeeds wins and gets `system:authenticated`. A request that presents
 * credentials none of them accepts is refused (401), never demoted to
 * anonymous; one that presents none is `system:anonymous` when anonymous
 * requests are enabled. Also answers TokenReview, which runs the same token
 * authenticators on a token sent in the body.
 */
import { X509Certificate, createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { TLSSocket, type DetailedPeerCertificate } from 'node:tls';
import { badRequest, isJsonObject } from '@operant/apimachinery';
import type { ServiceAccountTokenAuthority, TokenObjectLookup } from './service-account-tokens.js';
import { anonymousUser, extraKeys, systemPrivilegedGroup, withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** The admin of kubeadm clusters: the user of admin.conf's client certificate. */
export const defaultAdminUser: UserInfo = Object.freeze({ username: 'kubernetes-admin', groups: [systemPrivilegedGroup] }) as UserInfo;

/** What the authenticators need; built once per server by {@link authenticationContext}. */
export interface AuthenticatorOptions {
  /** The admin's bearer token. */
  adminToken: string;
  /** Who the admin token authenticates as (default `kubernetes-admin` in `system:masters`). */
  adminUser?: UserInfo;
  /** Verifies ServiceAccount tokens; without it, only the admin token is accepted. */
  serviceAccountTokens?: ServiceAccountTokenAuthority;
  /** Where ServiceAccount tokens' objects are looked up (required with `serviceAccountTokens`). */
  lookup?: TokenObjectLookup;
  /** PEM of the CA(s) client certificates must chain to; without it, client certificates are ignored. */
  clientCA?: string;
  /** Whether requests without credentials run as `system:anonymous` (default true, as kube's --anonymous-auth). */
  anonymous?: boolean;
  /** Clock in milliseconds since the epoch (tests). */
  now?: () => number;
}

/** The prepared authenticators. Opaque: pass it to {@link authenticate}. */
export interface AuthenticationContext {
  readonly adminToken: Buffer;
  readonly adminUser: UserInfo;
  readonly serviceAccountTokens?: ServiceAccountTokenAuthority;
  readonly lookup?: TokenObjectLookup;
  readonly clientCAs: readonly X509Certificate[];
  readonly anonymous: boolean;
  readonly now: () => number;
}

/** The parts of a request authentication reads. */
export interface AuthenticatableRequest {
  headers: IncomingHttpHeaders;
  /** A TLSSocket carries the client certificate; any other socket presents none. */
  socket: object | null;
}

/** How a request was authenticated, or why not. */
export type AuthenticationOutcome =
  | { result: 'authenticated'; user: UserInfo; method: 'x509' | 'token' | 'serviceaccount' | 'anonymous' }
  /** No credentials were presented and anonymous requests are disabled. */
  | { result: 'unauthenticated' }
  /** Credentials were presented and refused; `errors` are kube's reasons (for logs, never for the client). */
  | { result: 'invalid'; errors: string[] };

/** Prepares the authenticators. */
export function authenticationContext(options: AuthenticatorOptions): AuthenticationContext {
  if (options.serviceAccountTokens && !options.lookup) throw new Error('serviceAccountTokens needs a lookup');
  return {
    adminToken: Buffer.from(options.adminToken),
    adminUser: options.adminUser ?? defaultAdminUser,
    serviceAccountTokens: options.serviceAccountTokens,
    lookup: options.lookup,
    clientCAs: options.clientCA ? parsePemBundle(options.clientCA) : [],
    anonymous: options.anonymous ?? true,
    now: options.now ?? Date.now,
  };
}

/**
 * Who made the request: a UserInfo (the anonymous user when no credentials were presented and
 * anonymous requests are enabled), `undefined` when none were presented and anonymous requests are
 * disabled, `'invalid'` when the credentials presented were refused. Both of the latter are a
 * 401 `Unauthorized`.
 */
export function authenticate(req: AuthenticatableRequest, ctx: AuthenticationContext): UserInfo | undefined | 'invalid' {
  const outcome = authenticateRequest(req, ctx);
  return outcome.result === 'authenticated' ? outcome.user : outcome.result === 'invalid' ? 'invalid' : undefined;
}

/** {@link authenticate} with the method that succeeded or the reasons of a refusal. */
export function authenticateRequest(req: AuthenticatableRequest, ctx: AuthenticationContext): AuthenticationOutcome {
  const errors: string[] = [];

  const certificate = ctx.clientCAs.length > 0 ? clientCertificateUser(req.socket, ctx) : undefined;
  if (certificate?.user) return { result: 'authenticated', user: withAuthenticatedGroup(certificate.user), method: 'x509' };
  if (certificate?.error) errors.push(certificate.error);

  const token = bearerToken(req.headers.authorization);
  if (token !== undefined) {
    const outcome = authenticateToken(token, ctx, undefined);
    if (outcome.user) return { result: 'authenticated', user: outcome.user, method: outcome.method };
    errors.push(outcome.error ?? 'invalid bearer token');
  }

  if (errors.length > 0) return { result: 'invalid', errors };
  if (ctx.anonymous) return { result: 'authenticated', user: anonymousUser(), method: 'anonymous' };
  return { result: 'unauthenticated' };
}

/** The TokenReview status kube answers with. */
export interface TokenReviewStatus {
  authenticated?: boolean;
  user?: UserInfo;
  audiences?: string[];
  error?: string;
}

/** A TokenReview (authentication.k8s.io/v1) as answered. */
export interface TokenReview {
  apiVersion: string;
  kind: 'TokenReview';
  metadata: { creationTimestamp: null };
  spec: { token: string; audiences?: string[] };
  status: TokenReviewStatus;
}

/**
 * Answers a TokenReview (`kubectl create -f tokenreview.yaml`, webhook token authenticators of other
 * servers): runs the token authenticators on `spec.token` for `spec.audiences` (default: the API
 * server's).
 *
 * @throws StatusError BadRequest when the token is missing.
 */
export function tokenReview(body: unknown, ctx: AuthenticationContext, apiVersion = 'authentication.k8s.io/v1'): TokenReview {
  const spec = isJsonObject(body) && isJsonObject(body.spec) ? body.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const outSpec: TokenReview['spec'] = { token, ...(audiences.length > 0 && { audiences }) };
  const outcome = authenticateToken(token, ctx, audiences.length > 0 ? audiences : undefined);
  const status: TokenReviewStatus = {};
  if (outcome.user) {
    status.authenticated = true;
    status.user = outcome.user;
    status.audiences = outcome.audiences;
  } else if (outcome.error) {
    status.error = outcome.error;
  }
  return { apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: outSpec, status };
}

interface TokenOutcome {
  user?: UserInfo;
  method: 'token' | 'serviceaccount';
  audiences?: string[];
  error?: string;
}

/** The token authenticators in kube's order: the static (admin) token, then ServiceAccount JWTs. */
function authenticateToken(token: string, ctx: AuthenticationContext, audiences: string[] | undefined): TokenOutcome {
  const given = Buffer.from(token);
  if (given.length === ctx.adminToken.length && timingSafeEqual(given, ctx.adminToken)) {
    // The static token knows no audiences: it is valid for the API server's (kube's audience-agnostic wrapper).
    const apiAudiences = [...(ctx.serviceAccountTokens?.apiAudiences ?? [])];
    const matched = audiences ? apiAudiences.filter((a) => audiences.includes(a)) : apiAudiences;
    if (!audiences || matched.length > 0) return { user: withAuthenticatedGroup(ctx.adminUser), method: 'token', audiences: matched };
  }
  if (ctx.serviceAccountTokens && ctx.lookup) {
    const verified = ctx.serviceAccountTokens.verifyToken(token, ctx.lookup, { audiences });
    if (verified.result === 'authenticated') return { user: verified.user, method: 'serviceaccount', audiences: verified.audiences };
    if (verified.result === 'rejected') return { method: 'serviceaccount', error: verified.error };
  }
  return { method: 'token' };
}

/**
 * The token of an `Authorization: Bearer <token>` header, as kube's bearertoken authenticator reads
 * it (scheme case-insensitive, the token the second space-separated word); undefined when the header
 * carries none.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const value = header?.trim() ?? '';
  if (!value) return undefined;
  const parts = value.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

/** What a client certificate says: a user, a refusal (kube's x509 error), or neither (no CN). */
export interface CertificateOutcome {
  user?: UserInfo;
  error?: string;
}

/** Verified client certificates by connection: a TLS peer cannot change its certificate mid-connection. */
const certificateOutcomes = new WeakMap<object, { at: number; outcome: CertificateOutcome | undefined }>();
/** How long a connection's verified certificate is trusted before it is checked again (its validity may end). */
const certificateRecheckMs = 60_000;

function clientCertificateUser(socket: object | null, ctx: AuthenticationContext): CertificateOutcome | undefined {
  if (!(socket instanceof TLSSocket)) return undefined;
  const now = ctx.now();
  const cached = certificateOutcomes.get(socket);
  if (cached && now - cached.at < certificateRecheckMs) return cached.outcome;
  const chain = peerChain(socket);
  const outcome = chain.length === 0 ? undefined : certificateIdentity(chain, ctx.clientCAs, now);
  certificateOutcomes.set(socket, { at: now, outcome });
  return outcome;
}

/** The peer's certificate and the intermediates it sent, leaf first. */
function peerChain(socket: TLSSocket): X509Certificate[] {
  // An empty object when the client sent no certificate.
  const leaf: Partial<DetailedPeerCertificate> = socket.getPeerCertificate(true);
  if (!leaf.raw) return [];
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let c: DetailedPeerCertificate | undefined = leaf as DetailedPeerCertificate; c?.raw && !seen.has(c.fingerprint256) && chain.length < 10; c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    chain.push(new X509Certificate(c.raw));
  }
  return chain;
}

const clientAuthUsage = '1.3.6.1.5.5.7.3.2';
const anyExtendedKeyUsage = '2.5.29.37.0';

/**
 * The identity in a client certificate chain (leaf first) that verifies against one of `roots` for
 * client authentication at `nowMs`, as kube's x509 authenticator with CommonNameUserConversion
 * reads it: CN is the user, each O a group, and the certificate's SHA-256 its credential id. A
 * certificate without a CN identifies nobody (no error: other credentials may).
 */
export function certificateIdentity(chain: readonly X509Certificate[], roots: readonly X509Certificate[], nowMs: number): CertificateOutcome {
  const error = verifyChain(chain, roots, nowMs);
  if (error) return { error };
  const leaf = chain[0];
  const subject = leaf.toLegacyObject().subject as Record<string, string | string[] | undefined>;
  const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const commonName = values(subject.CN).at(-1) ?? '';
  if (!commonName) return {};
  return {
    user: {
      username: commonName,
      groups: values(subject.O),
      extra: { [extraKeys.credentialId]: [`X509SHA256=${createHash('sha256').update(leaf.raw).digest('hex')}`] },
    },
  };
}

/** Go's x509 Verify with KeyUsages [ClientAuth]: a chain to a root through CA intermediates, all valid now. */
function verifyChain(chain: readonly X509Certificate[], roots: readonly X509Certificate[], nowMs: number): string | undefined {
  const [leaf, ...intermediates] = chain;
  let current = leaf;
  for (let depth = 0; depth < 10; depth++) {
    const timeError = validityError(current, nowMs);
    if (timeError) return timeError;
    if (!usableForClientAuth(current)) return 'x509: certificate specifies an incompatible key usage';
    const root = roots.find((r) => issuedBy(current, r));
    if (root) return validityError(root, nowMs);
    const next = intermediates.find((c) => c !== current && c.ca && issuedBy(current, c));
    if (!next) break;
    current = next;
  }
  return 'x509: certificate signed by unknown authority';
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

function usableForClientAuth(cert: X509Certificate): boolean {
  const usages = cert.keyUsage; // the extended key usages; undefined when the extension is absent (any use)
  return usages === undefined || usages.includes(clientAuthUsage) || usages.includes(anyExtendedKeyUsage);
}

function validityError(cert: X509Certificate, nowMs: number): string | undefined {
  const notBefore = Date.parse(cert.validFrom);
  const notAfter = Date.parse(cert.validTo);
  const now = new Date(nowMs).toISOString().replace(/\.\d+Z$/, 'Z');
  if (nowMs < notBefore) return `x509: certificate has expired or is not yet valid: current time ${now} is before ${new Date(notBefore).toISOString().replace('.000Z', 'Z')}`;
  if (nowMs > notAfter) return `x509: certificate has expired or is not yet valid: current time ${now} is after ${new Date(notAfter).toISOString().replace('.000Z', 'Z')}`;
  return undefined;
}

function parsePemBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('clientCA holds no PEM certificate');
  return blocks.map((b) => new X509Certificate(b));
}
