/**
 * The fault proxy serving plain HTTP on loopback (`plainHttp`): it binds
 * loopback only and refuses any other address; a request without its own
 * token gets 401 as a kube Status (other credentials too, unlike over HTTPS);
 * its kubeconfig (mode 0600) says `server: http://127.0.0.1:<port>/chaos/<token>`
 * (client-go sends no credentials to an http server, so the token rides in the
 * path too) and works as it is with the runtime client, @kubernetes/client-node
 * and the real kubectl; and faults act as over HTTPS: the same seed hits the
 * same requests, and a watch cut inside an event is resumed by an informer.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ApiError, Client, ConfigMap, Namespace, silentLogger, type Typed } from '@operant/runtime';
import { Informer } from '@operant/runtime/cache';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { eventually, FaultProxy, TestEnv, type Fault } from '../src/index.js';

const KUBECTL = '/usr/bin/kubectl';

const env = await TestEnv.start();
const proxy = await env.faultProxy({ plainHttp: true });
const client = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
const dir = mkdtempSync(join(tmpdir(), 'operant-plain-proxy-'));
after(async () => {
  client.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A GET to the proxy without any client library; `authorization` undefined sends none. */
function rawGet(path: string, authorization?: string): Promise<{ status: number; body: string }> {
  return rawRequest('GET', path, authorization ? { Authorization: authorization } : {});
}

function rawRequest(method: string, path: string, headers: Record<string, string>, send?: string): Promise<{ status: number; body: string }> {
  const url = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    if (headers.Expect === '100-continue') req.once('continue', () => req.end(send));
    else req.end(send);
  });
}

const proxyToken = (): string => /token: (\S+)/.exec(proxy.kubeconfig)![1]!;

describe('listening', () => {
  test('serves http://127.0.0.1 with a kubeconfig naming that URL and its token, and no CA', () => {
    assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(proxy.kubeconfig.includes(`server: ${proxy.url}/chaos/${proxyToken()}\n`), proxy.kubeconfig);
    assert.doesNotMatch(proxy.kubeconfig, /certificate-authority/);
    assert.equal(Buffer.from(proxyToken(), 'base64url').length, 32, 'a token of 32 random bytes');
  });

  test('refuses any address but loopback, saying why', async () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'localhost']) {
      await assert.rejects(
        FaultProxy.start({ upstream: env.kubeconfig.config, plainHttp: true, host }),
        (err: Error) => err.message.includes(`serves plain HTTP only on loopback (127.0.0.1 or ::1), not on ${JSON.stringify(host)}`),
        host,
      );
    }
  });

  test('listens on ::1 when asked', async (t) => {
    let v6: FaultProxy;
    try {
      v6 = await FaultProxy.start({ upstream: env.kubeconfig.config, plainHttp: true, host: '::1' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') return t.skip('no IPv6 loopback on this machine');
      throw err;
    }
    t.after(() => v6.stop());
    assert.match(v6.url, /^http:\/\/\[::1\]:\d+$/);
    const c = Client.fromConfig(await v6.clientConfig());
    t.after(() => c.close());
    assert.ok((await c.list(Namespace)).items.some((n) => n.metadata.name === 'default'));
  });
});

describe('the token', () => {
  test('a request without it gets 401 Unauthorized as a kube Status', async () => {
    const { status, body } = await rawGet('/api/v1/namespaces');
    assert.equal(status, 401);
    const answer = JSON.parse(body) as Record<string, unknown>;
    assert.deepEqual(
      { kind: answer.kind, apiVersion: answer.apiVersion, status: answer.status, reason: answer.reason, code: answer.code },
      { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 },
    );
  });

  test('other credentials, even the upstream admin\'s own, get 401 too; the proxy\'s token passes, as a bearer token or in the path', async () => {
    const admin = (await env.kubeconfig.config.credentials.credentials()).token;
    assert.ok(admin, 'the environment authenticates with a token');
    const wrong = `${proxyToken().slice(0, -1)}${proxyToken().endsWith('x') ? 'y' : 'x'}`;
    assert.equal((await rawGet('/api/v1/namespaces', `Bearer ${admin}`)).status, 401);
    assert.equal((await rawGet('/api/v1/namespaces', `Bearer ${wrong}`)).status, 401);
    assert.equal((await rawGet('/api/v1/namespaces', `Basic ${Buffer.from('admin:admin').toString('base64')}`)).status, 401);
    assert.equal((await rawGet(`/chaos/${wrong}/api/v1/namespaces`)).status, 401);
    assert.equal((await rawGet(`/chaos/${proxyToken()}x/api/v1/namespaces`)).status, 401, 'the token is a whole path segment');
    assert.equal((await rawGet('/api/v1/namespaces', `Bearer ${proxyToken()}`)).status, 200);
    const viaPath = await rawGet(`/chaos/${proxyToken()}/api/v1/namespaces?limit=1`);
    assert.equal(viaPath.status, 200);
    assert.equal((JSON.parse(viaPath.body) as { kind: string }).kind, 'NamespaceList');
    assert.notEqual((await rawGet(`/chaos/${proxyToken()}`)).status, 401, 'the bare prefix passes, as the root of the server');
    assert.equal(JSON.parse((await rawGet(`/chaos/${proxyToken()}/version`)).body).major, '1');
  });
});

describe('clients, through its kubeconfig as it is', () => {
  test('the runtime client reads and writes', async (t) => {
    const ns = await env.namespace(t);
    await client.create(ConfigMap, { metadata: { name: 'via-plain', namespace: ns.name }, data: { a: '1' } });
    assert.equal((await env.client.get(ConfigMap, 'via-plain', { namespace: ns.name })).data?.a, '1');
    assert.deepEqual((await client.list(ConfigMap, { namespace: ns.name })).items.map((c) => c.metadata.name).filter((n) => n === 'via-plain'), ['via-plain']);
  });

  test('a create sent with Expect: 100-continue (as curl sends a large body) goes through', async (t) => {
    const ns = await env.namespace(t);
    const created = await rawRequest(
      'POST',
      `/chaos/${proxyToken()}/api/v1/namespaces/${ns.name}/configmaps`,
      { 'Content-Type': 'application/json', Expect: '100-continue' },
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'continued' }, data: { d: '4' } }),
    );
    assert.equal(created.status, 201, created.body);
    assert.equal((await env.client.get(ConfigMap, 'continued', { namespace: ns.name })).data?.d, '4');
  });

  test('@kubernetes/client-node reads and writes', async (t) => {
    const ns = await env.namespace(t);
    const kc = new KubeConfig();
    kc.loadFromString(proxy.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: ns.name, body: { metadata: { name: 'from-client-node' }, data: { b: '2' } } });
    const read = await core.readNamespacedConfigMap({ name: 'from-client-node', namespace: ns.name });
    assert.equal(read.data?.b, '2');
    assert.equal((await env.client.get(ConfigMap, 'from-client-node', { namespace: ns.name })).data?.b, '2');
  });

  test('the real kubectl reads and writes, with the kubeconfig the proxy wrote (mode 0600)', async (t) => {
    if (!existsSync(KUBECTL)) {
      t.skip(`KUBECTL NOT FOUND at ${KUBECTL}: the kubectl check of the plain-HTTP proxy did not run`);
      return;
    }
    const ns = await env.namespace(t);
    const path = join(dir, 'kubeconfig');
    await proxy.writeKubeconfig(path);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    // A private HOME keeps kubectl's discovery cache out of the user's ~/.kube.
    const kubectl = (...args: string[]) => promisify(execFile)(KUBECTL, ['--kubeconfig', path, ...args], { timeout: 60_000, env: { ...process.env, HOME: dir } });
    await kubectl('create', 'configmap', 'from-kubectl', '-n', ns.name, '--from-literal=c=3');
    const { stdout } = await kubectl('get', 'configmap', 'from-kubectl', '-n', ns.name, '-o', 'jsonpath={.data.c}');
    assert.equal(stdout, '3');
    assert.equal((await env.client.get(ConfigMap, 'from-kubectl', { namespace: ns.name })).data?.c, '3');
  });
});

describe('faults, as over HTTPS', () => {
  test('the same seed hits the same requests through the HTTPS and the plain-HTTP proxy', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(ConfigMap, { metadata: { name: 'probe', namespace: ns.name } });
    const tls = await env.faultProxy(t);
    assert.match(tls.url, /^https:/);
    const faults: Fault[] = [
      { kind: 'error', code: 503, probability: 0.4, verbs: ['get'], namespaces: [ns.name] },
      { kind: 'reset', probability: 0.3, verbs: ['get'], namespaces: [ns.name] },
    ];
    /** What 40 GETs through `p` met, one letter each: o(k), 5(03), r(eset); and the hits it recorded. */
    const run = async (p: FaultProxy): Promise<{ outcomes: string; hits: string[] }> => {
      const c = Client.fromConfig(await p.clientConfig(), { qps: Infinity, maxRetries: 0 });
      const from = p.records.length;
      const injected = faults.map((f, i) => p.inject(f, { seed: 1000 + i }));
      let outcomes = '';
      try {
        for (let i = 0; i < 40; i++) {
          outcomes += await c.get(ConfigMap, 'probe', { namespace: ns.name }).then(
            () => 'o',
            (err: unknown) => (err instanceof ApiError ? String(err.code)[0]! : 'r'),
          );
        }
      } finally {
        for (const f of injected) f.remove();
        c.close();
      }
      return { outcomes, hits: p.records.slice(from).filter((r) => r.type === 'hit').map((r) => `${r.fault.kind} ${r.detail}`) };
    };
    const overTls = await run(tls);
    const overPlain = await run(proxy);
    assert.match(overTls.outcomes, /o/);
    assert.match(overTls.outcomes, /5/);
    assert.match(overTls.outcomes, /r/);
    assert.equal(overPlain.outcomes, overTls.outcomes);
    assert.deepEqual(overPlain.hits, overTls.hits);
  });

  test('a watch cut in the middle of an event is resumed by an informer, losing and repeating nothing', async (t) => {
    const ns = await env.namespace(t);
    const stop = new AbortController();
    t.after(() => stop.abort());
    const inf = new Informer<Typed<corev1.ConfigMap>>(client.listerWatcher(ConfigMap), { namespace: ns.name, backoff: { initialMs: 20, maxMs: 200 }, logger: silentLogger, name: 'configmaps' });
    const added = new Map<string, number>();
    inf.addEventHandler({ add: (cm) => void added.set(cm.metadata.name!, (added.get(cm.metadata.name!) ?? 0) + 1) });
    inf.start(stop.signal);
    await inf.waitForCacheSync(stop.signal);
    const cut = proxy.inject({ kind: 'cut-watch', resources: ['configmaps'], namespaces: [ns.name] }, { times: 3 });
    for (let i = 0; i < 30; i++) await env.client.create(ConfigMap, { metadata: { name: `cm-${i}`, namespace: ns.name } });
    await eventually(() => assert.equal(inf.store.list().length, 30), { timeout: 10_000 });
    assert.equal(cut.hits, 3, 'three streams were cut');
    assert.equal(inf.stats().lists, 1, 'resumed from its resourceVersion, never relisted');
    assert.deepEqual([...added.values()].filter((n) => n !== 1), [], 'every object added exactly once');
    assert.ok(proxy.records.some((r) => r.faultId === cut.id && r.type === 'hit' && /cut in the middle of an event \(ADDED\)/.test(r.detail ?? '')));
  });
});
