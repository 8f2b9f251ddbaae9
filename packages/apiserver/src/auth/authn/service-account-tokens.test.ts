import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { StatusError, type KubeObject } from '@operant/apimachinery';
import {
  ServiceAccountTokenAuthority,
  defaultIssuer,
  loadOrCreateServiceAccountKey,
  storeLookup,
  type TokenObjectLookup,
  type TokenVerification,
} from './service-account-tokens.js';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

/** A lookup over a map keyed like the store, mutable by the tests. */
class FakeObjects {
  readonly objects = new Map<string, KubeObject>();
  readonly lookup: TokenObjectLookup = storeLookup({ get: (key) => (this.objects.has(key) ? { value: this.objects.get(key)! } : undefined) });
  put(resource: string, namespace: string, name: string, uid: string, extra: Partial<KubeObject> = {}): KubeObject {
    const obj: KubeObject = { metadata: { name, ...(namespace && { namespace }), uid }, ...extra };
    this.objects.set(namespace ? `/core/${resource}/${namespace}/${name}` : `/core/${resource}/${name}`, obj);
    return obj;
  }
}

function decodePart(token: string, i: number): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[i], 'base64url').toString('utf8')) as Record<string, unknown>;
}

function expectRejected(v: TokenVerification, error: string | RegExp): void {
  assert.equal(v.result, 'rejected', JSON.stringify(v));
  if (v.result !== 'rejected') return;
  if (typeof error === 'string') assert.equal(v.error, error);
  else assert.match(v.error, error);
}

function statusOf(fn: () => unknown): { code: number; reason?: string; message?: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { code: err.code, reason: err.reason, message: err.status.message };
  }
  assert.fail('expected a StatusError');
}

describe('ServiceAccount tokens', () => {
  let now = T0;
  let tokens: ServiceAccountTokenAuthority;
  let objects: FakeObjects;
  let sa: KubeObject;

  before(async () => {
    tokens = new ServiceAccountTokenAuthority(await loadOrCreateServiceAccountKey(undefined), { now: () => now });
  });

  const reset = (): void => {
    now = T0;
    objects = new FakeObjects();
    sa = objects.put('serviceaccounts', 'default', 'op', 'sa-uid-1');
  };

  it('issues a JWT shaped like kube-apiserver\'s and verifies it back', () => {
    reset();
    const { token, claims, expiresAt } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 3600 });
    assert.deepEqual(decodePart(token, 0), { alg: 'ES256', kid: tokens.keyId });
    const payload = decodePart(token, 1);
    // Go marshals the claims from a map: keys in alphabetical order.
    assert.deepEqual(Object.keys(payload), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    assert.deepEqual(payload, {
      aud: [defaultIssuer],
      exp: T0 / 1000 + 3600,
      iat: T0 / 1000,
      iss: 'https://kubernetes.default.svc.cluster.local',
      jti: claims.jti,
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'op', uid: 'sa-uid-1' } },
      nbf: T0 / 1000,
      sub: 'system:serviceaccount:default:op',
    });
    assert.match(claims.jti, /^[0-9a-f-]{36}$/);
    assert.equal(expiresAt.getTime(), T0 + 3600_000);
    assert.equal(Buffer.from(token.split('.')[2], 'base64url').length, 64);

    const v = tokens.verifyToken(token, objects.lookup);
    assert.deepEqual(v, {
      result: 'authenticated',
      audiences: [defaultIssuer],
      user: {
        username: 'system:serviceaccount:default:op',
        uid: 'sa-uid-1',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
      },
    });
  });

  it('signs with a signature openssl verifies (ES256 over the JWS signing input)', async (t) => {
    if (!existsSync('/usr/bin/openssl')) return t.skip('no openssl');
    reset();
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 3600 });
    const [h, p, s] = token.split('.');
    const raw = Buffer.from(s, 'base64url');
    // JWS carries r||s; openssl wants the DER Ecdsa-Sig-Value.
    const int = (b: Buffer): Buffer => {
      let v = b;
      while (v.length > 1 && v[0] === 0 && !(v[1] & 0x80)) v = v.subarray(1);
      if (v[0] & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
      return Buffer.concat([Buffer.from([0x02, v.length]), v]);
    };
    const body = Buffer.concat([int(raw.subarray(0, 32)), int(raw.subarray(32))]);
    const der = Buffer.concat([Buffer.from([0x30, body.length]), body]);
    const dir = await mkdtemp(join(tmpdir(), 'operant-jwt-'));
    try {
      await writeFile(join(dir, 'pub.pem'), tokens.publicKeyPem);
      await writeFile(join(dir, 'sig.der'), der);
      await writeFile(join(dir, 'input'), `${h}.${p}`);
      const { stdout } = await promisify(execFile)('openssl', ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig.der'), join(dir, 'input')]);
      assert.match(stdout, /Verified OK/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accepts an expired token within the minute of leeway, then refuses it', () => {
    reset();
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 });
    now = T0 + 600_000 + 59_000;
    assert.equal(tokens.verifyToken(token, objects.lookup).result, 'authenticated');
    now = T0 + 600_000 + 61_000;
    expectRejected(tokens.verifyToken(token, objects.lookup), 'service account token has expired');
  });

  it('refuses a token not valid yet (issued in the future beyond the leeway)', () => {
    reset();
    now = T0 + 120_000;
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 });
    now = T0;
    expectRejected(tokens.verifyToken(token, objects.lookup), 'service account token is not valid yet');
  });

  it('refuses a token for another audience, and accepts it for that audience', () => {
    reset();
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600, audiences: ['vault'] });
    expectRejected(
      tokens.verifyToken(token, objects.lookup),
      'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
    );
    const v = tokens.verifyToken(token, objects.lookup, { audiences: ['other', 'vault'] });
    assert.equal(v.result, 'authenticated');
    if (v.result === 'authenticated') assert.deepEqual(v.audiences, ['vault']);
  });

  it('refuses the token of a deleted, recreated or terminating ServiceAccount', () => {
    reset();
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 });
    objects.put('serviceaccounts', 'default', 'op', 'sa-uid-2');
    expectRejected(tokens.verifyToken(token, objects.lookup), 'service account UID (sa-uid-2) does not match claim (sa-uid-1)');
    objects.objects.clear();
    expectRejected(tokens.verifyToken(token, objects.lookup), 'serviceaccounts "op" not found');
    // Deleting (finalizers pending) for longer than the leeway.
    objects.put('serviceaccounts', 'default', 'op', 'sa-uid-1', {});
    objects.objects.get('/core/serviceaccounts/default/op')!.metadata.deletionTimestamp = new Date(T0 - 61_000).toISOString();
    expectRejected(tokens.verifyToken(token, objects.lookup), 'service account default/op has been deleted');
    objects.objects.get('/core/serviceaccounts/default/op')!.metadata.deletionTimestamp = new Date(T0 - 30_000).toISOString();
    assert.equal(tokens.verifyToken(token, objects.lookup).result, 'authenticated');
  });

  it('refuses a tampered payload, a tampered signature, another key and alg none', async () => {
    reset();
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 });
    const [h, p, s] = token.split('.');
    const payload = decodePart(token, 1);
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url');
    expectRejected(tokens.verifyToken(`${h}.${forged}.${s}`, objects.lookup), 'go-jose/go-jose: error in cryptographic primitive');
    const sig = Buffer.from(s, 'base64url');
    sig[10] ^= 1;
    expectRejected(tokens.verifyToken(`${h}.${p}.${sig.toString('base64url')}`, objects.lookup), /cryptographic primitive/);
    expectRejected(tokens.verifyToken(`${h}.${p}.`, objects.lookup), /cryptographic primitive/);
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    expectRejected(tokens.verifyToken(`${none}.${p}.`, objects.lookup), /cryptographic primitive/);

    const other = new ServiceAccountTokenAuthority(await loadOrCreateServiceAccountKey(undefined), { now: () => now });
    const theirs = other.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 }).token;
    expectRejected(tokens.verifyToken(theirs, objects.lookup), 'invalid signature, no keys found');
    const [, tp, ts] = theirs.split('.');
    const noKid = Buffer.from(JSON.stringify({ alg: 'ES256' })).toString('base64url');
    expectRejected(tokens.verifyToken(`${noKid}.${tp}.${ts}`, objects.lookup), /cryptographic primitive/);
  });

  it('leaves tokens of other issuers and opaque tokens to other authenticators', async () => {
    reset();
    const foreign = new ServiceAccountTokenAuthority(await loadOrCreateServiceAccountKey(undefined), { issuer: 'https://elsewhere', now: () => now });
    const { token } = foreign.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 });
    assert.deepEqual(tokens.verifyToken(token, objects.lookup), { result: 'unrecognized' });
    assert.deepEqual(tokens.verifyToken('admin-token-abc', objects.lookup), { result: 'unrecognized' });
    assert.deepEqual(tokens.verifyToken('a.b.c', objects.lookup), { result: 'unrecognized' });
    assert.deepEqual(tokens.verifyToken('{"a":1}.b.c', objects.lookup), { result: 'unrecognized' });
  });

  it('binds tokens to a pod (with its node) and a secret, and invalidates them with the object', () => {
    reset();
    objects.put('pods', 'default', 'web', 'pod-uid-1', { spec: { serviceAccountName: 'op', nodeName: 'node-a' } });
    objects.put('nodes', '', 'node-a', 'node-uid-1');
    objects.put('secrets', 'default', 's', 'secret-uid-1');
    const bound = tokens.tokenRequest(sa, { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'pod-uid-1' } } }, objects.lookup);
    const claim = decodePart(bound.status.token, 1)['kubernetes.io'];
    assert.deepEqual(claim, {
      namespace: 'default',
      node: { name: 'node-a', uid: 'node-uid-1' },
      pod: { name: 'web', uid: 'pod-uid-1' },
      serviceaccount: { name: 'op', uid: 'sa-uid-1' },
    });
    const v = tokens.verifyToken(bound.status.token, objects.lookup);
    assert.equal(v.result, 'authenticated');
    if (v.result === 'authenticated') {
      assert.deepEqual(Object.keys(v.user.extra ?? {}), [
        'authentication.kubernetes.io/credential-id',
        'authentication.kubernetes.io/node-name',
        'authentication.kubernetes.io/node-uid',
        'authentication.kubernetes.io/pod-name',
        'authentication.kubernetes.io/pod-uid',
      ]);
      assert.deepEqual(v.user.extra?.['authentication.kubernetes.io/pod-name'], ['web']);
      assert.deepEqual(v.user.extra?.['authentication.kubernetes.io/node-uid'], ['node-uid-1']);
    }
    objects.put('pods', 'default', 'web', 'pod-uid-2', { spec: { serviceAccountName: 'op' } });
    expectRejected(tokens.verifyToken(bound.status.token, objects.lookup), 'pod UID (pod-uid-2) does not match service account pod ref claim (pod-uid-1)');
    objects.objects.delete('/core/pods/default/web');
    expectRejected(tokens.verifyToken(bound.status.token, objects.lookup), 'service account token has been invalidated');

    const secretBound = tokens.tokenRequest(sa, { spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } } }, objects.lookup);
    assert.equal(tokens.verifyToken(secretBound.status.token, objects.lookup).result, 'authenticated');
    objects.objects.delete('/core/secrets/default/s');
    expectRejected(tokens.verifyToken(secretBound.status.token, objects.lookup), 'service account token has been invalidated');
  });

  describe('TokenRequest', () => {
    it('defaults to an hour for the API server audience, as kubectl create token gets it', () => {
      reset();
      const out = tokens.tokenRequest(sa, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { creationTimestamp: null }, spec: {} }, objects.lookup);
      assert.deepEqual({ ...out, status: { ...out.status, token: '<token>' } }, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: { name: 'op', namespace: 'default', creationTimestamp: '2025-01-15T12:00:00Z' },
        spec: { audiences: [defaultIssuer], expirationSeconds: 3600, boundObjectRef: null },
        status: { token: '<token>', expirationTimestamp: '2025-01-15T13:00:00Z' },
      });
      assert.equal(tokens.verifyToken(out.status.token, objects.lookup).result, 'authenticated');
      // An empty body (and kubectl's explicit nulls) mean the same.
      assert.equal(tokens.tokenRequest(sa, undefined, objects.lookup).spec.expirationSeconds, 3600);
      const withNulls = tokens.tokenRequest(sa, { spec: { audiences: null, expirationSeconds: 600, boundObjectRef: null } }, objects.lookup);
      assert.equal(withNulls.status.expirationTimestamp, '2025-01-15T12:10:00Z');
    });

    it('refuses lifetimes under ten minutes and over 2^32 seconds in kube\'s words', () => {
      reset();
      assert.deepEqual(statusOf(() => tokens.tokenRequest(sa, { spec: { expirationSeconds: 10 } }, objects.lookup)), {
        code: 422,
        reason: 'Invalid',
        message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
      });
      assert.equal(
        statusOf(() => tokens.tokenRequest(sa, { spec: { expirationSeconds: 2 ** 32 + 1 } }, objects.lookup)).message,
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
      );
      assert.deepEqual(statusOf(() => tokens.tokenRequest(sa, { spec: { expirationSeconds: 'x' } }, objects.lookup)), {
        code: 400,
        reason: 'BadRequest',
        message: 'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64',
      });
    });

    it('checks the body\'s name and namespace against the ServiceAccount', () => {
      reset();
      assert.equal(
        statusOf(() => tokens.tokenRequest(sa, { metadata: { name: 'default' } }, objects.lookup)).message,
        'TokenRequest.authentication.k8s.io "op" is invalid: metadata.name: Invalid value: "default": must match the service account name if specified',
      );
      assert.equal(
        statusOf(() => tokens.tokenRequest(sa, { metadata: { name: 'op', namespace: 'kube-system' } }, objects.lookup)).message,
        'TokenRequest.authentication.k8s.io "op" is invalid: metadata.namespace: Invalid value: "kube-system": must match the service account namespace if specified',
      );
    });

    it('refuses bindings to missing, foreign, recreated or unsupported objects', () => {
      reset();
      objects.put('pods', 'default', 'other', 'pod-uid-9', { spec: { serviceAccountName: 'default' } });
      const bind = (ref: Record<string, string>): ReturnType<typeof statusOf> => statusOf(() => tokens.tokenRequest(sa, { spec: { boundObjectRef: ref } }, objects.lookup));
      assert.deepEqual(bind({ kind: 'Pod', apiVersion: 'v1', name: 'nope' }), { code: 404, reason: 'NotFound', message: 'pods "nope" not found' });
      assert.deepEqual(bind({ kind: 'Pod', apiVersion: 'v1', name: 'other' }), {
        code: 400,
        reason: 'BadRequest',
        message: 'cannot bind token for serviceaccount "op" to pod running with different serviceaccount name.',
      });
      objects.put('secrets', 'default', 's', 'secret-uid-1');
      assert.deepEqual(bind({ kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'secret-uid-0' }), {
        code: 409,
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (secret-uid-0) does not match the UID in record. The object might have been deleted and then recreated',
      });
      assert.deepEqual(bind({ kind: 'Deployment', apiVersion: 'apps/v1', name: 'd' }), {
        code: 400,
        reason: 'BadRequest',
        message: 'cannot bind token to object of type apps/v1, Kind=Deployment',
      });
      assert.equal(bind({ kind: 'ConfigMap', apiVersion: 'v1', name: 'c' }).message, 'cannot bind token to object of type /v1, Kind=ConfigMap');
    });

    it('extends the kubelet\'s 3607-second pod-bound tokens to a year with warnafter', () => {
      reset();
      objects.put('pods', 'default', 'web', 'pod-uid-1', { spec: { serviceAccountName: 'op' } });
      const out = tokens.tokenRequest(sa, { spec: { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } } }, objects.lookup);
      const payload = decodePart(out.status.token, 1);
      assert.equal(payload.exp, T0 / 1000 + 365 * 24 * 3600);
      assert.equal((payload['kubernetes.io'] as Record<string, unknown>).warnafter, T0 / 1000 + 3607);
      assert.equal(out.status.expirationTimestamp, '2025-01-15T13:00:07Z');
      // Unbound, or for another audience: no extension.
      const plain = tokens.tokenRequest(sa, { spec: { expirationSeconds: 3607 } }, objects.lookup);
      assert.equal(decodePart(plain.status.token, 1).exp, T0 / 1000 + 3607);
    });

    it('shortens lifetimes to the configured maximum with a warning', async () => {
      reset();
      const capped = new ServiceAccountTokenAuthority(await loadOrCreateServiceAccountKey(undefined), { now: () => now, maxExpirationSeconds: 7200 });
      const warnings: string[] = [];
      const out = capped.tokenRequest(sa, { spec: { expirationSeconds: 86400 } }, objects.lookup, { warn: (w) => warnings.push(w) });
      assert.equal(out.spec.expirationSeconds, 7200);
      assert.deepEqual(warnings, ['requested expiration of 86400 seconds shortened to 7200 seconds']);
    });
  });

  describe('signing key', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'operant-sa-key-'));
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('is persisted as pki/sa.key (0600) and reused, so tokens survive a restart', async () => {
      reset();
      const first = await ServiceAccountTokenAuthority.load(dir, { now: () => now });
      const { token } = first.issueToken({ namespace: 'default', name: 'op', uid: 'sa-uid-1', expirationSeconds: 600 });
      const path = join(dir, 'pki', 'sa.key');
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.match(await readFile(path, 'utf8'), /^-----BEGIN PRIVATE KEY-----/);
      const second = await ServiceAccountTokenAuthority.load(dir, { now: () => now });
      assert.equal(second.keyId, first.keyId);
      assert.equal(second.verifyToken(token, objects.lookup).result, 'authenticated');
    });

    it('refuses to replace a key file it cannot use', async () => {
      const bad = await mkdtemp(join(tmpdir(), 'operant-sa-key-bad-'));
      try {
        await mkdir(join(bad, 'pki'));
        const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
        await writeFile(join(bad, 'pki', 'sa.key'), rsa);
        await assert.rejects(loadOrCreateServiceAccountKey(bad), /not an ECDSA P-256 private key/);
      } finally {
        await rm(bad, { recursive: true, force: true });
      }
    });
  });
});
