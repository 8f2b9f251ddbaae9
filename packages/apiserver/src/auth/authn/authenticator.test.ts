import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPrivateKey, webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { KubeObject } from '@operant/apimachinery';
import { startApiServer, type RunningApiServer } from '../../server.js';
import { generateCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAndKey } from '../../tls/certificates.js';
import { authenticate, authenticationContext, authenticateRequest, bearerToken, tokenReview, type AuthenticationContext } from './authenticator.js';
import { ServiceAccountTokenAuthority, storeLookup } from './service-account-tokens.js';

const KUBECTL = '/usr/bin/kubectl';
const ADMIN_TOKEN = 'admin-token-0123456789';

/** What the embedded server makes of a request's credentials: its SelfSubjectReview, or the refusal. */
interface Review {
  status: number;
  body: Record<string, unknown>;
  user?: { username: string; groups?: string[]; extra?: Record<string, string[]> };
  reused: boolean;
}

/** A client certificate signed by `ca` whose validity ended yesterday (the library issues only current ones). */
async function expiredClientCertificate(ca: CertificateAndKey, commonName: string): Promise<CertificateAndKey> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  const { subtle } = webcrypto;
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const caDer = createPrivateKey(ca.keyPem).export({ format: 'der', type: 'pkcs8' });
  const caKey = await subtle.importKey('pkcs8', caDer, algorithm, false, ['sign']);
  const keys = await subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const day = 86_400_000;
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${commonName}`,
    issuer: new x509.X509Certificate(ca.certPem).subject,
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - 2 * day),
    notAfter: new Date(Date.now() - day),
    extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
  });
  const der = Buffer.from(await subtle.exportKey('pkcs8', keys.privateKey));
  return { certPem: cert.toString('pem'), keyPem: `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n` };
}

describe('authentication, through the embedded server', () => {
  let ca: CertificateAndKey;
  let alice: CertificateAndKey;
  let bob: CertificateAndKey;
  let server: RunningApiServer;
  let dir: string;

  before(async () => {
    ca = await generateCertificateAuthority();
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    alice = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['dev', 'ops'] });
    bob = await issueClientCertificate(ca, { commonName: 'bob', organizations: [] });
    // The test's CA signs the serving certificate, so client certificates it issues authenticate too.
    server = await startApiServer({ port: 0, servingMaterial: { caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem } });
    dir = await mkdtemp(join(tmpdir(), 'operant-authn-'));
    // bob may act as jane and in group devs, and as nobody else (RBAC's impersonate verb).
    await api('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'impersonate-jane' },
      rules: [
        { apiGroups: [''], resources: ['users'], resourceNames: ['jane'], verbs: ['impersonate'] },
        { apiGroups: [''], resources: ['groups'], resourceNames: ['devs'], verbs: ['impersonate'] },
      ],
    });
    await api('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'bob-impersonates-jane' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-jane' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'bob' }],
    });
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** A request to the server with the given credentials (none by default). */
  function send(method: string, path: string, options: https.RequestOptions = {}, body?: unknown): Promise<Review> {
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, server.url), { method, ca: server.caPem, agent: false, ...options, headers: { 'content-type': 'application/json', ...options.headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const parsed = JSON.parse(text) as Record<string, unknown>;
          const user = (parsed.status as { userInfo?: Review['user'] } | undefined)?.userInfo;
          resolve({ status: res.statusCode ?? 0, body: parsed, user, reused: (res.socket as TLSSocket).isSessionReused() });
        });
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }
  async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await send(method, path, { headers: { authorization: `Bearer ${server.adminToken}` } }, body);
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
  /** Who the server takes the request's credentials for: `kubectl auth whoami`'s SelfSubjectReview. */
  const whoami = (options: https.RequestOptions = {}): Promise<Review> =>
    send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', options, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  const withCert = (cert: CertificateAndKey, headers: Record<string, string> = {}): https.RequestOptions => ({ cert: cert.certPem, key: cert.keyPem, headers });
  const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

  it('reads a client certificate signed by the CA: CN is the user, O the groups', async () => {
    const res = await whoami(withCert(alice));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.user?.username, 'alice');
    assert.deepEqual(res.user?.groups, ['dev', 'ops', 'system:authenticated']);
    assert.match(res.user?.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^X509SHA256=[0-9a-f]{64}$/);
  });

  it('keeps the certificate identity on a resumed TLS session', async () => {
    const agent = new https.Agent({ keepAlive: false, maxCachedSessions: 4 });
    try {
      const seen: Review[] = [];
      for (let i = 0; i < 3; i++) seen.push(await whoami({ ...withCert(alice), agent }));
      assert.deepEqual(seen.map((r) => r.user?.username), ['alice', 'alice', 'alice']);
      assert.ok(seen.some((r) => r.reused), 'a later connection resumed the TLS session');
    } finally {
      agent.destroy();
    }
  });

  it('prefers a valid client certificate over a bad token', async () => {
    const res = await whoami(withCert(alice, { authorization: 'Bearer nonsense' }));
    assert.equal(res.user?.username, 'alice');
  });

  it('refuses a client certificate of another CA (401, not anonymous), but a good token on the same request authenticates it', async () => {
    const otherCa = await generateCertificateAuthority();
    const mallory = await issueClientCertificate(otherCa, { commonName: 'alice', organizations: ['system:masters'] });
    const res = await whoami(withCert(mallory));
    assert.deepEqual([res.status, res.body], [401, unauthorized]);
    const withToken = await whoami(withCert(mallory, { authorization: `Bearer ${server.adminToken}` }));
    assert.equal(withToken.user?.username, 'kubernetes-admin');
  });

  it('refuses an expired client certificate', async () => {
    const res = await whoami(withCert(await expiredClientCertificate(ca, 'alice')));
    assert.deepEqual([res.status, res.body], [401, unauthorized]);
  });

  it('authenticates the admin token as kubernetes-admin in system:masters', async () => {
    const res = await whoami({ headers: { authorization: `Bearer ${server.adminToken}` } });
    assert.deepEqual(res.user, { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
  });

  it('authenticates a ServiceAccount token, and refuses it once the ServiceAccount is gone', async () => {
    await api('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'op' } });
    const request = await api('POST', '/api/v1/namespaces/default/serviceaccounts/op/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
    const token = (request.status as { token: string }).token;
    const res = await whoami({ headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.user?.username, 'system:serviceaccount:default:op');
    assert.deepEqual(res.user?.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    // Deleted and made again: a new uid, which the old token's claim no longer matches.
    await api('DELETE', '/api/v1/namespaces/default/serviceaccounts/op');
    await api('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'op' } });
    const refused = await whoami({ headers: { authorization: `Bearer ${token}` } });
    assert.deepEqual([refused.status, refused.body], [401, unauthorized]);
  });

  it('refuses an unknown token, and requests without credentials (anonymous requests are off, as with --anonymous-auth=false)', async () => {
    assert.deepEqual([(await whoami({ headers: { authorization: 'Bearer nonsense' } })).status, (await whoami()).status], [401, 401]);
    // Not a bearer header: no credentials.
    const basic = await whoami({ headers: { authorization: 'Basic YTpi' } });
    assert.deepEqual([basic.status, basic.body], [401, unauthorized]);
  });

  it('impersonates when RBAC allows it and answers 403 in kube\'s words when not', async () => {
    const ok = await whoami(withCert(bob, { 'impersonate-user': 'jane', 'impersonate-group': 'devs' }));
    assert.deepEqual(ok.user, { username: 'jane', groups: ['devs', 'system:authenticated'] });
    const denied = await whoami(withCert(bob, { 'impersonate-user': 'root' }));
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'users "root" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('a request handed over in the process (serveInProcess) is authenticated by its Authorization header alone, not by a certificate shown to the server that took it in', async () => {
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const inner = await startApiServer({ port: 0, privateSocket: true, servingMaterial: { caPem: ca.certPem, certPem: serving.certPem, keyPem: serving.keyPem } });
    // Another HTTPS server of the process that asks for client certificates and hands every request over.
    const front = https.createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      if (!inner.serveInProcess!(req, res)) res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const url = `https://127.0.0.1:${(front.address() as { port: number }).port}`;
      const ask = (options: https.RequestOptions): Promise<Review> =>
        new Promise((resolve, reject) => {
          const req = https.request(new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', url), { method: 'POST', ca: ca.certPem, agent: false, ...options, headers: { 'content-type': 'application/json', ...options.headers } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              const parsed = JSON.parse(text) as Record<string, unknown>;
              resolve({ status: res.statusCode ?? 0, body: parsed, user: (parsed.status as { userInfo?: Review['user'] } | undefined)?.userInfo, reused: false });
            });
          });
          req.on('error', reject);
          req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
        });
      // On the private socket there is no TLS: a certificate alone is no credential.
      const certOnly = await ask(withCert(alice));
      assert.equal(certOnly.status, 401, JSON.stringify(certOnly.body));
      assert.deepEqual(certOnly.body, unauthorized);
      // A certificate beside a token: the token's user, as on the socket.
      const both = await ask(withCert(alice, { authorization: `Bearer ${inner.adminToken}` }));
      assert.equal(both.status, 201, JSON.stringify(both.body));
      assert.equal(both.user?.username, 'kubernetes-admin');
      // Impersonation headers are read as on the socket.
      const as = await ask({ headers: { authorization: `Bearer ${inner.adminToken}`, 'impersonate-user': 'jane' } });
      assert.equal(as.user?.username, 'jane');
    } finally {
      await new Promise<void>((resolve) => front.close(() => resolve()));
      front.closeAllConnections();
      await inner.stop();
    }
  });

  describe('with the real kubectl', () => {
    const kubeconfig = (user: Record<string, string>): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') } }],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'c',
      });
    const certUser = (cert: CertificateAndKey): Record<string, string> => ({
      'client-certificate-data': Buffer.from(cert.certPem).toString('base64'),
      'client-key-data': Buffer.from(cert.keyPem).toString('base64'),
    });
    const kubectl = async (config: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number }> => {
      const path = join(dir, `kubeconfig-${Math.random().toString(36).slice(2)}`);
      await writeFile(path, config, { mode: 0o600 });
      try {
        const { stdout, stderr } = await promisify(execFile)(KUBECTL, ['--kubeconfig', path, ...args], { timeout: 30_000, env: { ...process.env, HOME: dir } });
        return { stdout, stderr, code: 0 };
      } catch (err) {
        const e = err as { stdout: string; stderr: string; code: number };
        return { stdout: e.stdout, stderr: e.stderr, code: e.code };
      }
    };

    it('`kubectl auth whoami` with a client certificate', { skip: !existsSync(KUBECTL) && 'kubectl not found at /usr/bin/kubectl' }, async () => {
      const { stdout, stderr, code } = await kubectl(kubeconfig(certUser(alice)), ['auth', 'whoami', '-o', 'json']);
      assert.equal(code, 0, stderr);
      const review = JSON.parse(stdout) as { kind: string; status: { userInfo: { username: string; groups: string[] } } };
      assert.equal(review.kind, 'SelfSubjectReview');
      assert.equal(review.status.userInfo.username, 'alice');
      assert.deepEqual(review.status.userInfo.groups, ['dev', 'ops', 'system:authenticated']);
    });

    it('`kubectl auth whoami` with a ServiceAccount token, and --as / --as-group', { skip: !existsSync(KUBECTL) && 'kubectl not found at /usr/bin/kubectl' }, async () => {
      await api('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'cli' } });
      const request = await api('POST', '/api/v1/namespaces/default/serviceaccounts/cli/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
      const sa = await kubectl(kubeconfig({ token: (request.status as { token: string }).token }), ['auth', 'whoami']);
      assert.equal(sa.code, 0, sa.stderr);
      assert.match(sa.stdout, /Username\s+system:serviceaccount:default:cli/);
      assert.match(sa.stdout, /Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]/);

      const asJane = await kubectl(kubeconfig({ token: server.adminToken }), ['auth', 'whoami', '--as=jane', '--as-group=devs', '-o', 'json']);
      assert.equal(asJane.code, 0, asJane.stderr);
      assert.deepEqual((JSON.parse(asJane.stdout) as { status: unknown }).status, { userInfo: { username: 'jane', groups: ['devs', 'system:authenticated'] } });

      // `auth whoami` hides a 403 behind its own message, and discovery (as in kube) behind "unknown"; `get --raw` shows the server's.
      const denied = await kubectl(kubeconfig(certUser(bob)), ['get', '--raw', '/api', '--as=root']);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /Error from server \(Forbidden\): users "root" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);

      const bad = await kubectl(kubeconfig({ token: 'nonsense' }), ['auth', 'whoami']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /Unauthorized|must be logged in/);
    });
  });
});

describe('authentication, the functions', () => {
  const objects = new Map<string, KubeObject>();
  const lookup = storeLookup({ get: (key) => (objects.has(key) ? { value: objects.get(key)! } : undefined) });
  let tokens: ServiceAccountTokenAuthority;
  let ctx: AuthenticationContext;
  before(async () => {
    tokens = await ServiceAccountTokenAuthority.load(undefined);
    ctx = authenticationContext({ adminToken: ADMIN_TOKEN, serviceAccountTokens: tokens, lookup });
  });

  it('words why a ServiceAccount token no longer authenticates', () => {
    objects.set('/core/serviceaccounts/default/op', { metadata: { name: 'op', namespace: 'default', uid: 'uid-2' } });
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'uid-1', expirationSeconds: 600 });
    assert.deepEqual(authenticateRequest({ headers: { authorization: `Bearer ${token}` }, socket: null }, ctx), { result: 'invalid', errors: ['service account UID (uid-2) does not match claim (uid-1)'] });
  });

  it('an unknown token is invalid; without anonymous, no credentials is unauthenticated', () => {
    assert.deepEqual(authenticateRequest({ headers: { authorization: 'Bearer nonsense' }, socket: null }, ctx), { result: 'invalid', errors: ['invalid bearer token'] });
    const closed = authenticationContext({ adminToken: ADMIN_TOKEN, anonymous: false });
    assert.deepEqual(authenticateRequest({ headers: {}, socket: null }, closed), { result: 'unauthenticated' });
    // The short form: a user, undefined (no credentials, anonymous disabled) or 'invalid'; both of the latter are 401s.
    assert.equal(authenticate({ headers: {}, socket: null }, closed), undefined);
    assert.equal(authenticate({ headers: { authorization: 'Bearer nonsense' }, socket: null }, closed), 'invalid');
    assert.deepEqual(authenticate({ headers: {}, socket: null }, ctx), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('parses bearer tokens as kube does', () => {
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('  bearer abc  '), 'abc');
    assert.equal(bearerToken('Bearer abc def'), 'abc');
    assert.equal(bearerToken('Bearer  abc'), undefined);
    assert.equal(bearerToken('Bearer'), undefined);
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });

  it('answers TokenReview for ServiceAccount and admin tokens', () => {
    objects.set('/core/serviceaccounts/default/op', { metadata: { name: 'op', namespace: 'default', uid: 'uid-1' } });
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'uid-1', expirationSeconds: 600, audiences: ['vault'] });
    const review = tokenReview({ spec: { token, audiences: ['vault'] } }, ctx);
    assert.equal(review.status.authenticated, true);
    assert.equal(review.status.user?.username, 'system:serviceaccount:default:op');
    assert.deepEqual(review.status.audiences, ['vault']);
    assert.deepEqual(tokenReview({ spec: { token } }, ctx).status, {
      error: 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
    });
    assert.deepEqual(tokenReview({ spec: { token: ADMIN_TOKEN } }, ctx).status, {
      authenticated: true,
      user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    assert.deepEqual(tokenReview({ spec: { token: 'nonsense' } }, ctx).status, {});
    assert.throws(() => tokenReview({ spec: {} }, ctx), /token is required for TokenReview in authentication/);
  });
});
