/**
 * Controllers against the real embedded API server over HTTPS: a ConfigMap
 * controller that keeps a Secret per ConfigMap (For + Owns), Watches with a
 * mapping function, predicates, results, retries, conflicts, crashes,
 * terminal errors, concurrency, priorities and a clean shutdown.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '@operant/apimachinery';
import { TestEnv } from '@operant/testing';
import { isNotFound, type Client } from '../client/index.js';
import { SharedInformerFactory } from '../cache/shared-informers.js';
import { silentLogger } from '../cache/logger.js';
import { defineKind } from '../kind.js';
import { CapturingLogger } from '../testdata/capturing-logger.js';
import { realClock, type Clock, type Timer } from '../workqueue/clock.js';
import { controllerBuilder, type ControllerDeps } from './builder.js';
import type { Controller, ReconcileFunc } from './controller.js';
import { TerminalError } from './errors.js';
import type { ControllerMetrics, ReconcileResultLabel } from './metrics.js';
import { generationChanged } from './predicates.js';
import { requestFor, requestKey, type Request } from './request.js';
import { channelSource } from './source.js';

interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}
interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}
interface DeploymentObject extends KubeObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: { containers: Array<{ name: string; image: string }> } };
  };
  status?: Record<string, unknown>;
}

const ConfigMap = defineKind<ConfigMapObject>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
const Secret = defineKind<SecretObject>({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true });
const Deployment = defineKind<DeploymentObject>({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });

// ---- Test doubles: metrics, logs and a clock that counts its live timers.

class RecordingMetrics implements ControllerMetrics {
  readonly counts = new Map<string, number>();
  maxActive = 0;
  workers = 0;
  maxConcurrentReconciles(_c: string, workers: number): void {
    this.workers = workers;
  }
  activeWorkers(_c: string, active: number): void {
    this.maxActive = Math.max(this.maxActive, active);
  }
  reconcileTotal(_c: string, result: ReconcileResultLabel): void {
    this.bump(`total:${result}`);
  }
  reconcileErrors(): void {
    this.bump('errors');
  }
  terminalReconcileErrors(): void {
    this.bump('terminal');
  }
  reconcilePanics(): void {
    this.bump('panics');
  }
  reconcileTime(_c: string, seconds: number): void {
    assert.ok(seconds >= 0);
    this.bump('timed');
  }
  get(name: string): number {
    return this.counts.get(name) ?? 0;
  }
  private bump(name: string): void {
    this.counts.set(name, this.get(name) + 1);
  }
}

/** The real clock, keeping count of timers set and neither fired nor cancelled. */
class CountingClock implements Clock {
  readonly live = new Set<object>();
  now(): number {
    return realClock.now();
  }
  setTimer(callback: () => void, delayMs: number, options?: { background?: boolean }): Timer {
    const token = {};
    this.live.add(token);
    const timer = realClock.setTimer(
      () => {
        this.live.delete(token);
        callback();
      },
      delayMs,
      options,
    );
    return {
      cancel: () => {
        this.live.delete(token);
        timer.cancel();
      },
    };
  }
}

// ---- Harness

let env: TestEnv;
let client: Client;

before(async () => {
  env = await TestEnv.start();
  client = env.client;
});

after(() => env?.stop());

async function newNamespace(): Promise<string> {
  return (await env.namespace(undefined, { prefix: 'ctl' })).name;
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

interface Harness {
  ns: string;
  controller: Controller;
  metrics: RecordingMetrics;
  logs: CapturingLogger;
  clock: CountingClock;
  informers: SharedInformerFactory;
  stop(): Promise<void>;
}

/** Builds a controller in a fresh namespace, starts informers and controller, and stops both after the test. */
async function run(t: TestContext, build: (deps: ControllerDeps, ns: string) => Controller, options: { ns?: string } = {}): Promise<Harness> {
  const ns = options.ns ?? (await newNamespace());
  const metrics = new RecordingMetrics();
  const logs = new CapturingLogger();
  const clock = new CountingClock();
  const informers = new SharedInformerFactory(client, { namespace: ns, logger: silentLogger, clock });
  const controller = build({ client, informers, metrics, logger: logs, clock }, ns);
  const ac = new AbortController();
  informers.startAll(ac.signal);
  const done = controller.start(ac.signal);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      ac.abort();
      await done;
      await informers.stopAll();
    })());
  t.after(stop);
  await informers.waitForCacheSync(ac.signal);
  return { ns, controller, metrics, logs, clock, informers, stop };
}

const encode = (data: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));

function sameData(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());
}

/** The example controller: keeps a Secret, owned by the ConfigMap, holding the ConfigMap's data. */
function configMapToSecret(record: Array<{ key: string; outcome: string }>): ReconcileFunc {
  return async (req, { client, signal }) => {
    const key = requestKey(req);
    let cm: ConfigMapObject;
    try {
      cm = await client.get(ConfigMap, req.name, { namespace: req.namespace, signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      record.push({ key, outcome: 'gone' });
      return;
    }
    const data = encode(cm.data);
    try {
      const secret = await client.get(Secret, req.name, { namespace: req.namespace, signal });
      if (sameData(secret.data, data)) {
        record.push({ key, outcome: 'unchanged' });
        return;
      }
      await client.update(Secret, { ...secret, data }, { signal });
      record.push({ key, outcome: 'updated' });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await client.create(
        Secret,
        {
          metadata: {
            name: req.name,
            namespace: req.namespace,
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata.name!, uid: cm.metadata.uid!, controller: true, blockOwnerDeletion: true }],
          },
          data,
        },
        { signal },
      );
      record.push({ key, outcome: 'created' });
    }
  };
}

async function secretData(ns: string, name: string): Promise<Record<string, string> | undefined> {
  try {
    return (await client.get(Secret, name, { namespace: ns })).data ?? {};
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

function deployment(name: string, ns: string): DeploymentObject {
  return {
    metadata: { name, namespace: ns },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
    },
  };
}

// ---- Tests

describe('For and Owns: a ConfigMap controller keeping a Secret it owns', () => {
  test('create, update and delete flow', async (t) => {
    const record: Array<{ key: string; outcome: string }> = [];
    const h = await run(t, (deps) => controllerBuilder('cm-secrets', deps).for(ConfigMap).owns(Secret).reconcile(configMapToSecret(record)));
    const { ns } = h;

    await client.create(ConfigMap, { metadata: { name: 'app', namespace: ns }, data: { color: 'blue' } });
    await waitFor('the secret', async () => sameData(await secretData(ns, 'app'), encode({ color: 'blue' })));
    const secret = await client.get(Secret, 'app', { namespace: ns });
    assert.equal(secret.metadata.ownerReferences?.[0]?.controller, true);

    await client.patch(ConfigMap, 'app', { data: { color: 'green' } }, { namespace: ns });
    await waitFor('the secret to follow', async () => sameData(await secretData(ns, 'app'), encode({ color: 'green' })));

    await client.delete(ConfigMap, 'app', { namespace: ns });
    await waitFor('a reconcile of the deleted configmap', () => record.some((r) => r.key === `${ns}/app` && r.outcome === 'gone'));
    await waitFor('the garbage collector to delete the owned secret', async () => (await secretData(ns, 'app')) === undefined);

    assert.deepEqual(h.logs.at('error'), []);
    assert.equal(h.metrics.get('errors'), 0);
    assert.ok(h.metrics.get('total:success') >= 3);
    assert.equal(h.metrics.workers, 1);
    const reconcileLine = h.logs.lines.find((l) => l.msg === 'Reconciling');
    assert.equal(reconcileLine?.fields['controller'], 'cm-secrets');
    assert.equal(reconcileLine?.fields['controllerKind'], 'ConfigMap');
    assert.equal(reconcileLine?.fields['namespace'], ns);
    assert.equal(typeof reconcileLine?.fields['reconcileID'], 'string');
  });

  test('deleting or changing the owned Secret reconciles its owner, which repairs it', async (t) => {
    const record: Array<{ key: string; outcome: string }> = [];
    const h = await run(t, (deps) => controllerBuilder('cm-secrets-owns', deps).for(ConfigMap).owns(Secret).reconcile(configMapToSecret(record)));
    const { ns } = h;
    await client.create(ConfigMap, { metadata: { name: 'app', namespace: ns }, data: { k: 'v' } });
    await waitFor('the secret', async () => (await secretData(ns, 'app')) !== undefined);

    await client.delete(Secret, 'app', { namespace: ns });
    await waitFor('the secret to be recreated', () => record.filter((r) => r.outcome === 'created').length === 2);
    assert.ok(sameData(await secretData(ns, 'app'), encode({ k: 'v' })));

    await client.patch(Secret, 'app', { data: { k: Buffer.from('tampered').toString('base64') } }, { namespace: ns });
    await waitFor('the secret to be repaired', () => record.some((r) => r.outcome === 'updated'));
    assert.ok(sameData(await secretData(ns, 'app'), encode({ k: 'v' })));

    // A secret the configmap does not control reconciles nothing.
    const before = record.length;
    await client.create(Secret, { metadata: { name: 'unowned', namespace: ns }, data: {} });
    await client.patch(ConfigMap, 'app', { metadata: { labels: { touched: 'yes' } } }, { namespace: ns });
    await waitFor('the configmap change', () => record.length > before);
    assert.ok(record.slice(before).every((r) => r.key === `${ns}/app`));
    assert.deepEqual(h.logs.at('error'), []);
  });
});

describe('Watches with a mapping function', () => {
  test('a Secret labelled with a ConfigMap name reconciles that ConfigMap', async (t) => {
    const seen: string[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('cm-watches', deps)
        .for(ConfigMap)
        .watches(Secret, (s) => {
          const target = s.metadata.labels?.['config'];
          return target ? [{ namespace: s.metadata.namespace ?? '', name: target }] : [];
        })
        .reconcile((req) => {
          seen.push(requestKey(req));
        }),
    );
    const { ns } = h;
    await client.create(ConfigMap, { metadata: { name: 'target', namespace: ns } });
    await waitFor('the first reconcile', () => seen.length === 1);

    await client.create(Secret, { metadata: { name: 's1', namespace: ns, labels: { config: 'target' } }, data: {} });
    await waitFor('a reconcile from the secret', () => seen.length === 2);
    await client.create(Secret, { metadata: { name: 's2', namespace: ns, labels: { config: 'elsewhere' } }, data: {} });
    await waitFor('a reconcile for the other name', () => seen.includes(`${ns}/elsewhere`));
    // Relabelling maps both the old and the new object: both targets hear of it.
    await client.patch(Secret, 's1', { metadata: { labels: { config: 'third' } } }, { namespace: ns });
    await waitFor('both the former and the new target', () => seen.filter((k) => k === `${ns}/target`).length === 3 && seen.includes(`${ns}/third`));
  });
});

describe('Raw sources', () => {
  test('a channel source delivers generic events through its predicates, and ends with the controller', async (t) => {
    const seen: string[] = [];
    let ended = false;
    async function* external(signal: AbortSignal): AsyncGenerator<KubeObject> {
      try {
        for (const name of ['one', 'skip', 'two']) yield { metadata: { namespace: 'x', name } };
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      } finally {
        ended = true;
      }
    }
    const h = await run(t, (deps) =>
      controllerBuilder('channel', deps)
        .watchesRawSource(channelSource(external, (o: KubeObject) => [requestFor(o)], [{ generic: (e) => e.object.metadata.name !== 'skip' }]))
        .reconcile((req) => void seen.push(requestKey(req))),
    );
    await waitFor('the generic events', () => seen.length === 2);
    assert.deepEqual(seen.sort(), ['x/one', 'x/two']);
    await h.stop();
    await waitFor('the iterator to be closed', () => ended);
  });
});

describe('Predicates', () => {
  test('generationChanged on a Deployment: status-only and metadata-only writes do not reconcile', async (t) => {
    const generations: number[] = [];
    const statusUpdatesSeen: string[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('deployments', deps)
        .for(Deployment, { predicates: [generationChanged()] })
        .reconcile(async (req, { client }) => {
          const d = await client.get(Deployment, req.name, { namespace: req.namespace });
          generations.push(d.metadata.generation ?? 0);
        }),
    );
    const { ns } = h;
    h.informers.informerFor(Deployment).addEventHandler({
      update: (_old, d) => {
        if (d.status?.['observedGeneration'] !== undefined) statusUpdatesSeen.push(d.metadata.resourceVersion!);
      },
    });
    await client.create(Deployment, deployment('web', ns));
    await waitFor('the create to reconcile', () => generations.length === 1);

    await client.patch(Deployment, 'web', { status: { observedGeneration: 1, replicas: 1 } }, { namespace: ns, subresource: 'status' });
    await client.patch(Deployment, 'web', { metadata: { labels: { team: 'a' } } }, { namespace: ns });
    await waitFor('the informer to see the status write', () => statusUpdatesSeen.length > 0);
    await client.patch(Deployment, 'web', { spec: { replicas: 3 } }, { namespace: ns });
    await waitFor('the spec change to reconcile', () => generations.length === 2);
    await sleep(30);
    assert.deepEqual(generations, [1, 2], 'only the create and the spec change reconciled');
  });

  test('withEventFilter applies to every watch', async (t) => {
    const seen: string[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('filtered', deps)
        .for(ConfigMap)
        .withEventFilter({ create: (e) => e.object.metadata.labels?.['managed'] === 'true' })
        .reconcile((req) => void seen.push(req.name)),
    );
    await client.create(ConfigMap, { metadata: { name: 'skipped', namespace: h.ns } });
    await client.create(ConfigMap, { metadata: { name: 'managed', namespace: h.ns, labels: { managed: 'true' } } });
    await waitFor('the managed configmap', () => seen.includes('managed'));
    await sleep(20);
    assert.deepEqual(seen, ['managed']);
  });
});

describe('Reconcile results and errors', () => {
  test('requeueAfter reconciles again after the delay', async (t) => {
    const times: number[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('requeue-after', deps)
        .for(ConfigMap)
        .reconcile(() => {
          times.push(performance.now());
          return times.length < 3 ? { requeueAfter: 40 } : undefined;
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'tick', namespace: h.ns } });
    await waitFor('three reconciles', () => times.length === 3);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 38, `gap ${i} was ${times[i]! - times[i - 1]!} ms`);
    assert.equal(h.metrics.get('total:requeue_after'), 2);
    assert.equal(h.metrics.get('total:success'), 1);
  });

  test('requeueAfter takes Go duration strings: \'40ms\' waits 40 milliseconds, as { requeueAfter: 40 } does', async (t) => {
    const times: number[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('requeue-after-duration', deps)
        .for(ConfigMap)
        .reconcile(() => {
          times.push(performance.now());
          return times.length < 3 ? { requeueAfter: times.length === 1 ? '40ms' : '0.04s' } : undefined;
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'tick', namespace: h.ns } });
    await waitFor('three reconciles', () => times.length === 3);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 38, `gap ${i} was ${times[i]! - times[i - 1]!} ms`);
    assert.equal(h.metrics.get('total:requeue_after'), 2);
    assert.equal(h.metrics.get('total:success'), 1);
  });

  test('a requeueAfter string Go refuses fails the reconcile with Go\'s message, and the request is retried', async (t) => {
    let attempts = 0;
    const h = await run(t, (deps) =>
      controllerBuilder('requeue-after-bad', deps)
        .for(ConfigMap)
        .reconcile(() => (++attempts === 1 ? { requeueAfter: '30' } : undefined)), // seconds meant, no unit given
    );
    await client.create(ConfigMap, { metadata: { name: 'unitless', namespace: h.ns } });
    await waitFor('the retry to succeed', () => h.metrics.get('total:success') === 1);
    assert.equal(attempts, 2);
    assert.equal(h.metrics.get('total:error'), 1);
    assert.equal(h.metrics.get('total:requeue_after'), 0);
    const [line] = h.logs.at('error');
    assert.match(String((line?.fields.err as Error | undefined)?.message), /^time: missing unit in duration "30"$/);
  });

  test('a reconcile\'s log always has child (logr\'s WithValues), binding fields on top of the request\'s', async (t) => {
    const h = await run(t, (deps) =>
      controllerBuilder('with-values', deps)
        .for(ConfigMap)
        .reconcile((req, { log }) => {
          const runLog = log.child({ nextRun: '2025-01-01T00:05:00Z' });
          runLog.child({ currentRun: '2025-01-01T00:00:00Z' }).info({ job: 'a' }, 'created Job for CronJob run');
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'logged', namespace: h.ns } });
    await waitFor('the line', () => h.logs.at('info').some((l) => l.msg === 'created Job for CronJob run'));
    const line = h.logs.at('info').find((l) => l.msg === 'created Job for CronJob run')!;
    assert.deepEqual(
      { ...line.fields, reconcileID: typeof line.fields.reconcileID },
      {
        controller: 'with-values',
        controllerGroup: '',
        controllerKind: 'ConfigMap',
        namespace: h.ns,
        name: 'logged',
        reconcileID: 'string',
        nextRun: '2025-01-01T00:05:00Z',
        currentRun: '2025-01-01T00:00:00Z',
        job: 'a',
      },
    );
  });

  test('errors are retried with growing backoff, then forgotten on success', async (t) => {
    const times: number[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('retries', deps)
        .for(ConfigMap)
        .reconcile(() => {
          times.push(performance.now());
          if (times.length <= 5) throw new Error(`backend unavailable (attempt ${times.length})`);
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'flaky', namespace: h.ns } });
    await waitFor('success after five failures', () => h.metrics.get('total:success') === 1);
    assert.equal(times.length, 6, 'five failed attempts and one success');
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // Per-key exponential backoff: 5, 10, 20, 40, 80 ms.
    gaps.forEach((gap, i) => assert.ok(gap >= 5 * 2 ** i - 1, `gap ${i} was ${gap.toFixed(1)} ms, expected at least ${5 * 2 ** i}`));
    assert.equal(h.metrics.get('errors'), 5);
    assert.equal(h.metrics.get('total:error'), 5);
    assert.equal(h.metrics.get('panics'), 0);
    assert.equal(h.logs.at('error').length, 5);
    assert.equal(h.logs.at('error')[0]!.msg, 'Reconciler error');
    assert.equal(h.metrics.get('timed'), 6);
  });

  test('conflicts are requeued quietly: no error log, no error count', async (t) => {
    let attempts = 0;
    const h = await run(t, (deps) =>
      controllerBuilder('conflicts', deps)
        .for(ConfigMap, { predicates: [{ update: () => false }] })
        .reconcile(async (req, { client }) => {
          attempts++;
          const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace });
          // Twice, another writer changes the object between our read and our write: a real 409.
          if (attempts <= 2) await client.patch(ConfigMap, req.name, { metadata: { annotations: { writer: String(attempts) } } }, { namespace: req.namespace });
          await client.update(ConfigMap, { ...cm, data: { attempt: String(attempts) } });
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'contended', namespace: h.ns } });
    await waitFor('the write to succeed', () => h.metrics.get('total:success') === 1);
    assert.equal(attempts, 3);
    assert.equal(h.metrics.get('total:requeue'), 2);
    assert.equal(h.metrics.get('errors'), 0);
    assert.equal(h.metrics.get('total:error'), 0);
    assert.deepEqual(h.logs.at('error'), []);
    assert.equal(h.logs.lines.filter((l) => l.level === 'debug' && l.msg.startsWith('Conflict')).length, 2);
  });

  test('a crashing reconcile is caught, counted as a panic, retried, and the controller keeps running', async (t) => {
    const seen: string[] = [];
    const h = await run(t, (deps) =>
      controllerBuilder('crashes', deps)
        .for(ConfigMap)
        .reconcile(async (req) => {
          seen.push(req.name);
          if (req.name === 'bad' && seen.filter((n) => n === 'bad').length === 1) {
            const missing = undefined as unknown as { spec: { replicas: number } };
            return { requeueAfter: missing.spec.replicas }; // TypeError: a bug, not a reported failure
          }
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'bad', namespace: h.ns } });
    await waitFor('the retry after the crash', () => seen.filter((n) => n === 'bad').length === 2);
    assert.equal(h.metrics.get('panics'), 1);
    assert.equal(h.metrics.get('errors'), 1);
    const [line] = h.logs.at('error');
    assert.equal(line?.msg, 'Observed a panic in reconciler');
    assert.ok(line?.fields['err'] instanceof TypeError);
    await client.create(ConfigMap, { metadata: { name: 'good', namespace: h.ns } });
    await waitFor('the controller to go on', () => seen.includes('good'));
    assert.equal(h.controller.state, 'running');
  });

  test('a TerminalError is logged once and not retried; the next change reconciles again', async (t) => {
    let attempts = 0;
    const h = await run(t, (deps) =>
      controllerBuilder('terminal', deps)
        .for(ConfigMap)
        .reconcile(() => {
          attempts++;
          throw new TerminalError(new Error('spec.schedule is not a cron expression'));
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'invalid', namespace: h.ns } });
    await waitFor('the first attempt', () => attempts === 1);
    await sleep(100); // backoff would have retried 4 times by now
    assert.equal(attempts, 1);
    assert.equal(h.metrics.get('terminal'), 1);
    assert.equal(h.metrics.get('errors'), 1);
    assert.equal(h.logs.at('error').length, 1);
    await client.patch(ConfigMap, 'invalid', { data: { fixed: 'not yet' } }, { namespace: h.ns });
    await waitFor('a reconcile for the change', () => attempts === 2);
  });
});

describe('Workers and the queue', () => {
  test('maxConcurrentReconciles > 1 runs keys in parallel, never one key on two workers', async (t) => {
    const inFlight = new Map<string, number>();
    let concurrent = 0;
    let maxConcurrent = 0;
    let overlap = false;
    const counts = new Map<string, number>();
    const h = await run(t, (deps) =>
      controllerBuilder('parallel', deps)
        .for(ConfigMap)
        .maxConcurrentReconciles(3)
        .reconcile(async (req) => {
          const key = requestKey(req);
          if ((inFlight.get(key) ?? 0) > 0) overlap = true;
          inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
          maxConcurrent = Math.max(maxConcurrent, ++concurrent);
          counts.set(key, (counts.get(key) ?? 0) + 1);
          await sleep(15);
          concurrent--;
          inFlight.set(key, inFlight.get(key)! - 1);
          // Ask for more work on the same key while events for it keep arriving.
          return (counts.get(key) ?? 0) < 3 ? { requeue: true } : undefined;
        }),
    );
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    await Promise.all(names.map((name) => client.create(ConfigMap, { metadata: { name, namespace: h.ns } })));
    for (let i = 0; i < 5; i++) {
      await Promise.all(names.map((name) => client.patch(ConfigMap, name, { data: { i: String(i) } }, { namespace: h.ns })));
      await sleep(5);
    }
    await waitFor('every key to settle', () => names.every((n) => (counts.get(`${h.ns}/${n}`) ?? 0) >= 3) && concurrent === 0);
    assert.equal(overlap, false, 'a key was reconciled by two workers at once');
    assert.ok(maxConcurrent > 1, `expected parallel reconciles, saw at most ${maxConcurrent}`);
    assert.ok(maxConcurrent <= 3);
    assert.ok(h.metrics.maxActive > 1 && h.metrics.maxActive <= 3);
    assert.equal(h.metrics.workers, 3);
  });

  test('live changes overtake the initial list (low priority)', async (t) => {
    const ns = await newNamespace();
    for (let i = 0; i < 10; i++) await client.create(ConfigMap, { metadata: { name: `old-${i}`, namespace: ns } });
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const h = await run(
      t,
      (deps) =>
        controllerBuilder('priorities', deps)
          .for(ConfigMap)
          .reconcile(async (req) => {
            order.push(req.name);
            if (order.length === 1) await gate;
          }),
      { ns },
    );
    await waitFor('the first reconcile to block', () => order.length === 1);
    let liveSeen = false;
    h.informers.informerFor(ConfigMap).addEventHandler({ add: (cm) => void (cm.metadata.name === 'live' && (liveSeen = true)) });
    await client.create(ConfigMap, { metadata: { name: 'live', namespace: ns } });
    await waitFor('the informer to deliver the live add', () => liveSeen);
    release();
    await waitFor('everything', () => order.length === 11);
    assert.equal(order[1], 'live', `order was ${order.join(',')}`);
  });

  test('start waits for in-flight reconciles, aborts their signal, and leaves no timers', async (t) => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    let sawAbort = false;
    let started = false;
    const h = await run(t, (deps) =>
      controllerBuilder('shutdown', deps)
        .for(ConfigMap)
        .reconcile(async (req, { signal }) => {
          if (req.name === 'later') return { requeueAfter: 600_000 }; // a pending delayed requeue
          if (req.name === 'failing') throw new Error('retry me'); // a pending backoff
          started = true;
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          sawAbort = signal.aborted;
        }),
    );
    await client.create(ConfigMap, { metadata: { name: 'later', namespace: h.ns } });
    await client.create(ConfigMap, { metadata: { name: 'failing', namespace: h.ns } });
    await waitFor('the delayed requeue', () => h.metrics.get('total:requeue_after') === 1);
    await waitFor('a failure', () => h.metrics.get('errors') >= 1);
    await client.create(ConfigMap, { metadata: { name: 'slow', namespace: h.ns } });
    await waitFor('the slow reconcile', () => started);
    assert.ok(h.clock.live.size > 0, 'a requeue timer is pending');

    await h.stop();
    assert.equal(sawAbort, true);
    assert.equal(h.controller.state, 'stopped');
    assert.equal(h.clock.live.size, 0, 'timers left on the controller and informer clock');
    await waitFor('process timers back to the baseline', () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length <= before, 2000);
    await assert.rejects(h.controller.start(new AbortController().signal), /already started/);
  });

  test('start rejects when the caches never sync (informers not started)', async () => {
    const ns = await newNamespace();
    const informers = new SharedInformerFactory(client, { namespace: ns, logger: silentLogger });
    const controller = controllerBuilder('never-synced', { client, informers, logger: new CapturingLogger(), cacheSyncTimeoutMs: 50 })
      .for(ConfigMap)
      .reconcile(() => undefined);
    await assert.rejects(controller.start(new AbortController().signal), /failed to wait for never-synced caches to sync configmaps@ctl-\d+: timed out waiting for cache to be synced for Kind ConfigMap \(v1\)$/);
  });
});

describe('Builder validation', () => {
  const informers = (): SharedInformerFactory => new SharedInformerFactory(client, { logger: silentLogger });
  test('refuses incomplete or contradictory chains', () => {
    const deps = (): ControllerDeps => ({ client, informers: informers() });
    assert.throws(() => controllerBuilder('', deps()), /non-empty/);
    assert.throws(() => controllerBuilder('x', deps()).reconcile(() => undefined), /nothing to watch/);
    assert.throws(() => controllerBuilder('x', deps()).watches(ConfigMap, () => []).owns(Secret).reconcile(() => undefined), /owns\(\) needs for\(\)/);
    assert.throws(() => controllerBuilder('x', deps()).for(ConfigMap).for(Secret), /already called/);
    assert.throws(() => controllerBuilder('x', deps()).maxConcurrentReconciles(0), RangeError);
    const b = controllerBuilder('x', deps()).for(ConfigMap);
    const registered: Controller[] = [];
    const c = controllerBuilder('y', { ...deps(), onBuild: (ctl) => registered.push(ctl) }).for(ConfigMap).reconcile(() => undefined);
    assert.deepEqual(registered, [c]);
    b.reconcile(() => undefined);
    assert.throws(() => b.reconcile(() => undefined), /already called/);
  });

  test('for, owns and watches share the factory informers', () => {
    const factory = informers();
    controllerBuilder('a', { client, informers: factory }).for(ConfigMap).owns(Secret).reconcile(() => undefined);
    controllerBuilder('b', { client, informers: factory }).for(Secret).watches(ConfigMap, (): Request[] => []).reconcile(() => undefined);
    assert.deepEqual(factory.informers().map((i) => i.name).sort(), ['configmaps', 'secrets']);
  });
});
