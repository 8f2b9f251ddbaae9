/**
 * @kubernetes/client-node against the embedded server, with the kubeconfig the
 * server hands out: its informer sees adds, updates and deletes, resumes after
 * the server ends a watch without replaying objects, and relists after a 410;
 * KubernetesObjectApi creates, reads, patches (server-side apply included) and deletes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ADD,
  ApiException,
  CONNECT,
  CoreV1Api,
  DELETE,
  ERROR,
  KubeConfig,
  KubernetesObjectApi,
  ListWatch,
  PatchStrategy,
  UPDATE,
  makeInformer,
  type Informer,
  type KubernetesObject,
  type ObjectCache,
  type V1ConfigMap,
  type V1Pod,
} from '@kubernetes/client-node';
import { TestApi, configMap } from './support/api-client.js';

/** Small, so that a few hundred writes expire the informer's resourceVersion. */
const historyCapacity = 100;
/** The server ends every watch after 300-600 ms, as kube does after 30-60 minutes. */
const defaultWatchTimeoutMs = 300;

let api: TestApi;
let kc: KubeConfig;
let core: CoreV1Api;

before(async () => {
  api = await TestApi.start({ historyCapacity, defaultWatchTimeoutMs });
  kc = new KubeConfig();
  kc.loadFromString(api.server.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
after(async () => {
  await api?.stop();
});

const pod = (name: string, labels: Record<string, string> = {}): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] },
});

type Verb = 'add' | 'update' | 'delete' | 'connect' | 'error';

/** Records an informer's callbacks and lets a test wait for one. */
class Recorder {
  readonly seen: Array<{ verb: Verb; name: string; rv: string }> = [];
  errors: unknown[] = [];
  private waiters: Array<() => void> = [];

  constructor(informer: Informer<V1Pod>) {
    const record = (verb: Verb) => (obj?: V1Pod | unknown) => {
      const meta = (obj as V1Pod | undefined)?.metadata;
      if (verb === 'error') this.errors.push(obj);
      this.seen.push({ verb, name: meta?.name ?? '', rv: meta?.resourceVersion ?? '' });
      const ws = this.waiters;
      this.waiters = [];
      for (const w of ws) w();
    };
    informer.on(ADD, record('add'));
    informer.on(UPDATE, record('update'));
    informer.on(DELETE, record('delete'));
    informer.on(CONNECT, record('connect'));
    informer.on(ERROR, record('error'));
  }

  /** Object callbacks (add, update, delete) as `verb name`, from index `from`. */
  changes(from = 0): string[] {
    return this.seen.slice(from).filter((e) => e.verb !== 'connect' && e.verb !== 'error').map((e) => `${e.verb} ${e.name}`);
  }

  count(verb: Verb, from = 0): number {
    return this.seen.slice(from).filter((e) => e.verb === verb).length;
  }

  /** Resolves once `cond` holds; fails after a generous bound (a safety net, not a delay). */
  async until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (cond()) return;
    await new Promise<void>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(this.seen)}`));
      }, timeoutMs);
      const check = (): void => {
        if (timedOut) return;
        if (cond()) {
          clearTimeout(timer);
          resolve();
        } else this.waiters.push(check);
      };
      this.waiters.push(check);
    });
  }
}

/** A pod informer on one namespace, counting its list calls. */
function podInformer(ns: string): { informer: Informer<V1Pod> & ObjectCache<V1Pod>; rec: Recorder; lists: () => number } {
  let lists = 0;
  const informer = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${ns}/pods`, () => {
    lists++;
    return core.listNamespacedPod({ namespace: ns });
  });
  return { informer, rec: new Recorder(informer), lists: () => lists };
}

async function fillHistory(ns: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => api.ok('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(`fill-${Date.now()}-${i + j}`), 201)));
  }
}

describe('makeInformer on pods', () => {
  it('sees adds, updates and deletes', async () => {
    const ns = 'cn-basic';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedPod({ namespace: ns, body: pod('p0') });
    const { informer, rec } = podInformer(ns);
    await informer.start();
    try {
      await rec.until(() => rec.count('add') === 1, 'the listed pod');
      assert.equal(informer.list(ns).length, 1);

      const p1 = await core.createNamespacedPod({ namespace: ns, body: pod('p1') });
      await rec.until(() => rec.changes().includes('add p1'), 'add p1');
      // client-node's typed patch sends a JSON patch.
      const p1b = await core.patchNamespacedPod({ namespace: ns, name: 'p1', body: [{ op: 'add', path: '/metadata/labels', value: { tier: 'web' } }] });
      await rec.until(() => rec.changes().includes('update p1'), 'update p1');
      const updated = informer.get('p1', ns)!;
      assert.deepEqual(updated.metadata?.labels, { tier: 'web' });
      assert.equal(updated.metadata?.resourceVersion, p1b.metadata?.resourceVersion);
      assert.notEqual(updated.metadata?.resourceVersion, p1.metadata?.resourceVersion);

      await core.deleteNamespacedPod({ namespace: ns, name: 'p1' });
      await rec.until(() => rec.changes().includes('delete p1'), 'delete p1');
      assert.equal(informer.get('p1', ns), undefined);
      assert.deepEqual(rec.changes(), ['add p0', 'add p1', 'update p1', 'delete p1']);
      assert.deepEqual(rec.errors, []);
    } finally {
      await informer.stop();
    }
  });

  it('resumes after the server ends its watch, without replaying objects as updates or relisting', async () => {
    const ns = 'cn-resume';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    for (const name of ['r0', 'r1', 'r2']) await core.createNamespacedPod({ namespace: ns, body: pod(name) });
    const { informer, rec, lists } = podInformer(ns);
    await informer.start();
    try {
      await rec.until(() => rec.count('add') === 3, 'the three listed pods');
      // The server ends each watch after 300-600 ms; wait for the informer to have re-watched three times.
      await rec.until(() => rec.count('connect') >= 4, 'three reconnects');
      assert.deepEqual(rec.changes(), ['add r0', 'add r1', 'add r2']);
      assert.equal(lists(), 1, 'resumed by watching from its resourceVersion, not by relisting');

      // It still sees changes after the reconnects, each exactly once.
      const mark = rec.seen.length;
      await api.ok('PATCH', `/api/v1/namespaces/${ns}/pods/r1`, { metadata: { labels: { x: '1' } } }, 200, { 'Content-Type': 'application/merge-patch+json' });
      await core.createNamespacedPod({ namespace: ns, body: pod('r3') });
      await rec.until(() => rec.changes(mark).includes('add r3'), 'add r3');
      const connects = rec.count('connect');
      await rec.until(() => rec.count('connect') >= connects + 2, 'two more reconnects');
      await core.deleteNamespacedPod({ namespace: ns, name: 'r0' });
      await rec.until(() => rec.changes(mark).includes('delete r0'), 'delete r0');
      assert.deepEqual(rec.changes(mark), ['update r1', 'add r3', 'delete r0']);
      assert.equal(lists(), 1);
      assert.deepEqual(rec.errors, []);
      assert.deepEqual(informer.list(ns).map((p) => p.metadata?.name).sort(), ['r1', 'r2', 'r3']);
    } finally {
      await informer.stop();
    }
  });

  it('relists after a 410 when its resourceVersion expired while it was idle', async () => {
    const ns = 'cn-idle';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespace({ body: { metadata: { name: `${ns}-fill` } } });
    for (const name of ['s0', 's1']) await core.createNamespacedPod({ namespace: ns, body: pod(name) });
    const { informer, rec, lists } = podInformer(ns);
    await informer.start();
    try {
      await rec.until(() => rec.count('add') === 2, 'the listed pods');
      assert.equal(lists(), 1);
      // Writes elsewhere roll the (global) history past the informer's resourceVersion; its
      // next re-watch gets HTTP 200 with an ERROR 410 event, and it must list again.
      await fillHistory(`${ns}-fill`, historyCapacity + 20);
      await rec.until(() => lists() >= 2, 'a relist');
      // Nothing changed in its namespace: the relist replays nothing.
      assert.deepEqual(rec.changes(), ['add s0', 'add s1']);
      // And it keeps watching afterwards.
      await core.createNamespacedPod({ namespace: ns, body: pod('s2') });
      await rec.until(() => rec.changes().includes('add s2'), 'add s2');
      assert.deepEqual(rec.errors, []);
    } finally {
      await informer.stop();
    }
  });

  it('relists after a 410 and reports what changed while its watch was down', async () => {
    const ns = 'cn-relist';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespace({ body: { metadata: { name: `${ns}-fill` } } });
    for (const name of ['q0', 'q1', 'q2']) await core.createNamespacedPod({ namespace: ns, body: pod(name) });
    const { informer, rec, lists } = podInformer(ns);
    await informer.start();
    await rec.until(() => rec.count('add') === 3, 'the listed pods');
    assert.ok(informer instanceof ListWatch);
    const rvBefore = informer.latestResourceVersion();

    // Take the watch down (client-node reports the aborted request as an error, at once).
    await informer.stop();
    const mark = rec.seen.length;
    const errorsBefore = rec.errors.length;

    // While it is down: changes in its namespace, then enough writes to expire its resourceVersion.
    await api.ok('PATCH', `/api/v1/namespaces/${ns}/pods/q1`, { metadata: { labels: { changed: 'yes' } } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    await core.deleteNamespacedPod({ namespace: ns, name: 'q2' });
    await core.createNamespacedPod({ namespace: ns, body: pod('q3') });
    await fillHistory(`${ns}-fill`, historyCapacity + 20);
    const expired = await api.watch(`/api/v1/namespaces/${ns}/pods?watch=true&resourceVersion=${rvBefore}`);
    assert.equal((await expired.next()).object.code, 410, 'the informer\'s resourceVersion has expired');
    expired.close();

    try {
      await informer.start();
      await rec.until(() => rec.changes(mark).length >= 3, 'the relist\'s changes');
      assert.equal(lists(), 2);
      assert.deepEqual(rec.changes(mark).sort(), ['add q3', 'delete q2', 'update q1']);
      assert.equal(rec.errors.length, errorsBefore, 'no errors after the restart');
      assert.deepEqual(informer.list(ns).map((p) => p.metadata?.name).sort(), ['q0', 'q1', 'q3']);
      assert.deepEqual(informer.get('q1', ns)?.metadata?.labels, { changed: 'yes' });
      // And it watches from the new list's resourceVersion.
      await core.deleteNamespacedPod({ namespace: ns, name: 'q0' });
      await rec.until(() => rec.changes(mark).includes('delete q0'), 'delete q0');
      assert.equal(lists(), 2);
    } finally {
      await informer.stop();
    }
  });
});

describe('KubernetesObjectApi', () => {
  it('creates, reads, patches and deletes', async () => {
    const client = KubernetesObjectApi.makeApiClient(kc);
    const ns = 'cn-objects';
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

    const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns, labels: { app: 'demo' } }, data: { a: '1' } } as V1ConfigMap;
    const created = await client.create(spec);
    assert.equal(created.metadata?.name, 'settings');
    assert.ok(created.metadata?.uid);
    assert.ok(created.metadata?.resourceVersion);

    const read = (await client.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns } })) as V1ConfigMap;
    assert.equal(read.metadata?.uid, created.metadata?.uid);
    assert.deepEqual(read.data, { a: '1' });

    // The default patch type is a strategic merge patch.
    const patched = (await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data: { b: '2' } } as V1ConfigMap)) as V1ConfigMap;
    assert.deepEqual(patched.data, { a: '1', b: '2' });
    assert.ok(Number(patched.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
    const merged = (await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns, labels: { app: 'demo', extra: 'x' } } } as KubernetesObject,
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as V1ConfigMap;
    assert.deepEqual(merged.metadata?.labels, { app: 'demo', extra: 'x' });
    assert.deepEqual(merged.data, { a: '1', b: '2' });

    // A pod, whose strategic merge patch merges containers by name.
    const podSpec = { ...pod('web'), metadata: { name: 'web', namespace: ns } };
    const createdPod = (await client.create(podSpec)) as V1Pod;
    assert.equal(createdPod.spec?.containers[0].image, 'registry.k8s.io/pause:3.9');
    const patchedPod = (await client.patch({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: ns },
      spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
    } as V1Pod)) as V1Pod;
    assert.equal(patchedPod.spec?.containers.length, 1);
    assert.equal(patchedPod.spec?.containers[0].image, 'registry.k8s.io/pause:3.10');

    const list = await client.list('v1', 'ConfigMap', ns);
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['settings']);

    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns } });
    await assert.rejects(
      client.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns } }),
      (err: unknown) => err instanceof ApiException && err.code === 404,
    );
    await client.delete({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: ns } });
    await assert.rejects(
      client.read({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: ns } }),
      (err: unknown) => err instanceof ApiException && err.code === 404,
    );
  });

  it('applies server-side: creates when absent, conflicts with another manager’s field unless forced', async () => {
    const client = KubernetesObjectApi.makeApiClient(kc);
    const ns = 'cn-apply';
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns }, data: { owner: 'one' } } as V1ConfigMap;
    const first = (await client.patch(applied, undefined, undefined, 'one', undefined, PatchStrategy.ServerSideApply)) as V1ConfigMap;
    assert.deepEqual(first.metadata?.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]), [['one', 'Apply', { 'f:data': { 'f:owner': {} } }]]);
    const other = { ...applied, data: { owner: 'two' } } as V1ConfigMap;
    await assert.rejects(
      client.patch(other, undefined, undefined, 'two', undefined, PatchStrategy.ServerSideApply),
      (err: unknown) => err instanceof ApiException && err.code === 409 && /Apply failed with 1 conflict: conflict with \\"one\\": \.data\.owner/.test(String(err.body)),
    );
    const forced = (await client.patch(other, undefined, undefined, 'two', true, PatchStrategy.ServerSideApply)) as V1ConfigMap;
    assert.deepEqual(forced.data, { owner: 'two' });
  });
});
