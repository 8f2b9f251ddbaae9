/**
 * ServiceAccount tokens as kube-apiserver issues and checks them: compact JWS
 * (ES256, signed with node:crypto) carrying the standard claims (iss, sub, aud,
 * exp, iat, nbf, jti) and the private `kubernetes.io` claim that names the
 * ServiceAccount and, for bound tokens, the Pod, Secret or Node. Verification
 * follows kube's order: issuer, signature, audience, time (with go-jose's one
 * minute of leeway), then the objects the token names must still exist with
 * the uids it was issued for. The TokenRequest API (`serviceaccounts/token`,
 * `kubectl create token`) is answered by {@link ServiceAccountTokenAuthority.tokenRequest}.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair as generateKeyPairCb, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { mkdir, readText } from '../../tls/files.js';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  badRequest,
  conflict,
  fieldErrors,
  invalid,
  isJsonObject,
  notFound,
  type FieldError,
  type KubeObject,
} from '@operant/apimachinery';
import { writeFileAtomic } from '../../tls/kubeconfig.js';
import { extraKeys, serviceAccountGroups, serviceAccountUsername, withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** The issuer (and default API audience) of kubeadm clusters. */
export const defaultIssuer = 'https://kubernetes.default.svc.cluster.local';
/** `spec.expirationSeconds` of a TokenRequest that gives none. */
export const defaultTokenExpirationSeconds = 60 * 60;
/** The shortest lifetime a TokenRequest may ask for. */
export const minTokenExpirationSeconds = 10 * 60;
/** The longest lifetime a TokenRequest may ask for. */
export const maxTokenExpirationSeconds = 2 ** 32;
/**
 * The lifetime the kubelet asks for projected tokens; such pod-bound tokens are issued for a year
 * and only flagged (`warnafter`) after this, as kube-apiserver's --service-account-extend-token-expiration does.
 */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** The lifetime of an extended pod-bound token. */
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;
/** go-jose's jwt.DefaultLeeway: clock skew tolerated on exp, nbf and iat, and on deletion timestamps. */
export const tokenLeewaySeconds = 60;

const keyFile = 'sa.key';
/** How many signature-verified tokens are remembered (oldest forgotten first). */
const verifiedTokenCacheSize = 4096;
const algorithm = 'ES256';

/** A name and uid, as the `kubernetes.io` claim refers to objects. */
export interface ObjectRef {
  name: string;
  uid?: string;
}

/** The private claim kube puts in every ServiceAccount token (keys in the order Go marshals them). */
export interface KubernetesClaim {
  namespace: string;
  node?: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  serviceaccount: ObjectRef;
  /** For extended pod-bound tokens: when the token counts as stale (seconds since the epoch). */
  warnafter?: number;
}

/** The payload of a ServiceAccount token. */
export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': KubernetesClaim;
  nbf: number;
  sub: string;
}

/** The object a token is bound to; the token stops working when it is deleted or replaced. */
export interface BoundObject {
  kind: 'Pod' | 'Secret' | 'Node';
  name: string;
  uid: string;
}

/** What to put in a token. */
export interface IssueTokenRequest {
  /** Namespace of the ServiceAccount. */
  namespace: string;
  /** Name of the ServiceAccount. */
  name: string;
  /** uid of the ServiceAccount: the token dies with it. */
  uid: string;
  /** Intended audiences; default: the API server's. */
  audiences?: string[];
  /** Lifetime in seconds. */
  expirationSeconds: number;
  boundObject?: BoundObject;
  /** For a pod-bound token: the node the pod runs on (uid unknown when the Node object does not exist). */
  node?: ObjectRef;
  /** Seconds after which the token counts as stale while still valid (extended pod-bound tokens). */
  warnAfterSeconds?: number;
}

/** A signed token and its claims. */
export interface IssuedToken {
  token: string;
  claims: ServiceAccountClaims;
  /** When the token expires. */
  expiresAt: Date;
}

/**
 * Reads the objects a token refers to. Each returns the stored object or undefined when there is
 * none; {@link storeLookup} reads them from the MVCC store.
 */
export interface TokenObjectLookup {
  serviceAccount(namespace: string, name: string): KubeObject | undefined;
  pod(namespace: string, name: string): KubeObject | undefined;
  secret(namespace: string, name: string): KubeObject | undefined;
  node(name: string): KubeObject | undefined;
}

/**
 * The outcome of checking a bearer token: `unrecognized` when it is no JWT of this issuer (another
 * authenticator may know it), `rejected` when it is ours but not valid (with kube's reason, as a
 * TokenReview's `status.error` shows it), `authenticated` with the user and the audiences matched.
 */
export type TokenVerification =
  | { result: 'authenticated'; user: UserInfo; audiences: string[] }
  | { result: 'rejected'; error: string }
  | { result: 'unrecognized' };

/** A TokenRequest (authentication.k8s.io/v1) as sent and answered by the `serviceaccounts/token` subresource. */
export interface TokenRequest {
  apiVersion: 'authentication.k8s.io/v1';
  kind: 'TokenRequest';
  metadata: { name: string; namespace: string; creationTimestamp: string };
  spec: {
    audiences: string[];
    expirationSeconds: number;
    boundObjectRef: BoundObjectReference | null;
  };
  status: { token: string; expirationTimestamp: string };
}

/** A TokenRequest's `spec.boundObjectRef`. */
export interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

/** How the token authority behaves; the defaults are kube-apiserver's (as kubeadm configures it). */
export interface ServiceAccountTokenOptions {
  /** `iss` of issued tokens, and the only issuer accepted (default {@link defaultIssuer}). */
  issuer?: string;
  /** The API server's audiences: default audiences of issued tokens and accepted ones (default `[issuer]`). */
  apiAudiences?: string[];
  /** --service-account-max-token-expiration in seconds; 0 or absent: no limit. */
  maxExpirationSeconds?: number;
  /** --service-account-extend-token-expiration (default true). */
  extendExpiration?: boolean;
  /** Clock in milliseconds since the epoch (tests). */
  now?: () => number;
}

/** Options of one verification. */
export interface VerifyTokenOptions {
  /** The audiences the token must be meant for (one of them); default: the API server's. */
  audiences?: string[];
}

/** Options of one TokenRequest. */
export interface TokenRequestOptions {
  /** Receives kube's warnings (e.g. an expiration shortened to the maximum), for the `Warning` header. */
  warn?: (message: string) => void;
}

/**
 * Reads the signing key from `<dataDir>/pki/sa.key`, creating it (ECDSA P-256, PKCS#8 PEM, mode 0600)
 * when absent; without `dataDir` the key lives in memory only, so tokens die with the process.
 *
 * @throws if the file holds anything but a P-256 private key: silently replacing it would
 *   invalidate every token handed out.
 */
export async function loadOrCreateServiceAccountKey(dataDir: string | undefined): Promise<KeyObject> {
  if (dataDir === undefined) return (await generateEcKeyPair('ec', { namedCurve: 'P-256' })).privateKey;
  const pki = join(dataDir, 'pki');
  const path = join(pki, keyFile);
  let pem: string | undefined;
  try {
    pem = await readText(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (pem !== undefined) {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error(`${path} is not an ECDSA P-256 private key`);
    }
    return key;
  }
  await mkdir(pki, { recursive: true, mode: 0o700 });
  const { privateKey } = await generateEcKeyPair('ec', { namedCurve: 'P-256' });
  await writeFileAtomic(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), 0o600);
  return privateKey;
}

const generateEcKeyPair = promisify(generateKeyPairCb);

/**
 * Issues and verifies ServiceAccount tokens with one signing key, and answers TokenRequests.
 *
 * @example
 * const tokens = await ServiceAccountTokenAuthority.load(dataDir);
 * const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid, expirationSeconds: 3600 });
 * const outcome = tokens.verifyToken(token, storeLookup(store));
 */
export class ServiceAccountTokenAuthority {
  /** `iss` of the tokens. */
  readonly issuer: string;
  /** The API server's audiences. */
  readonly apiAudiences: readonly string[];
  private key: { privateKey: KeyObject; publicKey: KeyObject; keyId: string } | undefined;
  private readonly makeKey: () => KeyObject;
  private readonly maxExpirationSeconds: number;
  private readonly extendExpiration: boolean;
  private readonly now: () => number;
  /** Tokens whose signature was verified, and their claims: most requests repeat a recent token. */
  private readonly verifiedTokens = new Map<string, ParsedClaims>();

  /** `privateKey`: the signing key, or a function that makes it when it is first needed. */
  constructor(privateKey: KeyObject | (() => KeyObject), options: ServiceAccountTokenOptions = {}) {
    this.makeKey = typeof privateKey === 'function' ? privateKey : () => privateKey;
    this.issuer = options.issuer ?? defaultIssuer;
    this.apiAudiences = Object.freeze([...(options.apiAudiences ?? [this.issuer])]);
    this.maxExpirationSeconds = options.maxExpirationSeconds ?? 0;
    this.extendExpiration = options.extendExpiration ?? true;
    this.now = options.now ?? Date.now;
  }

  /**
   * An authority with the key of {@link loadOrCreateServiceAccountKey}. Without a data dir the
   * key is made when a token is first issued or checked: most in-memory servers never need one,
   * and their start is spared making it.
   */
  static async load(dataDir: string | undefined, options: ServiceAccountTokenOptions = {}): Promise<ServiceAccountTokenAuthority> {
    if (dataDir === undefined) return new ServiceAccountTokenAuthority(() => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, options);
    return new ServiceAccountTokenAuthority(await loadOrCreateServiceAccountKey(dataDir), options);
  }

  private get keys(): { privateKey: KeyObject; publicKey: KeyObject; keyId: string } {
    if (!this.key) {
      const privateKey = this.makeKey();
      const publicKey = createPublicKey(privateKey);
      const keyId = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
      this.key = { privateKey, publicKey, keyId };
    }
    return this.key;
  }

  /** `kid` of the tokens: base64url SHA-256 of the DER public key, as kube derives it. */
  get keyId(): string {
    return this.keys.keyId;
  }

  /** The verification key (SPKI PEM), e.g. for a JWKS or for `--service-account-key-file` elsewhere. */
  get publicKeyPem(): string {
    return this.keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  }

  /** Signs a token for a ServiceAccount, with the claims kube's `serviceaccount.Claims` produces. */
  issueToken(request: IssueTokenRequest): IssuedToken {
    const nowSeconds = Math.floor(this.now() / 1000);
    const bound = request.boundObject;
    const node = bound?.kind === 'Node' ? bound : bound?.kind === 'Pod' ? request.node : undefined;
    // Keys in Go's marshalling order (alphabetical), so tokens read like kube's.
    const kubernetesClaim: KubernetesClaim = {
      namespace: request.namespace,
      ...(node && { node: ref(node.name, node.uid) }),
      ...(bound?.kind === 'Pod' && { pod: ref(bound.name, bound.uid) }),
      ...(bound?.kind === 'Secret' && { secret: ref(bound.name, bound.uid) }),
      serviceaccount: ref(request.name, request.uid),
      ...(request.warnAfterSeconds ? { warnafter: nowSeconds + request.warnAfterSeconds } : {}),
    };
    const claims: ServiceAccountClaims = {
      aud: [...(request.audiences && request.audiences.length > 0 ? request.audiences : this.apiAudiences)],
      exp: nowSeconds + request.expirationSeconds,
      iat: nowSeconds,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': kubernetesClaim,
      nbf: nowSeconds,
      sub: serviceAccountUsername(request.namespace, request.name),
    };
    const header = b64json({ alg: algorithm, kid: this.keyId });
    const payload = b64json(claims);
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: this.keys.privateKey, dsaEncoding: 'ieee-p1363' });
    return { token: `${header}.${payload}.${signature.toString('base64url')}`, claims, expiresAt: new Date(claims.exp * 1000) };
  }

  /**
   * Checks a bearer token as kube's service-account authenticator does (jwt.go and claims.go):
   * issuer, signature, audience, exp/nbf/iat with one minute of leeway, and that the ServiceAccount
   * (and the bound Pod, Secret or Node) still exists, is not being deleted, and has the uid in the token.
   */
  verifyToken(token: string, lookup: TokenObjectLookup, options: VerifyTokenOptions = {}): TokenVerification {
    const checked = this.checkedClaims(token);
    if (checked.result !== 'signed') return checked;
    const claims = checked.claims;

    let tokenAudiences = claims.aud;
    if (tokenAudiences.length === 0) tokenAudiences = [...this.apiAudiences]; // legacy tokens: the API server's only
    const wanted = options.audiences && options.audiences.length > 0 ? options.audiences : [...this.apiAudiences];
    const audiences = tokenAudiences.filter((a) => wanted.includes(a));
    if (audiences.length === 0 && this.apiAudiences.length > 0) {
      return { result: 'rejected', error: `token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(wanted)}` };
    }

    const nowMs = this.now();
    const leewayMs = tokenLeewaySeconds * 1000;
    if (claims.nbf !== undefined && nowMs + leewayMs < claims.nbf * 1000) return { result: 'rejected', error: 'service account token is not valid yet' };
    if (claims.exp !== undefined && nowMs - leewayMs > claims.exp * 1000) return { result: 'rejected', error: 'service account token has expired' };
    if (claims.iat !== undefined && nowMs + leewayMs < claims.iat * 1000) return { result: 'rejected', error: 'service account token is issued in the future' };

    const k8s = claims.kubernetes;
    const namespace = k8s.namespace;
    const deletedBefore = nowMs - leewayMs;
    const sa = lookup.serviceAccount(namespace, k8s.serviceaccount.name);
    if (!sa) return { result: 'rejected', error: `serviceaccounts ${JSON.stringify(k8s.serviceaccount.name)} not found` };
    if (deletedLongAgo(sa, deletedBefore)) return { result: 'rejected', error: `service account ${namespace}/${k8s.serviceaccount.name} has been deleted` };
    if ((sa.metadata.uid ?? '') !== (k8s.serviceaccount.uid ?? '')) {
      return { result: 'rejected', error: `service account UID (${sa.metadata.uid ?? ''}) does not match claim (${k8s.serviceaccount.uid ?? ''})` };
    }
    if (k8s.secret) {
      const secret = lookup.secret(namespace, k8s.secret.name);
      if (!secret || deletedLongAgo(secret, deletedBefore)) return { result: 'rejected', error: 'service account token has been invalidated' };
      if ((secret.metadata.uid ?? '') !== (k8s.secret.uid ?? '')) {
        return { result: 'rejected', error: `secret UID (${secret.metadata.uid ?? ''}) does not match service account secret ref claim (${k8s.secret.uid ?? ''})` };
      }
    }
    if (k8s.pod) {
      const pod = lookup.pod(namespace, k8s.pod.name);
      if (!pod || deletedLongAgo(pod, deletedBefore)) return { result: 'rejected', error: 'service account token has been invalidated' };
      if ((pod.metadata.uid ?? '') !== (k8s.pod.uid ?? '')) {
        return { result: 'rejected', error: `pod UID (${pod.metadata.uid ?? ''}) does not match service account pod ref claim (${k8s.pod.uid ?? ''})` };
      }
    } else if (k8s.node) {
      // A node-bound token (a pod-bound one only carries the node for information).
      const node = lookup.node(k8s.node.name);
      if (!node || deletedLongAgo(node, deletedBefore)) return { result: 'rejected', error: 'service account token has been invalidated' };
      if ((node.metadata.uid ?? '') !== (k8s.node.uid ?? '')) {
        return { result: 'rejected', error: `node UID (${node.metadata.uid ?? ''}) does not match service account node ref claim (${k8s.node.uid ?? ''})` };
      }
    }

    const extra: Record<string, string[]> = {};
    if (claims.jti) extra[extraKeys.credentialId] = [`JTI=${claims.jti}`];
    if (k8s.node?.name) {
      extra[extraKeys.nodeName] = [k8s.node.name];
      if (k8s.node.uid) extra[extraKeys.nodeUid] = [k8s.node.uid];
    }
    if (k8s.pod?.name && k8s.pod.uid) {
      extra[extraKeys.podName] = [k8s.pod.name];
      extra[extraKeys.podUid] = [k8s.pod.uid];
    }
    const user: UserInfo = {
      username: serviceAccountUsername(namespace, k8s.serviceaccount.name),
      groups: serviceAccountGroups(namespace),
    };
    if (k8s.serviceaccount.uid) user.uid = k8s.serviceaccount.uid;
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { result: 'authenticated', user: withAuthenticatedGroup(user), audiences };
  }

  /** Issuer, signature and claim types of a token; only these are cached, never the time or object checks. */
  private checkedClaims(token: string): { result: 'signed'; claims: ParsedClaims } | { result: 'rejected'; error: string } | { result: 'unrecognized' } {
    const cached = this.verifiedTokens.get(token);
    if (cached) return { result: 'signed', claims: cached };
    const parts = token.split('.');
    if (token.trimStart().startsWith('{') || parts.length !== 3) return { result: 'unrecognized' };
    const [encodedHeader, encodedPayload, encodedSignature] = parts;
    const payload = decodeJsonSegment(encodedPayload);
    // Only the issuer is read before the signature is checked: a foreign token is not ours to judge.
    if (!payload || payload.iss !== this.issuer) return { result: 'unrecognized' };
    const header = decodeJsonSegment(encodedHeader);
    if (!header) return { result: 'unrecognized' };

    if (typeof header.kid === 'string' && header.kid !== '' && header.kid !== this.keyId) {
      return { result: 'rejected', error: 'invalid signature, no keys found' };
    }
    const signature = decodeSegment(encodedSignature);
    const signed =
      header.alg === algorithm &&
      signature !== undefined &&
      signature.length === 64 &&
      verify('sha256', Buffer.from(`${encodedHeader}.${encodedPayload}`), { key: this.keys.publicKey, dsaEncoding: 'ieee-p1363' }, signature);
    if (!signed) return { result: 'rejected', error: 'go-jose/go-jose: error in cryptographic primitive' };

    const claims = readClaims(payload);
    if (!claims) return { result: 'rejected', error: 'go-jose/go-jose/jwt: validation failed, invalid claims' };
    if (this.verifiedTokens.size >= verifiedTokenCacheSize) this.verifiedTokens.delete(this.verifiedTokens.keys().next().value as string);
    this.verifiedTokens.set(token, claims);
    return { result: 'signed', claims };
  }

  /**
   * Answers a TokenRequest posted to `serviceaccounts/<name>/token` for the ServiceAccount `sa`
   * (read by the caller, so a missing one is the registry's 404), as kube's TokenREST.Create does:
   * defaults (audiences: the API server's; expirationSeconds: 3600), validation with kube's
   * messages, binding to a Pod, Secret or Node of the namespace, the optional maximum lifetime and
   * the extension of kubelet-requested pod-bound tokens.
   *
   * @throws StatusError: Invalid (422), BadRequest (400), NotFound (404) for a missing bound object,
   *   Conflict (409) for a bound object whose uid differs from the reference.
   */
  tokenRequest(sa: KubeObject, body: unknown, lookup: TokenObjectLookup, options: TokenRequestOptions = {}): TokenRequest {
    const name = sa.metadata.name ?? '';
    const namespace = sa.metadata.namespace ?? '';
    const request = parseTokenRequest(body);
    if (request.name && request.name !== name) {
      throw invalid(tokenRequestGroup, 'TokenRequest', name, [fieldErrors.invalid('metadata.name', request.name, 'must match the service account name if specified')]);
    }
    if (request.namespace && request.namespace !== namespace) {
      throw invalid(tokenRequestGroup, 'TokenRequest', name, [
        fieldErrors.invalid('metadata.namespace', request.namespace, 'must match the service account namespace if specified'),
      ]);
    }
    const audiences = request.audiences && request.audiences.length > 0 ? request.audiences : [...this.apiAudiences];
    const nowMs = this.now();

    const errs: FieldError[] = [];
    let expirationSeconds = request.expirationSeconds ?? defaultTokenExpirationSeconds;
    if (expirationSeconds < minTokenExpirationSeconds) {
      errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
    }
    if (expirationSeconds > maxTokenExpirationSeconds) {
      errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    }
    if (errs.length > 0) throw invalid(tokenRequestGroup, 'TokenRequest', '', errs);

    let boundObject: BoundObject | undefined;
    let node: ObjectRef | undefined;
    const ref = request.boundObjectRef;
    if (ref) {
      const { group, version } = parseGroupVersion(ref.apiVersion ?? '');
      const refName = ref.name ?? '';
      let uid: string;
      if (group === '' && ref.kind === 'Pod') {
        const pod = lookup.pod(namespace, refName);
        if (!pod) throw notFound({ group: '', resource: 'pods' }, refName);
        const podSpec = isJsonObject(pod.spec) ? pod.spec : {};
        if (name !== (typeof podSpec.serviceAccountName === 'string' ? podSpec.serviceAccountName : '')) {
          throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
        }
        uid = pod.metadata.uid ?? '';
        const nodeName = typeof podSpec.nodeName === 'string' ? podSpec.nodeName : '';
        if (nodeName) {
          // A missing Node still leaves its name in the token, as kube does.
          const nodeObject = lookup.node(nodeName);
          node = { name: nodeName, ...(nodeObject?.metadata.uid ? { uid: nodeObject.metadata.uid } : {}) };
        }
        boundObject = { kind: 'Pod', name: refName, uid };
      } else if (group === '' && ref.kind === 'Node') {
        const nodeObject = lookup.node(refName);
        if (!nodeObject) throw notFound({ group: '', resource: 'nodes' }, refName);
        uid = nodeObject.metadata.uid ?? '';
        boundObject = { kind: 'Node', name: refName, uid };
      } else if (group === '' && ref.kind === 'Secret') {
        const secret = lookup.secret(namespace, refName);
        if (!secret) throw notFound({ group: '', resource: 'secrets' }, refName);
        uid = secret.metadata.uid ?? '';
        boundObject = { kind: 'Secret', name: refName, uid };
      } else {
        throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
      }
      if (ref.uid && ref.uid !== uid) {
        throw conflict(
          { group, resource: ref.kind ?? '' },
          refName,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        );
      }
    }

    if (this.maxExpirationSeconds > 0 && expirationSeconds > this.maxExpirationSeconds) {
      options.warn?.(`requested expiration of ${expirationSeconds} seconds shortened to ${this.maxExpirationSeconds} seconds`);
      expirationSeconds = this.maxExpirationSeconds;
    }
    // Projected tokens the kubelet asks for live a year, stale (not invalid) after the hour it asked for.
    let tokenLifetime = expirationSeconds;
    let warnAfterSeconds: number | undefined;
    const kubeAudiences = audiences.every((a) => this.apiAudiences.includes(a));
    if (this.extendExpiration && boundObject?.kind === 'Pod' && expirationSeconds === warnOnlyBoundTokenExpirationSeconds && kubeAudiences) {
      warnAfterSeconds = expirationSeconds;
      tokenLifetime = expirationExtensionSeconds;
    }

    const issued = this.issueToken({
      namespace,
      name,
      uid: sa.metadata.uid ?? '',
      audiences,
      expirationSeconds: tokenLifetime,
      boundObject,
      node,
      warnAfterSeconds,
    });
    return {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: { name, namespace, creationTimestamp: rfc3339(nowMs) },
      spec: { audiences, expirationSeconds, boundObjectRef: ref ? compactRef(ref) : null },
      status: { token: issued.token, expirationTimestamp: rfc3339(nowMs + expirationSeconds * 1000) },
    };
  }
}

/**
 * A {@link TokenObjectLookup} over the store's keys (`/core/serviceaccounts/<ns>/<name>`, pods,
 * secrets, `/core/nodes/<name>`).
 */
export function storeLookup(store: { get(key: string): { value: KubeObject } | undefined }): TokenObjectLookup {
  return {
    serviceAccount: (namespace, name) => store.get(`/core/serviceaccounts/${namespace}/${name}`)?.value,
    pod: (namespace, name) => store.get(`/core/pods/${namespace}/${name}`)?.value,
    secret: (namespace, name) => store.get(`/core/secrets/${namespace}/${name}`)?.value,
    node: (name) => store.get(`/core/nodes/${name}`)?.value,
  };
}

const tokenRequestGroup = 'authentication.k8s.io';

function ref(name: string, uid: string | undefined): ObjectRef {
  return uid ? { name, uid } : { name };
}

function b64json(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Unpadded base64url (Go's RawURLEncoding), strictly. */
function decodeSegment(segment: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(segment) || segment.length % 4 === 1) return undefined;
  return Buffer.from(segment, 'base64url');
}

function decodeJsonSegment(segment: string): Record<string, unknown> | undefined {
  const bytes = decodeSegment(segment);
  if (!bytes) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface ParsedClaims {
  aud: string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti: string;
  kubernetes: { namespace: string; serviceaccount: ObjectRef; pod?: ObjectRef; secret?: ObjectRef; node?: ObjectRef };
}

/** The claims kube reads, typed; undefined when one has the wrong type (go-jose fails to unmarshal it). */
function readClaims(payload: Record<string, unknown>): ParsedClaims | undefined {
  const aud = typeof payload.aud === 'string' ? [payload.aud] : payload.aud === undefined || payload.aud === null ? [] : payload.aud;
  if (!Array.isArray(aud) || !aud.every((a): a is string => typeof a === 'string')) return undefined;
  const dates: Array<number | undefined> = [];
  for (const key of ['exp', 'nbf', 'iat'] as const) {
    const v = payload[key];
    if (v !== undefined && v !== null && typeof v !== 'number') return undefined;
    dates.push(typeof v === 'number' ? v : undefined);
  }
  if (payload.jti !== undefined && typeof payload.jti !== 'string') return undefined;
  const k8s = payload['kubernetes.io'] ?? {};
  if (!isJsonObject(k8s)) return undefined;
  const readRef = (v: unknown): ObjectRef | undefined | null => {
    if (v === undefined || v === null) return undefined;
    if (!isJsonObject(v)) return null;
    if ((v.name !== undefined && typeof v.name !== 'string') || (v.uid !== undefined && typeof v.uid !== 'string')) return null;
    return ref(typeof v.name === 'string' ? v.name : '', typeof v.uid === 'string' ? v.uid : undefined);
  };
  const serviceaccount = readRef(k8s.serviceaccount) ?? null;
  const pod = readRef(k8s.pod);
  const secret = readRef(k8s.secret);
  const node = readRef(k8s.node);
  if (serviceaccount === null && k8s.serviceaccount !== undefined) return undefined;
  if (pod === null || secret === null || node === null) return undefined;
  if (k8s.namespace !== undefined && typeof k8s.namespace !== 'string') return undefined;
  return {
    aud,
    exp: dates[0],
    nbf: dates[1],
    iat: dates[2],
    jti: typeof payload.jti === 'string' ? payload.jti : '',
    kubernetes: {
      namespace: typeof k8s.namespace === 'string' ? k8s.namespace : '',
      serviceaccount: serviceaccount ?? { name: '' },
      ...(pod && { pod }),
      ...(secret && { secret }),
      ...(node && { node }),
    },
  };
}

/** Whether an object's deletion began before `beforeMs` (kube tolerates a deletion within the leeway). */
function deletedLongAgo(object: KubeObject, beforeMs: number): boolean {
  const ts = object.metadata.deletionTimestamp;
  return typeof ts === 'string' && Date.parse(ts) < beforeMs;
}

/** Go's `%q` of a []string: `["a" "b"]`. */
function goQuoteList(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** metav1.Time on the wire: RFC 3339 in UTC, whole seconds. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** schema.ParseGroupVersion, leniently as FromAPIVersionAndKind uses it (an unparsable one is empty). */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

function compactRef(ref: BoundObjectReference): BoundObjectReference {
  const out: BoundObjectReference = {};
  if (ref.kind) out.kind = ref.kind;
  if (ref.apiVersion) out.apiVersion = ref.apiVersion;
  if (ref.name) out.name = ref.name;
  if (ref.uid) out.uid = ref.uid;
  return out;
}

interface ParsedTokenRequest {
  name: string;
  namespace: string;
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectReference;
}

/** Reads the fields of a TokenRequest body; a wrongly typed field is the 400 kube's JSON decoder gives. */
function parseTokenRequest(body: unknown): ParsedTokenRequest {
  if (body === undefined || body === null) return { name: '', namespace: '' };
  if (!isJsonObject(body)) throw decodeError('TokenRequest', '', 'object', body);
  const meta = body.metadata ?? {};
  if (!isJsonObject(meta)) throw decodeError('TokenRequest', 'metadata', 'v1.ObjectMeta', meta);
  const name = optionalString(meta.name, 'ObjectMeta', 'metadata.name');
  const namespace = optionalString(meta.namespace, 'ObjectMeta', 'metadata.namespace');
  const spec = body.spec ?? {};
  if (!isJsonObject(spec)) throw decodeError('TokenRequest', 'spec', 'v1.TokenRequestSpec', spec);
  const out: ParsedTokenRequest = { name, namespace };

  if (spec.audiences !== undefined && spec.audiences !== null) {
    if (!Array.isArray(spec.audiences)) throw decodeError('TokenRequestSpec', 'spec.audiences', '[]string', spec.audiences);
    for (const a of spec.audiences) if (typeof a !== 'string') throw decodeError('TokenRequestSpec', 'spec.audiences', 'string', a);
    out.audiences = spec.audiences as string[];
  }
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds !== null) {
    const v = spec.expirationSeconds;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw decodeError('TokenRequestSpec', 'spec.expirationSeconds', 'int64', v);
    out.expirationSeconds = v;
  }
  if (spec.boundObjectRef !== undefined && spec.boundObjectRef !== null) {
    const r = spec.boundObjectRef;
    if (!isJsonObject(r)) throw decodeError('TokenRequestSpec', 'spec.boundObjectRef', 'v1.BoundObjectReference', r);
    out.boundObjectRef = {
      kind: optionalString(r.kind, 'BoundObjectReference', 'spec.boundObjectRef.kind'),
      apiVersion: optionalString(r.apiVersion, 'BoundObjectReference', 'spec.boundObjectRef.apiVersion'),
      name: optionalString(r.name, 'BoundObjectReference', 'spec.boundObjectRef.name'),
      uid: optionalString(r.uid, 'BoundObjectReference', 'spec.boundObjectRef.uid'),
    };
  }
  return out;
}

function optionalString(value: unknown, struct: string, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw decodeError(struct, field, 'string', value);
  return value;
}

/** The 400 of kube's JSON decoder for a value of the wrong type. */
function decodeError(struct: string, field: string, goType: string, value: unknown): Error {
  const jsonType = Array.isArray(value) ? 'array' : typeof value === 'number' ? `number ${value}` : typeof value === 'object' ? 'object' : typeof value;
  const where = field ? ` into Go struct field ${struct}.${field} of type ${goType}` : ` into Go value of type v1.TokenRequest`;
  return badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ${jsonType}${where}`);
}
