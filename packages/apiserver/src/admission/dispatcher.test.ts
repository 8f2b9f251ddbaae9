/**
 * The admission chain against real HTTPS webhook servers started here, with
 * serving certificates from a test CA that the configurations carry as caBundle.
 */
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { StatusError, type GroupVersionKind, type GroupVersionResource, type KubeObject } from '@operant/apimachinery';
import { MvccStore } from '../storage/mvcc-store.js';
import { generateCertificateAuthority, issueServingCertificate, type CertificateAndKey } from '../tls/certificates.js';
import { AdmissionChain, admissionWarnings } from './dispatcher.js';
import type { AdmissionAttributes, ResourceEquivalence } from './types.js';

type Json = Record<string, unknown>;
/** What a test webhook answers: the `response` fields besides uid, or `hang` to never answer. */
type Answer = Json | 'hang';
type Handler = (request: Json, path: string) => Answer | Promise<Answer>;

interface Seen {
  path: string;
  review: Json;
  request: Json;
}

interface WebhookServer {
  port: number;
  seen: Seen[];
  url(path: string): string;
  close(): Promise<void>;
}

let ca: CertificateAndKey;
let otherCa: CertificateAndKey;
let serving: CertificateAndKey;
let caBundle: string;
const servers: WebhookServer[] = [];

async function startWebhook(handler: Handler): Promise<WebhookServer> {
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        const request = review.request as Json;
        seen.push({ path: req.url ?? '', review, request });
        const answer = await handler(request, req.url ?? '');
        if (answer === 'hang') return;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: request.uid, ...answer } }));
      })();
    });
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const ws: WebhookServer = {
    port,
    seen,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  servers.push(ws);
  return ws;
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64');
}

function allow(patch?: unknown[], extra: Json = {}): Json {
  return patch ? { allowed: true, patchType: 'JSONPatch', patch: b64(patch), ...extra } : { allowed: true, ...extra };
}

interface HookSpec {
  name: string;
  url: string;
  rules?: unknown[];
  extra?: Json;
}

const podRule = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };

function webhook(spec: HookSpec): Json {
  return {
    name: spec.name,
    clientConfig: { url: spec.url, caBundle },
    rules: spec.rules ?? [podRule],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...spec.extra,
  };
}

let store: MvccStore;
let chain: AdmissionChain;

function addConfig(kind: 'mutating' | 'validating', name: string, hooks: Json[]): void {
  const resource = kind === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  store.create(`/admissionregistration.k8s.io/${resource}/${name}`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: hooks,
  } as KubeObject);
}

function addNamespace(name: string, labels: Record<string, string> = {}): void {
  store.create(`/core/namespaces/${name}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
}

const podKind: GroupVersionKind = { group: '', version: 'v1', kind: 'Pod' };
const podsResource: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };

function pod(name: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
  };
}

function createPod(obj: KubeObject, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    kind: podKind,
    resource: podsResource,
    name: obj.metadata.name ?? '',
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'alice', groups: ['system:authenticated'] },
    object: obj,
    dryRun: false,
    options: { kind: 'CreateOptions', fieldManager: 'kubectl' },
    ...extra,
  };
}

async function rejection(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the request to be rejected');
}

before(async () => {
  ca = await generateCertificateAuthority('webhook-test-ca');
  otherCa = await generateCertificateAuthority('another-ca');
  serving = await issueServingCertificate(ca, { dnsNames: ['webhook.default.svc'], ipAddresses: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.certPem).toString('base64');
});

beforeEach(() => {
  store = new MvccStore();
  chain = new AdmissionChain(store);
  addNamespace('default', { 'kubernetes.io/metadata.name': 'default' });
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('mutating webhooks', () => {
  it('apply a JSONPatch that adds a label and a container, with the request kube sends', async () => {
    const ws = await startWebhook(() =>
      allow([
        { op: 'add', path: '/metadata/labels/injected', value: 'true' },
        { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } },
      ]),
    );
    addConfig('mutating', 'inject', [webhook({ name: 'inject.example.com', url: ws.url('/mutate') })]);
    const input = pod('web');
    const out = await chain.admit(createPod(input));
    assert.equal(out.patched, true);
    assert.deepEqual(out.object?.metadata.labels, { injected: 'true' });
    assert.deepEqual((out.object?.spec as { containers: unknown[] }).containers, [
      { name: 'app', image: 'nginx' },
      { name: 'sidecar', image: 'busybox' },
    ]);
    assert.deepEqual(input.metadata.labels, {}, 'the input object is left alone');

    assert.equal(ws.seen.length, 1);
    const { path, review, request } = ws.seen[0]!;
    assert.equal(path, '/mutate?timeout=10s');
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.kind, 'AdmissionReview');
    assert.match(String(request.uid), /^[0-9a-f-]{36}$/);
    assert.deepEqual(request.kind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(request.resource, { group: '', version: 'v1', resource: 'pods' });
    assert.deepEqual(request.requestKind, { group: '', version: 'v1', kind: 'Pod' });
    assert.deepEqual(request.requestResource, { group: '', version: 'v1', resource: 'pods' });
    assert.equal('subResource' in request, false);
    assert.equal(request.name, 'web');
    assert.equal(request.namespace, 'default');
    assert.equal(request.operation, 'CREATE');
    assert.deepEqual(request.userInfo, { username: 'alice', groups: ['system:authenticated'] });
    assert.deepEqual(request.object, input);
    assert.equal(request.oldObject, null);
    assert.equal(request.dryRun, false);
    assert.deepEqual(request.options, { kind: 'CreateOptions', fieldManager: 'kubectl', apiVersion: 'meta.k8s.io/v1' });
  });

  it('run in configuration-name order, each seeing the previous patch', async () => {
    const order: string[] = [];
    const ws = await startWebhook((request, path) => {
      const name = path.startsWith('/first') ? 'first' : 'second';
      order.push(name);
      const labels = ((request.object as KubeObject).metadata.labels ?? {}) as Record<string, string>;
      if (name === 'second') return allow([{ op: 'add', path: '/metadata/labels/second', value: labels.first ? 'after-first' : 'alone' }]);
      return allow([{ op: 'add', path: '/metadata/labels/first', value: 'yes' }]);
    });
    // Stored in the opposite order of their names.
    addConfig('mutating', 'b-second', [webhook({ name: 'second.example.com', url: ws.url('/second') })]);
    addConfig('mutating', 'a-first', [webhook({ name: 'first.example.com', url: ws.url('/first') })]);
    const out = await chain.admit(createPod(pod('web')));
    assert.deepEqual(order, ['first', 'second']);
    assert.deepEqual(out.object?.metadata.labels, { first: 'yes', second: 'after-first' });
  });

  it('reinvoke IfNeeded webhooks once after a later webhook changed the object', async () => {
    const calls: string[] = [];
    const ws = await startWebhook((request, path) => {
      const labels = ((request.object as KubeObject).metadata.labels ?? {}) as Record<string, string>;
      const who = path.split('?')[0]!.slice(1);
      calls.push(`${who}:${Object.keys(labels).sort().join(',')}`);
      if (who === 'late') return allow([{ op: 'add', path: '/metadata/labels/late', value: '1' }]);
      // `early` records what it saw: on reinvocation it sees the later label.
      return allow([{ op: 'add', path: '/metadata/labels/early', value: labels.late ? 'saw-late' : 'first-pass' }]);
    });
    addConfig('mutating', 'a', [
      webhook({ name: 'early.example.com', url: ws.url('/early'), extra: { reinvocationPolicy: 'IfNeeded' } }),
      webhook({ name: 'never.example.com', url: ws.url('/never'), extra: { reinvocationPolicy: 'Never' } }),
    ]);
    addConfig('mutating', 'b', [webhook({ name: 'late.example.com', url: ws.url('/late') })]);
    const out = await chain.admit(createPod(pod('web')));
    assert.deepEqual(calls, ['early:', 'never:early', 'late:early', 'early:early,late']);
    assert.deepEqual(out.object?.metadata.labels, { early: 'saw-late', late: '1' });
  });

  it('does not reinvoke when nothing changed after the webhook', async () => {
    let count = 0;
    const ws = await startWebhook(() => {
      count++;
      return allow();
    });
    addConfig('mutating', 'a', [webhook({ name: 'idle.example.com', url: ws.url('/idle'), extra: { reinvocationPolicy: 'IfNeeded' } })]);
    const out = await chain.admit(createPod(pod('web')));
    assert.equal(count, 1);
    assert.equal(out.patched, false);
  });

  it('are skipped by namespaceSelector, and fail with 404 for a missing namespace', async () => {
    const ws = await startWebhook(() => allow([{ op: 'add', path: '/metadata/labels/hit', value: 'y' }]));
    addNamespace('prod', { env: 'prod' });
    addConfig('mutating', 'ns', [webhook({ name: 'ns.example.com', url: ws.url('/ns'), extra: { namespaceSelector: { matchLabels: { env: 'prod' } } } })]);
    const skipped = await chain.admit(createPod(pod('web')));
    assert.equal(skipped.patched, false);
    assert.equal(ws.seen.length, 0);
    const hit = await chain.admit(createPod({ ...pod('web'), metadata: { name: 'web', namespace: 'prod', labels: {} } }, { namespace: 'prod' }));
    assert.deepEqual(hit.object?.metadata.labels, { hit: 'y' });
    const missing = await rejection(chain.admit(createPod(pod('web'), { namespace: 'nowhere' })));
    assert.equal(missing.code, 404);
    assert.equal(missing.message, 'namespaces "nowhere" not found');
  });

  it('match a Namespace by its own new labels', async () => {
    const ws = await startWebhook(() => allow());
    addConfig('mutating', 'ns', [
      webhook({
        name: 'ns.example.com',
        url: ws.url('/ns'),
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'], scope: 'Cluster' }],
        extra: { namespaceSelector: { matchLabels: { team: 'a' } } },
      }),
    ]);
    const ns = (labels: Record<string, string>): AdmissionAttributes => ({
      kind: { group: '', version: 'v1', kind: 'Namespace' },
      resource: { group: '', version: 'v1', resource: 'namespaces' },
      name: 'team-a',
      namespace: '',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels } },
      dryRun: false,
    });
    await chain.admit(ns({ team: 'b' }));
    assert.equal(ws.seen.length, 0);
    await chain.admit(ns({ team: 'a' }));
    assert.equal(ws.seen.length, 1);
    assert.equal(ws.seen[0]!.request.namespace, 'team-a', 'kube sends a Namespace its own name as namespace');
  });

  it('are skipped by objectSelector, which also looks at the old object', async () => {
    const ws = await startWebhook(() => allow());
    addConfig('mutating', 'obj', [webhook({ name: 'obj.example.com', url: ws.url('/obj'), extra: { objectSelector: { matchLabels: { inject: 'true' } } } })]);
    await chain.admit(createPod(pod('plain')));
    assert.equal(ws.seen.length, 0);
    await chain.admit(createPod(pod('labelled', { inject: 'true' })));
    assert.equal(ws.seen.length, 1);
    await chain.admit(createPod(pod('removing'), { operation: 'UPDATE', oldObject: pod('removing', { inject: 'true' }) }));
    assert.equal(ws.seen.length, 2);
    assert.equal(ws.seen[1]!.request.operation, 'UPDATE');
    assert.deepEqual((ws.seen[1]!.request.oldObject as KubeObject).metadata.labels, { inject: 'true' });
  });

  it('reject a patch that does not apply, and a patch on DELETE', async () => {
    const ws = await startWebhook((request) =>
      request.operation === 'DELETE'
        ? allow([{ op: 'add', path: '/metadata/labels/x', value: 'y' }])
        : allow([{ op: 'remove', path: '/metadata/annotations/missing' }]),
    );
    addConfig('mutating', 'bad', [
      webhook({ name: 'bad.example.com', url: ws.url('/bad'), rules: [{ operations: ['CREATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }),
    ]);
    const bad = await rejection(chain.admit(createPod(pod('web'))));
    assert.equal(bad.code, 500);
    assert.equal(bad.reason, 'InternalError');
    assert.match(bad.message, /^Internal error occurred: /);
    const del = await rejection(chain.admit(createPod(pod('web'), { operation: 'DELETE', object: undefined, oldObject: pod('web') })));
    assert.equal(del.code, 500);
    assert.equal(del.message, 'Internal error occurred: admission webhook "bad.example.com" attempted to modify the object, which is not supported for this operation');
  });

  it('check the response envelope', async () => {
    const ws = await startWebhook(() => ({ allowed: true, patch: b64([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]) }));
    addConfig('mutating', 'env', [webhook({ name: 'env.example.com', url: ws.url('/env') })]);
    const err = await rejection(chain.admit(createPod(pod('web'))));
    assert.equal(
      err.message,
      'Internal error occurred: failed calling webhook "env.example.com": received invalid webhook response: webhook returned response.patch but not response.patchType',
    );
  });

  it('pass denials through with the webhook message', async () => {
    const ws = await startWebhook(() => ({ allowed: false, status: { message: 'pods need an owner', code: 422, reason: 'Invalid' } }));
    addConfig('mutating', 'deny', [webhook({ name: 'deny.example.com', url: ws.url('/deny') })]);
    const err = await rejection(chain.admit(createPod(pod('web'))));
    assert.equal(err.code, 422);
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.message, 'admission webhook "deny.example.com" denied the request: pods need an owner');
  });
});

describe('validating webhooks', () => {
  it('deny with the custom message and code', async () => {
    const ws = await startWebhook((request) => {
      const name = (request.object as KubeObject).metadata.name;
      return name === 'bad' ? { allowed: false, status: { code: 403, message: 'pods may not be called bad' } } : { allowed: true };
    });
    addConfig('validating', 'policy', [webhook({ name: 'policy.example.com', url: ws.url('/validate') })]);
    await chain.validate(createPod(pod('good')));
    const err = await rejection(chain.validate(createPod(pod('bad'))));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'admission webhook "policy.example.com" denied the request: pods may not be called bad');
    assert.equal(err.status.reason, undefined, 'kube keeps the webhook reason, here none');
    assert.equal(ws.seen[0]!.path, '/validate?timeout=10s');
  });

  it('default a denial to 400 and say when there is no explanation', async () => {
    const ws = await startWebhook(() => ({ allowed: false }));
    addConfig('validating', 'quiet', [webhook({ name: 'quiet.example.com', url: ws.url('/quiet') })]);
    const err = await rejection(chain.validate(createPod(pod('x'))));
    assert.equal(err.code, 400);
    assert.equal(err.message, 'admission webhook "quiet.example.com" denied the request without explanation');
  });

  it('run in parallel and answer with the first denial in webhook order', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    // Each call waits until all three have arrived (or 5 s, for a dispatcher that calls them one at a time):
    // causality, not a timing window that a loaded machine can miss.
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    const ws = await startWebhook(async (_req, path) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (inFlight === 3) allArrived();
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([arrived, new Promise((r) => (waited = setTimeout(r, 5000)))]);
      clearTimeout(waited);
      inFlight--;
      return path.startsWith('/b') ? { allowed: false, status: { message: 'b says no' } } : path.startsWith('/c') ? { allowed: false, status: { message: 'c says no' } } : { allowed: true };
    });
    addConfig('validating', 'v', [
      webhook({ name: 'a.example.com', url: ws.url('/a') }),
      webhook({ name: 'b.example.com', url: ws.url('/b') }),
      webhook({ name: 'c.example.com', url: ws.url('/c') }),
    ]);
    const err = await rejection(chain.validate(createPod(pod('x'))));
    assert.equal(err.message, 'admission webhook "b.example.com" denied the request: b says no');
    assert.equal(maxInFlight, 3);
  });

  it('get DELETE with the old object and DeleteOptions', async () => {
    const ws = await startWebhook(() => ({ allowed: false, status: { message: 'protected', code: 403 } }));
    addConfig('validating', 'del', [
      webhook({ name: 'del.example.com', url: ws.url('/del'), rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }),
    ]);
    // Creates do not match the rule.
    await chain.validate(createPod(pod('web')));
    assert.equal(ws.seen.length, 0);
    const old = pod('web', { keep: 'yes' });
    const err = await rejection(
      chain.validate(createPod(old, { operation: 'DELETE', object: undefined, oldObject: old, options: { kind: 'DeleteOptions', propagationPolicy: 'Background' } })),
    );
    assert.equal(err.code, 403);
    assert.equal(err.message, 'admission webhook "del.example.com" denied the request: protected');
    const request = ws.seen[0]!.request;
    assert.equal(request.operation, 'DELETE');
    assert.equal(request.object, null);
    assert.deepEqual(request.oldObject, old);
    assert.deepEqual(request.options, { kind: 'DeleteOptions', propagationPolicy: 'Background', apiVersion: 'meta.k8s.io/v1' });
  });

  it('match subresources only through subresource rules', async () => {
    const ws = await startWebhook(() => ({ allowed: true }));
    addConfig('validating', 'sub', [
      webhook({ name: 'status.example.com', url: ws.url('/status'), rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/status'] }] }),
      webhook({ name: 'main.example.com', url: ws.url('/main'), rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }),
      webhook({ name: 'all.example.com', url: ws.url('/all'), rules: [{ operations: ['UPDATE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }] }),
      webhook({ name: 'anystatus.example.com', url: ws.url('/anystatus'), rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*/status'] }] }),
    ]);
    const update = (sub: string) => createPod(pod('web'), { operation: 'UPDATE', oldObject: pod('web'), subResource: sub, options: { kind: 'UpdateOptions' } });
    await chain.validate(update('status'));
    const statusPaths = ws.seen.map((s) => s.path.split('?')[0]).sort();
    assert.deepEqual(statusPaths, ['/all', '/anystatus', '/status']);
    const statusReq = ws.seen.find((s) => s.path.startsWith('/status'))!.request;
    assert.equal(statusReq.subResource, 'status');
    assert.equal(statusReq.requestSubResource, 'status');
    ws.seen.length = 0;
    await chain.validate(update(''));
    assert.deepEqual(ws.seen.map((s) => s.path.split('?')[0]).sort(), ['/all', '/main']);
  });

  it('respect scope', async () => {
    const ws = await startWebhook(() => ({ allowed: true }));
    addConfig('validating', 'scope', [
      webhook({ name: 'cluster.example.com', url: ws.url('/cluster'), rules: [{ ...podRule, apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Cluster' }] }),
      webhook({ name: 'namespaced.example.com', url: ws.url('/namespaced'), rules: [{ ...podRule, apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: 'Namespaced' }] }),
    ]);
    await chain.validate(createPod(pod('web')));
    assert.deepEqual(ws.seen.map((s) => s.path.split('?')[0]), ['/namespaced']);
  });
});

describe('failures, timeouts and dry run', () => {
  it('a hanging webhook fails the request under Fail and is ignored under Ignore', async () => {
    const ws = await startWebhook(() => 'hang');
    addConfig('validating', 'hang-fail', [webhook({ name: 'hang.example.com', url: ws.url('/hang'), extra: { timeoutSeconds: 1 } })]);
    const store2 = new MvccStore();
    const chain2 = new AdmissionChain(store2);
    store2.create('/core/namespaces/default', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    store2.create('/admissionregistration.k8s.io/mutatingwebhookconfigurations/hang-ignore', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'hang-ignore' },
      webhooks: [webhook({ name: 'hang-ignore.example.com', url: ws.url('/hang-ignore'), extra: { timeoutSeconds: 1, failurePolicy: 'Ignore' } })],
    } as KubeObject);
    const started = Date.now();
    const [failed, ignored] = await Promise.all([rejection(chain.validate(createPod(pod('web')))), chain2.admit(createPod(pod('web')))]);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 950 && elapsed < 3000, `took ${elapsed} ms`);
    assert.equal(failed.code, 500);
    assert.equal(failed.reason, 'InternalError');
    assert.equal(
      failed.message,
      `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "https://127.0.0.1:${ws.port}/hang?timeout=1s": context deadline exceeded`,
    );
    assert.deepEqual(failed.status.details?.causes, [
      { message: `failed calling webhook "hang.example.com": failed to call webhook: Post "https://127.0.0.1:${ws.port}/hang?timeout=1s": context deadline exceeded` },
    ]);
    assert.equal(ignored.patched, false);
    assert.equal(ws.seen.find((s) => s.path.startsWith('/hang-ignore'))?.path, '/hang-ignore?timeout=1s');
  });

  it('an unreachable webhook fails under Fail and is ignored under Ignore', async () => {
    const ws = await startWebhook(() => ({ allowed: true }));
    const deadUrl = ws.url('/dead');
    await ws.close();
    addConfig('validating', 'dead', [webhook({ name: 'dead.example.com', url: deadUrl })]);
    const err = await rejection(chain.validate(createPod(pod('web'))));
    assert.equal(err.code, 500);
    assert.match(err.message, /^Internal error occurred: failed calling webhook "dead\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/dead\?timeout=10s": dial tcp: connect: connection refused$/);
    store.delete('/admissionregistration.k8s.io/validatingwebhookconfigurations/dead');
    addConfig('validating', 'dead-ignore', [webhook({ name: 'dead.example.com', url: deadUrl, extra: { failurePolicy: 'Ignore' } })]);
    await chain.validate(createPod(pod('web')));
  });

  it('verifies the serving certificate against caBundle', async () => {
    const ws = await startWebhook(() => ({ allowed: true }));
    const hook = webhook({ name: 'tls.example.com', url: ws.url('/tls') });
    (hook.clientConfig as Json).caBundle = Buffer.from(otherCa.certPem).toString('base64');
    addConfig('validating', 'tls', [hook]);
    const err = await rejection(chain.validate(createPod(pod('web'))));
    assert.match(err.message, /failed to call webhook: Post "[^"]+": tls: failed to verify certificate: x509: certificate signed by unknown authority$/);
    assert.equal(ws.seen.length, 0);
  });

  it('reaches a service through its Endpoints', async () => {
    const ws = await startWebhook(() => allow([{ op: 'add', path: '/metadata/labels/via', value: 'service' }]));
    store.create('/core/services/default/webhook', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'webhook', namespace: 'default' },
      spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
    });
    store.create('/core/endpoints/default/webhook', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'webhook', namespace: 'default' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: ws.port }] }],
    });
    addConfig('mutating', 'svc', [
      { ...webhook({ name: 'svc.example.com', url: '' }), clientConfig: { service: { namespace: 'default', name: 'webhook', path: '/mutate' }, caBundle } },
    ]);
    const out = await chain.admit(createPod(pod('web')));
    assert.deepEqual(out.object?.metadata.labels, { via: 'service' });
    assert.equal(ws.seen[0]!.path, '/mutate?timeout=10s');

    store.delete('/core/endpoints/default/webhook');
    const err = await rejection(chain.admit(createPod(pod('web'))));
    assert.equal(
      err.message,
      'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://webhook.default.svc:443/mutate?timeout=10s": no endpoints available for service "webhook"',
    );
  });

  it('refuses dry run for webhooks with side effects, even under Ignore', async () => {
    const ws = await startWebhook(() => ({ allowed: true }));
    addConfig('validating', 'effects', [webhook({ name: 'effects.example.com', url: ws.url('/x'), extra: { sideEffects: 'Some', failurePolicy: 'Ignore' } })]);
    const err = await rejection(chain.validate(createPod(pod('web'), { dryRun: true })));
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, 'admission webhook "effects.example.com" does not support dry run');
    await chain.validate(createPod(pod('web')));
    assert.equal(ws.seen.length, 1);

    addConfig('mutating', 'dry-ok', [webhook({ name: 'dry.example.com', url: ws.url('/dry'), extra: { sideEffects: 'NoneOnDryRun' } })]);
    await chain.admit(createPod(pod('web'), { dryRun: true }));
    assert.equal(ws.seen.at(-1)!.request.dryRun, true);
  });
});

describe('match conditions', () => {
  it('skip the webhook when a condition is false', async () => {
    const ws = await startWebhook(() => allow([{ op: 'add', path: '/metadata/labels/checked', value: 'y' }]));
    addConfig('mutating', 'mc', [
      webhook({
        name: 'mc.example.com',
        url: ws.url('/mc'),
        extra: {
          matchConditions: [
            { name: 'not-system', expression: "!object.metadata.name.startsWith('system-')" },
            { name: 'is-create', expression: "request.operation == 'CREATE' && request.userInfo.username == 'alice'" },
          ],
        },
      }),
    ]);
    const skipped = await chain.admit(createPod(pod('system-web')));
    assert.equal(skipped.patched, false);
    assert.equal(ws.seen.length, 0);
    const hit = await chain.admit(createPod(pod('web')));
    assert.deepEqual(hit.object?.metadata.labels, { checked: 'y' });
  });

  it('answer 403 for an evaluation error under Fail, and skip under Ignore', async () => {
    const ws = await startWebhook(() => ({ allowed: true }));
    const conditions = [{ name: 'team', expression: "object.metadata.labels.team == 'a'" }];
    addConfig('validating', 'mc', [webhook({ name: 'mc.example.com', url: ws.url('/mc'), extra: { matchConditions: conditions } })]);
    const err = await rejection(chain.validate(createPod(pod('web'))));
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(err.message, `pods "web" is forbidden: expression 'object.metadata.labels.team == 'a'' resulted in error: no such key: team`);
    assert.equal(ws.seen.length, 0);

    store.delete('/admissionregistration.k8s.io/validatingwebhookconfigurations/mc');
    addConfig('validating', 'mc2', [webhook({ name: 'mc.example.com', url: ws.url('/mc'), extra: { matchConditions: conditions, failurePolicy: 'Ignore' } })]);
    await chain.validate(createPod(pod('web')));
    assert.equal(ws.seen.length, 0);
    await chain.validate(createPod(pod('web', { team: 'a' })));
    assert.equal(ws.seen.length, 1);
  });
});

describe('warnings, exemptions and equivalence', () => {
  it('collect warnings from both kinds, without repeats, also on denial', async () => {
    const ws = await startWebhook((_req, path) =>
      path.startsWith('/m')
        ? allow(undefined, { warnings: ['image tag latest is discouraged', 'image tag latest is discouraged'] })
        : path.startsWith('/deny')
          ? { allowed: false, warnings: ['last warning'], status: { message: 'no' } }
          : { allowed: true, warnings: ['validated with warnings'] },
    );
    addConfig('mutating', 'm', [webhook({ name: 'm.example.com', url: ws.url('/m') })]);
    addConfig('validating', 'v', [webhook({ name: 'v.example.com', url: ws.url('/v') })]);
    const admitted = await chain.admit(createPod(pod('web')));
    assert.deepEqual(admitted.warnings, ['image tag latest is discouraged']);
    const validated = await chain.validate(createPod(pod('web')));
    assert.deepEqual(validated.warnings, ['validated with warnings']);

    addConfig('validating', 'w', [webhook({ name: 'deny.example.com', url: ws.url('/deny') })]);
    try {
      await chain.validate(createPod(pod('web')));
      assert.fail('expected a denial');
    } catch (e) {
      assert.deepEqual(admissionWarnings(e), ['validated with warnings', 'last warning']);
    }
  });

  it('never send webhook configurations to webhooks', async () => {
    const ws = await startWebhook(() => ({ allowed: false }));
    addConfig('validating', 'all', [
      webhook({ name: 'all.example.com', url: ws.url('/all'), rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }),
    ]);
    await chain.validate({
      kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' },
      resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' },
      name: 'all',
      namespace: '',
      operation: 'DELETE',
      userInfo: { username: 'admin' },
      dryRun: false,
    });
    assert.equal(ws.seen.length, 0);
  });

  it('call an Equivalent webhook in the version its rules name', async () => {
    const ws = await startWebhook((request) => {
      const obj = request.object as KubeObject;
      return allow([{ op: 'add', path: '/metadata/labels/seen', value: String(obj.apiVersion).replace('/', '-') }]);
    });
    const v1: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
    const beta: GroupVersionResource = { group: 'apps', version: 'v1beta1', resource: 'deployments' };
    const equivalence: ResourceEquivalence = {
      equivalentResourcesFor: (r) => (r.group === 'apps' && r.resource === 'deployments' ? [v1, beta] : [r]),
      kindFor: (r) => ({ group: r.group, version: r.version, kind: 'Deployment' }),
      convert: (obj, to) => ({ ...obj, apiVersion: `${to.group}/${to.version}` }),
    };
    const eqChain = new AdmissionChain(store, { equivalence });
    const rule = { operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'] };
    addConfig('mutating', 'eq', [
      webhook({ name: 'eq.example.com', url: ws.url('/eq'), rules: [rule] }),
      webhook({ name: 'exact.example.com', url: ws.url('/exact'), rules: [rule], extra: { matchPolicy: 'Exact' } }),
    ]);
    const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default', labels: {} } };
    const out = await eqChain.admit({
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: v1,
      name: 'd',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object: deployment,
      dryRun: false,
    });
    assert.equal(ws.seen.length, 1, 'the Exact webhook is not called');
    const request = ws.seen[0]!.request;
    assert.deepEqual(request.kind, { group: 'apps', version: 'v1beta1', kind: 'Deployment' });
    assert.deepEqual(request.resource, beta);
    assert.deepEqual(request.requestKind, { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.deepEqual(request.requestResource, v1);
    assert.equal(out.object?.apiVersion, 'apps/v1', 'the result is converted back');
    assert.deepEqual(out.object?.metadata.labels, { seen: 'apps-v1beta1' });
  });
});
