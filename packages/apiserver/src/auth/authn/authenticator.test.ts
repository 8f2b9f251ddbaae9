import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { StatusError, unauthorized, type KubeObject } from '@operant/apimachinery';
import { generateCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAndKey } from '../../tls/certificates.js';
import { authenticate, authenticationContext, authenticateRequest, bearerToken, tokenReview, type AuthenticationContext } from './authenticator.js';
import { impersonate, type AuthorizationAttributes } from './impersonation.js';
import { selfSubjectReview } from './self-subject-review.js';
import { ServiceAccountTokenAuthority, storeLookup } from './service-account-tokens.js';

const KUBECTL = '/usr/bin/kubectl';
const VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' };
const ADMIN_TOKEN = 'admin-token-0123456789';

interface Seen {
  path: string;
  user?: unknown;
  method?: string;
  reused: boolean;
}

/** Who may impersonate what in these tests: bob may act as jane and in group devs. */
function authorize(attrs: AuthorizationAttributes): { allowed: boolean } {
  return { allowed: attrs.user.username === 'bob' && ['users/jane', 'groups/devs'].includes(`${attrs.resource}/${attrs.name}`) };
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  res.writeHead(err.code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(err.status));
}

/** An HTTPS server wired the way the API server is to be: authenticate, impersonate, answer whoami. */
async function startServer(serving: CertificateAndKey, ca: CertificateAndKey, ctx: () => AuthenticationContext): Promise<{ server: https.Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const entry: Seen = { path: req.url ?? '', reused: (req.socket as TLSSocket).isSessionReused() };
    seen.push(entry);
    if (req.url === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(VERSION));
      return;
    }
    const outcome = authenticateRequest(req, ctx());
    if (outcome.result !== 'authenticated') return sendStatus(res, unauthorized());
    const user = await impersonate(outcome.user, req.headersDistinct, authorize);
    entry.user = user;
    entry.method = outcome.method;
    for await (const _ of req); // drain the body
    if (req.method === 'POST' && req.url?.startsWith('/apis/authentication.k8s.io/v1/selfsubjectreviews')) {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify(selfSubjectReview(user)));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ user, method: outcome.method }));
  };
  const server = https.createServer(
    // What the API server needs for client certificates: ask for one, let the authenticator judge it.
    { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (err instanceof StatusError) sendStatus(res, err);
        else {
          res.writeHead(500);
          res.end(String(err));
        }
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

function request(options: https.RequestOptions): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    https
      .request({ host: '127.0.0.1', agent: false, ...options }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as Record<string, unknown> }));
      })
      .on('error', reject)
      .end();
  });
}

describe('authentication', () => {
  let ca: CertificateAndKey;
  let serving: CertificateAndKey;
  let alice: CertificateAndKey;
  let server: https.Server;
  let port: number;
  let seen: Seen[];
  let tokens: ServiceAccountTokenAuthority;
  const objects = new Map<string, KubeObject>();
  let ctx: AuthenticationContext;
  let dir: string;

  const lookup = storeLookup({ get: (key) => (objects.has(key) ? { value: objects.get(key)! } : undefined) });

  before(async () => {
    ca = await generateCertificateAuthority();
    serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    alice = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['dev', 'ops'] });
    tokens = await ServiceAccountTokenAuthority.load(undefined);
    ctx = authenticationContext({ adminToken: ADMIN_TOKEN, serviceAccountTokens: tokens, lookup, clientCA: ca.certPem });
    ({ server, port, seen } = await startServer(serving, ca, () => ctx));
    dir = await mkdtemp(join(tmpdir(), 'operant-authn-'));
  });
  after(async () => {
    server.close();
    server.closeAllConnections();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (options: https.RequestOptions = {}): ReturnType<typeof request> => request({ port, path: '/whoami', ca: ca.certPem, ...options });

  it('reads a client certificate signed by the CA: CN is the user, O the groups', async () => {
    const res = await get({ cert: alice.certPem, key: alice.keyPem });
    assert.equal(res.status, 200);
    assert.equal(res.body.method, 'x509');
    const user = res.body.user as { username: string; groups: string[]; extra: Record<string, string[]> };
    assert.equal(user.username, 'alice');
    assert.deepEqual(user.groups, ['dev', 'ops', 'system:authenticated']);
    assert.match(user.extra['authentication.kubernetes.io/credential-id'][0], /^X509SHA256=[0-9a-f]{64}$/);
  });

  it('keeps the certificate identity on a resumed TLS session', async () => {
    const agent = new https.Agent({ keepAlive: false, maxCachedSessions: 4 });
    try {
      seen.length = 0;
      for (let i = 0; i < 3; i++) {
        const res = await request({ port, path: '/whoami', ca: ca.certPem, cert: alice.certPem, key: alice.keyPem, agent });
        assert.equal((res.body.user as { username: string }).username, 'alice', `request ${i}`);
      }
      assert.ok(seen.some((s) => s.reused), 'a later connection resumed the TLS session');
    } finally {
      agent.destroy();
    }
  });

  it('prefers a valid client certificate over a bad token', async () => {
    const res = await get({ cert: alice.certPem, key: alice.keyPem, headers: { authorization: 'Bearer nonsense' } });
    assert.equal(res.status, 200);
    assert.equal((res.body.user as { username: string }).username, 'alice');
  });

  it('refuses a client certificate of another CA (401, not anonymous)', async () => {
    const otherCa = await generateCertificateAuthority();
    const mallory = await issueClientCertificate(otherCa, { commonName: 'alice', organizations: ['system:masters'] });
    const res = await get({ cert: mallory.certPem, key: mallory.keyPem });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    // ...but a good token on the same request still authenticates it, as kube's union does.
    const withToken = await get({ cert: mallory.certPem, key: mallory.keyPem, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal((withToken.body.user as { username: string }).username, 'kubernetes-admin');
  });

  it('refuses an expired client certificate', async () => {
    const saved = ctx;
    ctx = authenticationContext({ adminToken: ADMIN_TOKEN, clientCA: ca.certPem, now: () => Date.now() + 400 * 86_400_000 });
    try {
      assert.equal((await get({ cert: alice.certPem, key: alice.keyPem })).status, 401);
    } finally {
      ctx = saved;
    }
  });

  it('authenticates the admin token as kubernetes-admin in system:masters', async () => {
    const res = await get({ headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.deepEqual(res.body, { user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] }, method: 'token' });
  });

  it('authenticates a ServiceAccount token, and refuses it once the ServiceAccount is gone', async () => {
    objects.set('/core/serviceaccounts/default/op', { metadata: { name: 'op', namespace: 'default', uid: 'uid-1' } });
    const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'uid-1', expirationSeconds: 600 });
    const res = await get({ headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.body.method, 'serviceaccount');
    assert.equal((res.body.user as { username: string }).username, 'system:serviceaccount:default:op');
    assert.deepEqual((res.body.user as { groups: string[] }).groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    objects.set('/core/serviceaccounts/default/op', { metadata: { name: 'op', namespace: 'default', uid: 'uid-2' } });
    assert.equal((await get({ headers: { authorization: `Bearer ${token}` } })).status, 401);
    const outcome = authenticateRequest({ headers: { authorization: `Bearer ${token}` }, socket: null }, ctx);
    assert.deepEqual(outcome, { result: 'invalid', errors: ['service account UID (uid-2) does not match claim (uid-1)'] });
  });

  it('refuses an unknown token (401), and runs credential-less requests as system:anonymous', async () => {
    assert.equal((await get({ headers: { authorization: 'Bearer nonsense' } })).status, 401);
    assert.deepEqual(authenticateRequest({ headers: { authorization: 'Bearer nonsense' }, socket: null }, ctx), { result: 'invalid', errors: ['invalid bearer token'] });
    const res = await get();
    assert.deepEqual(res.body, { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, method: 'anonymous' });
    // Not a bearer header, or an empty token: no credentials.
    assert.equal((await get({ headers: { authorization: 'Basic YTpi' } })).body.method, 'anonymous');
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

  it('impersonates when allowed and answers 403 in kube\'s words when not', async () => {
    const bob = await issueClientCertificate(ca, { commonName: 'bob', organizations: [] });
    const ok = await get({ cert: bob.certPem, key: bob.keyPem, headers: { 'impersonate-user': 'jane', 'impersonate-group': 'devs' } });
    assert.deepEqual(ok.body.user, { username: 'jane', groups: ['devs', 'system:authenticated'] });
    const denied = await get({ cert: bob.certPem, key: bob.keyPem, headers: { 'impersonate-user': 'root' } });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.message, 'users "root" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
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

  describe('with the real kubectl', () => {
    const kubeconfig = (user: Record<string, string>): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
        users: [{ name: 'u', user }],
        contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'c',
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

    it('`kubectl auth whoami` with a client certificate', async (t) => {
      if (!existsSync(KUBECTL)) return t.skip('kubectl not found');
      const config = kubeconfig({
        'client-certificate-data': Buffer.from(alice.certPem).toString('base64'),
        'client-key-data': Buffer.from(alice.keyPem).toString('base64'),
      });
      const { stdout, stderr, code } = await kubectl(config, ['auth', 'whoami', '-o', 'json']);
      assert.equal(code, 0, stderr);
      const review = JSON.parse(stdout) as { kind: string; status: { userInfo: { username: string; groups: string[] } } };
      assert.equal(review.kind, 'SelfSubjectReview');
      assert.equal(review.status.userInfo.username, 'alice');
      assert.deepEqual(review.status.userInfo.groups, ['dev', 'ops', 'system:authenticated']);
    });

    it('`kubectl auth whoami` with a ServiceAccount token, and --as / --as-group', async (t) => {
      if (!existsSync(KUBECTL)) return t.skip('kubectl not found');
      objects.set('/core/serviceaccounts/default/op', { metadata: { name: 'op', namespace: 'default', uid: 'uid-1' } });
      const { token } = tokens.issueToken({ namespace: 'default', name: 'op', uid: 'uid-1', expirationSeconds: 600 });
      const sa = await kubectl(kubeconfig({ token }), ['auth', 'whoami']);
      assert.equal(sa.code, 0, sa.stderr);
      assert.match(sa.stdout, /Username\s+system:serviceaccount:default:op/);
      assert.match(sa.stdout, /Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]/);

      const admin = await kubectl(kubeconfig({ token: ADMIN_TOKEN }), ['auth', 'whoami', '--as=jane', '--as-group=devs', '-o', 'json']);
      assert.equal(admin.code, 0, admin.stderr);
      assert.deepEqual((JSON.parse(admin.stdout) as { status: unknown }).status, { userInfo: { username: 'jane', groups: ['devs', 'system:authenticated'] } });

      const bob = await issueClientCertificate(ca, { commonName: 'bob', organizations: [] });
      const bobConfig = kubeconfig({
        'client-certificate-data': Buffer.from(bob.certPem).toString('base64'),
        'client-key-data': Buffer.from(bob.keyPem).toString('base64'),
      });
      // `auth whoami` hides a 403 behind its own message; `get --raw` shows the server's.
      const denied = await kubectl(bobConfig, ['get', '--raw', '/whoami', '--as=root']);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /Error from server \(Forbidden\): users "root" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope/);

      const bad = await kubectl(kubeconfig({ token: 'nonsense' }), ['auth', 'whoami']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /Unauthorized|must be logged in/);
    });
  });
});
