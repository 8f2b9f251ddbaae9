/**
 * kubernetes/sample-controller (examples/sample-controller), run through the
 * fault proxy under a seeded chaos schedule while Foos are created, scaled
 * and deleted: afterwards every Foo has exactly one Deployment, named as it
 * asks, with its replicas, and no Deployment is left without its Foo. The
 * embedded server has no workload controllers, so nothing makes replicas
 * available: what is checked is what the controller itself owns.
 *
 * Then a deliberately broken controller, which creates a Deployment
 * (generateName) for each new Foo without looking for one first and retries
 * when the create fails: without faults it looks right; a schedule of creates
 * that the server applied but whose answers were lost gives Foos two
 * Deployments, and the same seed does it again.
 *
 * Replay a run of the convergence test with CHAOS_SEED=<seed> (each run prints its seed).
 */
import { after, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  Deployment,
  EventRecorder,
  createLogger,
  getControllerOf,
  isConflict,
  setControllerReference,
  silentLogger,
  type Typed,
} from '@operant/runtime';
import { Informer, SharedInformerFactory, objectKey } from '@operant/runtime/cache';
import { RateLimitingQueue } from '@operant/runtime/workqueue';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { FooController, newDeployment } from '@operant/sample-controller/src/controller.js';
import { FooKind, type Foo } from '@operant/sample-controller/src/foo.js';
import { chaos, TestEnv, WaitError, type ChaosReport, type FaultProxy } from '../src/index.js';

const sampleController = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples', 'sample-controller');
// Bookmarks every second (kube's default is a minute), so that dropping them is felt within a short schedule.
const env = await TestEnv.start({ crds: join(sampleController, 'artifacts', 'examples', 'crd.yaml'), server: { bookmarkIntervalMs: 1000 } });
after(() => env.stop());

/** The seed of the convergence test: set CHAOS_SEED to replay another run's. */
const seed = Number(process.env.CHAOS_SEED ?? 20251202);
/** The broken controller's schedule is fixed: the test is that this seed catches it, twice. */
const brokenSeed = 20251202;
const logger = createLogger({ level: process.env.OPERANT_LOG_LEVEL ?? 'silent' });
type DeploymentObject = Typed<appsv1.Deployment>;

/**
 * What is wrong with the Foos and Deployments of `namespace`, one line each:
 * a Foo without exactly one Deployment it controls, or with the wrong name or
 * replicas, or whose status disagrees with its Deployment; a Deployment whose
 * Foo is gone.
 */
async function problems(namespace: string, options: { namedAsAsked: boolean }): Promise<string[]> {
  const [foos, deployments] = await Promise.all([env.client.list(FooKind, { namespace }), env.client.list(Deployment, { namespace })]);
  const out: string[] = [];
  const live = foos.items.filter((f) => !f.metadata.deletionTimestamp);
  const byOwner = new Map<string, DeploymentObject[]>();
  for (const d of deployments.items) {
    const owner = getControllerOf(d);
    const foo = foos.items.find((f) => f.metadata.uid === owner?.uid);
    if (!foo) out.push(`Deployment ${d.metadata.name} has no Foo (controller ${owner ? `${owner.kind}/${owner.name}` : 'none'})`);
    else byOwner.set(foo.metadata.uid!, [...(byOwner.get(foo.metadata.uid!) ?? []), d]);
  }
  for (const foo of live) {
    const owned = byOwner.get(foo.metadata.uid!) ?? [];
    const name = foo.metadata.name;
    if (owned.length !== 1) {
      out.push(`Foo ${name} has ${owned.length} Deployments${owned.length ? `: ${owned.map((d) => d.metadata.name).join(', ')}` : ''}`);
      continue;
    }
    const d = owned[0]!;
    if (options.namedAsAsked && d.metadata.name !== foo.spec?.deploymentName) out.push(`Foo ${name}'s Deployment is ${d.metadata.name}, not ${foo.spec?.deploymentName}`);
    if (d.spec?.replicas !== foo.spec?.replicas) out.push(`Foo ${name} wants ${foo.spec?.replicas} replicas, its Deployment has ${d.spec?.replicas}`);
    if (options.namedAsAsked && (foo.status?.availableReplicas ?? -1) !== (d.status?.availableReplicas ?? 0)) {
      out.push(`Foo ${name} reports ${foo.status?.availableReplicas} available replicas, its Deployment ${d.status?.availableReplicas ?? 0}`);
    }
  }
  return out;
}

function converged(namespace: string, options: { namedAsAsked: boolean }, within: number): Promise<number> {
  return env.converges(
    async () => {
      const found = await problems(namespace, options);
      assert.deepEqual(found, [], `${found.length} problems:\n      ${found.join('\n      ')}`);
      return (await env.client.list(FooKind, { namespace })).items.length;
    },
    { namespace, within, quiet: 1000, message: `in ${namespace}` },
  );
}

function diagnose(t: TestContext, report: ChaosReport): void {
  for (const line of `${report.schedule.describe()}\n${report.summary()}`.split('\n')) t.diagnostic(line);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The sample controller as its main.ts wires it, but connected through `proxy`. */
async function runSampleController(proxy: FaultProxy, signal: AbortSignal): Promise<() => Promise<void>> {
  const client = Client.fromConfig(await proxy.clientConfig());
  const informers = new SharedInformerFactory(client, { logger, resyncPeriodMs: 30_000 });
  const recorder = new EventRecorder(client, { reportingController: 'sample-controller', logger });
  const controller = new FooController({ client, foos: informers.informerFor(FooKind), deployments: informers.informerFor(Deployment), recorder, logger });
  informers.startAll(signal);
  const running = controller.run(2, signal);
  return async () => {
    await running;
    await informers.stopAll();
    await recorder.close();
    client.close();
  };
}

describe('the sample-controller under a seeded chaos schedule', () => {
  test('every Foo converges: one Deployment each, named as asked, with its replicas; none orphaned', async (t) => {
    const ns = await env.namespace(t, { prefix: 'foos' });
    const proxy = await env.faultProxy();
    const stop = new AbortController();
    const stopped = await runSampleController(proxy, stop.signal);
    // The controller stops before its proxy does, so that its last writes (events) still have a way out.
    t.after(async () => {
      stop.abort();
      await stopped();
      await proxy.stop();
    });

    const schedule = chaos({ seed, duration: 12_000 });
    const play = proxy.play(schedule, { log: (line) => t.diagnostic(line) });
    // The user, straight to the server: Foos created, scaled and deleted while the faults come.
    const foo = (i: number, replicas: number): Foo => ({ metadata: { name: `foo-${i}`, namespace: ns.name }, spec: { deploymentName: `foo-${i}-web`, replicas } });
    let next = 0;
    for (; next < 8; next++) await env.client.create(FooKind, foo(next, 1 + (next % 3)));
    const deleted = new Set<number>();
    for (let step = 0; step < 36; step++) {
      await sleep(300);
      const i = (step * 5) % next;
      if (step % 9 === 4 && !deleted.has(i)) {
        await env.client.delete(FooKind, `foo-${i}`, { namespace: ns.name });
        deleted.add(i);
      } else if (step % 3 === 2) {
        await env.client.create(FooKind, foo(next++, 2));
      } else if (!deleted.has(i)) {
        // The controller writes the Foo's status meanwhile: read again on a conflict, as kubectl scale would.
        for (;;) {
          const current = await env.client.get(FooKind, `foo-${i}`, { namespace: ns.name });
          const scaled = await env.client.update(FooKind, { ...current, spec: { ...current.spec, replicas: ((current.spec?.replicas ?? 1) % 10) + 1 } }).catch((err: unknown) => {
            if (isConflict(err)) return undefined;
            throw err;
          });
          if (scaled) break;
        }
      }
    }
    const report = await play;
    diagnose(t, report);

    const foos = await converged(ns.name, { namedAsAsked: true }, 30_000);
    assert.equal(foos, next - deleted.size);
    assert.ok(report.records.filter((r) => r.type === 'hit').length >= 5, 'the faults hit the controller\'s requests');
  });
});

/**
 * The broken controller: for each Foo it is told about, it creates a
 * Deployment, retrying until a create succeeds; it never looks for one it
 * made before. Correct as long as every create's answer arrives.
 */
function runBrokenController(client: Client, signal: AbortSignal): Promise<void> {
  const foos = new Informer<Foo>(client.listerWatcher(FooKind), { logger: silentLogger });
  const queue = new RateLimitingQueue<string>({ name: 'broken' });
  foos.addEventHandler({ add: (f) => queue.add(objectKey(f)) });
  foos.start(signal);
  signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  const worker = async (): Promise<void> => {
    for (;;) {
      const item = await queue.get();
      if (item.shutdown) return;
      const foo = foos.store.get(item.key);
      try {
        if (foo) {
          const d = newDeployment(foo);
          d.metadata = { generateName: `${foo.spec?.deploymentName}-`, namespace: foo.metadata.namespace };
          setControllerReference(foo, d, FooKind);
          await client.create(Deployment, d);
        }
        queue.forget(item.key);
      } catch {
        queue.addRateLimited(item.key);
      } finally {
        queue.done(item.key);
      }
    }
  };
  return Promise.all([worker(), worker()]).then(() => foos.stop());
}

describe('a controller that creates without looking first', () => {
  const lostCreates = (s: number) =>
    chaos({
      seed: s,
      duration: 4000,
      meanGapMs: 500,
      faults: [
        { kind: 'error', code: 504, applied: true, verbs: ['create'], resources: ['deployments.apps'], probability: 0.5 },
        { kind: 'reset', applied: true, verbs: ['create'], resources: ['deployments.apps'], probability: 0.5 },
      ],
    });

  /** Runs the broken controller through a proxy, creating a Foo every 150 ms for 4 s, with `schedule` (or none); returns the problems. */
  async function brokenRun(t: TestContext, schedule: ReturnType<typeof lostCreates> | undefined): Promise<{ error: unknown; report?: ChaosReport }> {
    const ns = await env.namespace(t, { prefix: 'broken' });
    const proxy = await env.faultProxy();
    const client = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
    const stop = new AbortController();
    const running = runBrokenController(client, stop.signal);
    t.after(async () => {
      stop.abort();
      await running;
      client.close();
      await proxy.stop();
    });
    const play = schedule ? proxy.play(schedule, { log: (line) => t.diagnostic(line) }) : undefined;
    for (let i = 0; i < 26; i++) {
      await env.client.create(FooKind, { metadata: { name: `foo-${i}`, namespace: ns.name }, spec: { deploymentName: `foo-${i}-web`, replicas: 1 } });
      await sleep(150);
    }
    const report = await play;
    if (report) diagnose(t, report);
    const error = await converged(ns.name, { namedAsAsked: false }, 5000).then(
      () => undefined,
      (err: unknown) => err,
    );
    return { error, report };
  }

  test('without faults it looks right', async (t) => {
    const { error } = await brokenRun(t, undefined);
    assert.equal(error, undefined);
  });

  test('is caught by a schedule of creates whose answers are lost, and the same seed catches it again', async (t) => {
    const first = await brokenRun(t, lostCreates(brokenSeed));
    const again = await brokenRun(t, lostCreates(brokenSeed));
    for (const run of [first, again]) {
      assert.ok(run.error instanceof WaitError, `caught: ${String(run.error)}`);
      assert.match(run.error.message, /^converges in broken-\d+: not converged within 5000 ms: the check still fails/);
      assert.match(run.error.message, /Foo foo-\d+ has ([2-9]|\d\d+) Deployments: foo-\d+-web-\w+, foo-\d+-web-\w+/);
      assert.ok(run.report!.failedWrites.some((w) => w.applied && w.verb === 'create' && w.resource === 'deployments.apps'));
    }
    // The same seed: the same faults, planned at the same offsets, and each started at its offset:
    // never before it, and late only by the timers' lateness (which a loaded machine stretches, so the
    // bound is generous; the exact offsets are compared through the schedules below).
    const starts = (r: ChaosReport) => r.records.filter((x) => x.type === 'start');
    assert.deepEqual(starts(again.report!).map((x) => x.fault), starts(first.report!).map((x) => x.fault));
    assert.deepEqual(starts(first.report!).map((x) => x.fault), first.report!.schedule.entries.map((e) => e.fault));
    for (const run of [first, again]) {
      starts(run.report!).forEach((x, i) => {
        const planned = run.report!.schedule.entries[i]!.at;
        assert.ok(x.at >= planned - 1 && x.at - planned < 1000, `fault ${i} planned at ${planned} ms, started at ${x.at} ms`);
      });
    }
    assert.equal(again.report!.schedule.describe(), first.report!.schedule.describe());
  });
});
