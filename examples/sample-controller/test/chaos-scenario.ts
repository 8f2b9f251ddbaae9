/**
 * The sample-controller under one seeded schedule of every fault kind at
 * once (issue 20's proof), shared by its test (about 15 s of faults) and the
 * `chaos` benchmark (60 s):
 *
 * - the operator: 3 replicas of src/main.ts with --leader-elect, each its own
 *   process, talking to the API server through a fault proxy, and restarted
 *   when they exit, as a Deployment's pods would be;
 * - the cluster: a TestEnv with 3 simulated nodes (the deployment and
 *   replicaset controllers, the scheduler, kubelets on a clock 100x fast, so
 *   that a node's 40 s grace period and its pods' back-offs fit in a window),
 *   and a short event history (1,000 events, some 20 s of this cluster's
 *   writes), so that a replica that comes back to a watch late meets the
 *   server's own 410 between compactions too (rare in practice: the
 *   replicas resume within a second or two);
 * - the schedule: every request fault kind, every cluster fault (pods of the
 *   test namespace, simulated nodes), both operator faults (SIGKILL to the
 *   leader, and SIGTERM to the leader while a write of its reconcile is held
 *   in flight by the proxy) and the server faults: the API server (durable,
 *   its data in SQLite) down for a window and started again, and its history
 *   compacted, as etcd's compaction, so that watches resuming from before it
 *   get the server's own 410;
 * - the user: Foos created, scaled and deleted, straight to the server,
 *   while the faults come (trying again while the server is down).
 *
 * Then, after the faults stop, it measures how long until every Foo has
 * converged: one Deployment each, named as asked, with its replicas all
 * available and counted in the Foo's status, no duplicates, no orphans, and
 * nothing changing for a second.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceleratedClock } from '@operant/controllers';
import { ApiError } from '@operant/runtime';
import {
  TestEnv,
  allFaultKinds,
  chaos,
  clusterFaultKinds,
  faultKinds,
  type ChaosPlan,
  type ChaosReport,
  type ChaosSchedule,
  type ReconcileErrorLine,
  type ReplicaProcess,
  type Replicas,
} from '@operant/testing';
import { FooKind, type Foo } from '../src/foo.js';
import { problems } from './problems.js';
import { scaleFoo } from './scale-foo.js';

const exampleDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(exampleDir, 'src', 'main.ts');

/** The Lease's timing, as kube-controller-manager's flags take it: short, so that a killed leader's Lease runs out within a window or two. */
export const electionTiming = { leaseDuration: '3s', renewDeadline: '2s', retryPeriod: '500ms' };

/** What a replica process did, read from its log lines. */
export interface ReplicaRun {
  readonly name: string;
  /** `performance.now()` when it took the Lease, if it did. */
  readonly ledAt?: number;
  /** Reconciles it finished ("Successfully synced"). */
  readonly synced: number;
  /** Watches of its informers that met 410 Expired and relisted (from the proxy's `expire`, or the server's short history). */
  readonly relists: number;
}

/**
 * The schedule of a run, a pure function of its arguments (a seed names one
 * schedule for good): a plan of every kind of fault, once in each 15 s,
 * each where it has something to strike (below), and over it random request
 * and pod faults, unscoped (the replicas' informers watch all namespaces)
 * but for pod faults, in `namespace`.
 *
 * Why a plan: in a random schedule, half the kinds may find nothing to act
 * on. `expire` answers only a watch that resumes during its window, and the
 * replicas' watches resume only after something ended them (plus about a
 * second of back-off); `kill-leader` and `terminate-leader` strike only a
 * replica that holds the Lease (none does for some 4 s after a kill); a
 * cluster fault needs the server up to find its victim, `crash-container` a
 * running pod; `compact` misses while the server restarts. So, in each 15 s:
 *
 * - `drop-bookmarks` first, for over a bookmark interval (the server sends
 *   one a second), while every replica's watches are open: after a cut, and
 *   more so after 410s, the informers' back-off can keep them closed for
 *   seconds;
 * - then `cut-watch` for over a second (events come several times a second:
 *   every open watch is cut), and `expire` from just after it for over 3 s,
 *   so that the resuming watches (about a second of back-off) meet it;
 * - `kill-leader` at 2.4 s, when the first leader leads (its successor takes
 *   the Lease some 4 s later);
 * - `error`, `reset`, `partition` and `latency` one after another, each on
 *   its own; `error` and `reset` on every request for about a second (at the
 *   default half of the requests, a window while no replica leads, with
 *   little but the standbys' Lease reads, could strike none), a partition
 *   under the 2 s renew deadline;
 * - the pod faults from 7.4 s, when the first Foos' pods run, and the node
 *   faults after them;
 * - `terminate-leader` at 8.6 s, for 2-3 s to catch a reconcile's write, when
 *   the successor leads;
 * - `compact` at 10.8 s, then `restart-server` at 12.2 s, last, so that no
 *   other planned fault meets the server down.
 *
 * The random faults are those that take no fault's target away: not
 * partitions (two at once would outlast the renew deadline), node, operator
 * or server faults.
 */
export function combinedSchedule(seed: number, durationMs: number, namespace: string): ChaosSchedule {
  const inNamespace = { namespaces: [namespace] };
  const plan: ChaosPlan = {
    everyMs: 15_000,
    faults: [
      { kind: 'drop-bookmarks', at: 0, jitterMs: 100, windowMs: [1200, 1500] },
      { kind: 'cut-watch', at: 1700, jitterMs: 200, windowMs: [1200, 1500] },
      { kind: 'expire', at: 2100, jitterMs: 200, windowMs: [3000, 3400] },
      { kind: 'kill-leader', at: 2400, jitterMs: 200 },
      { kind: 'error', at: 4000, jitterMs: 200, windowMs: [900, 1200], probability: 1 },
      { kind: 'reset', at: 5600, jitterMs: 200, windowMs: [900, 1200], probability: 1 },
      { kind: 'partition', at: 7200, jitterMs: 200, windowMs: [300, 1000] },
      { kind: 'delete-pod', at: 7400, jitterMs: 200, ...inNamespace },
      { kind: 'crash-container', at: 7800, jitterMs: 200, windowMs: [1000, 3000], ...inNamespace },
      { kind: 'latency', at: 8400, jitterMs: 200, windowMs: [1000, 2000] },
      { kind: 'terminate-leader', at: 8600, jitterMs: 200, windowMs: [2000, 3000] },
      { kind: 'node-not-ready', at: 9000, jitterMs: 200, windowMs: [2000, 4000] },
      { kind: 'image-pull-failure', at: 9400, jitterMs: 200, windowMs: [1000, 3000] },
      { kind: 'compact', at: 10_800, jitterMs: 200 },
      { kind: 'restart-server', at: 12_200, jitterMs: 200, windowMs: [300, 1000] },
    ],
  };
  const podFaults = new Set<string>(['delete-pod', 'crash-container']);
  return chaos({
    seed,
    duration: durationMs,
    meanGapMs: 1000,
    faults: [
      ...faultKinds.filter((kind) => kind !== 'partition'),
      ...clusterFaultKinds.filter((kind) => podFaults.has(kind)).map((kind) => ({ kind, ...inNamespace })),
    ],
    plan,
  });
}

/** Options of {@link runCombinedChaos}. */
export interface CombinedChaosOptions {
  seed: number;
  durationMs: number;
  /** How long the Foos may take to converge once the faults have stopped. */
  convergeWithinMs: number;
  /** Progress, a line at a time (the seed first). */
  log: (line: string) => void;
  /** At most this many Foos are created in all; default 20. */
  maxFoos?: number;
  /**
   * Goes on playing past `durationMs`, into the schedule's next periods (the
   * same plan again: a longer schedule starts with the shorter one), until
   * every kind of fault has struck, for at most this long. The plan places
   * each fault where its target should be (a leader, resuming watches,
   * running pods), at offsets an unloaded machine keeps; on a loaded one the
   * replicas lag (a leader elected later, watches resuming later) and a
   * window can pass with nothing to strike.
   */
  untilStruckWithinMs?: number;
}

/** What a run did and how it ended. */
export interface CombinedChaosResult {
  schedule: ChaosSchedule;
  report: ChaosReport;
  /** The namespace of the Foos. */
  namespace: string;
  /** Foos alive at the end. */
  foos: number;
  /** From the end of the faults to converged (check passing and a quiet second), ms. */
  convergedAfterMs: number;
  /** What is still wrong when it did not converge (empty when it did). */
  problems: string[];
  /** Every replica process, in start order. */
  processes: readonly ReplicaRun[];
  /** The processes that took the Lease, in order. */
  leaders: readonly ReplicaRun[];
  leaseTransitions: number;
}

/** Runs the scenario on a fresh environment, stopping everything it started. */
export async function runCombinedChaos(options: CombinedChaosOptions): Promise<CombinedChaosResult> {
  const { seed, durationMs } = options;
  const log = (text: string): void => text.split('\n').forEach((line) => options.log(line));
  const env = await TestEnv.start({
    crds: join(exampleDir, 'artifacts', 'examples', 'crd.yaml'),
    cluster: { nodes: 3, clock: acceleratedClock(100) },
    // On disk, so that the server can be restarted with its data.
    durable: true,
    // Bookmarks every second, so that dropping them is felt; a short history, so that resuming watches can be too old.
    server: { bookmarkIntervalMs: 1000, historyCapacity: 1000 },
  });
  let replicas: Replicas | undefined;
  try {
    const ns = await env.namespace(undefined, { prefix: 'chaos' });
    const proxy = await env.faultProxy();
    const lease = { name: 'sample-controller', namespace: ns.name };
    const counts = new Map<ReplicaProcess, { synced: number; relists: number }>();
    const counted = (p: ReplicaProcess): { synced: number; relists: number } => {
      let c = counts.get(p);
      if (!c) counts.set(p, (c = { synced: 0, relists: 0 }));
      return c;
    };
    const run = (p: ReplicaProcess): ReplicaRun => ({ name: p.name, ledAt: p.ledAt, ...counted(p) });
    // The sample-controller as a Deployment of 3 replicas runs it, on one Lease, through the proxy.
    replicas = await env.replicas({
      module: main,
      execArgv: ['--conditions=source', '--import', 'tsx'],
      args: [
        '--leader-elect',
        '--leader-elect-resource-name', lease.name,
        '--leader-elect-resource-namespace', lease.namespace,
        '--leader-elect-lease-duration', electionTiming.leaseDuration,
        '--leader-elect-renew-deadline', electionTiming.renewDeadline,
        '--leader-elect-retry-period', electionTiming.retryPeriod,
      ],
      count: 3,
      kubeconfig: proxy,
      lease,
      // Info lines are what tell who leads and who reconciles (the test runner sets warn for its own process).
      env: { OPERANT_LOG_LEVEL: 'info' },
      reconcileError: syncError,
      onLine: (p, line) => {
        if (line.includes('"msg":"Successfully synced"')) counted(p).synced++;
        else if (line.includes('"msg":"resourceVersion expired; relisting"')) counted(p).relists++;
      },
      log,
    });
    const first = await replicas.firstLeader();
    log(`${first.name} leads; playing the schedule`);

    const schedule = combinedSchedule(seed, Math.max(durationMs, options.untilStruckWithinMs ?? 0), ns.name);
    log(schedule.describe());
    // The operator faults: SIGKILL to the replica holding the Lease; or a write of the leader's reconcile
    // held in the proxy for a second, and SIGTERM to the leader while it waits (it must finish that
    // reconcile, release the Lease, and leave the rest to its successor).
    const operator = replicas.operatorFaults({
      proxy,
      hold: { verbs: ['create', 'update', 'patch'], resources: ['deployments.apps', 'foos.samplecontroller.k8s.io'], namespaces: [ns.name], ms: 1000 },
    });
    const enough = new AbortController();
    const struckSince = proxy.records.length;
    const playStarted = performance.now();
    const play = proxy.play(schedule, { log, operator, signal: enough.signal });
    const playing = { done: false };
    void play.finally(() => (playing.done = true));
    // Past durationMs, the play ends as soon as every kind of fault has struck.
    const judge = options.untilStruckWithinMs
      ? setInterval(() => {
          if (performance.now() - playStarted < durationMs) return;
          const struck = new Set(proxy.records.slice(struckSince).flatMap((r) => (r.type === 'hit' ? [r.fault.kind] : [])));
          if (allFaultKinds.every((kind) => struck.has(kind))) enough.abort();
        }, 100)
      : undefined;
    await drive(env, ns.name, playing, options.maxFoos ?? 20);
    const report = await play.finally(() => clearInterval(judge));
    const faultsStopped = performance.now();
    log(report.summary());

    let left: string[] = [];
    let shown = '';
    const foos = await env
      .converges(
        async () => {
          left = await problems(env.client, ns.name, { namedAsAsked: true, available: true });
          // What is still wrong, each time it changes: where the time to converge goes.
          const now = left.slice(0, 3).join('; ');
          if (now !== shown) log(`+${((performance.now() - faultsStopped) / 1000).toFixed(1)}s after the faults: ${left.length ? `${left.length} problems: ${now}` : 'no problems'}`);
          shown = now;
          if (left.length > 0) throw new Error(`${left.length} problems:\n      ${left.join('\n      ')}`);
          return (await env.client.list(FooKind, { namespace: ns.name })).items.length;
        },
        { namespace: ns.name, within: options.convergeWithinMs, quiet: 1000, message: `in ${ns.name}` },
      )
      .catch((err: unknown) => {
        // The report on failure: what differs (the check's last error), the schedule played, and what the replicas last failed at.
        log(err instanceof Error ? err.message : String(err));
        return -1;
      });
    const convergedAfterMs = performance.now() - faultsStopped;
    return {
      schedule,
      report,
      namespace: ns.name,
      foos,
      convergedAfterMs,
      problems: foos < 0 ? left : [],
      processes: replicas.processes.map(run),
      leaders: replicas.leaders().map(run),
      leaseTransitions: await replicas.leaseTransitions(),
    };
  } finally {
    // The replicas stop before the proxy they talk through.
    await replicas?.stop();
    await env.stop();
  }
}

/**
 * A reconcile the sample-controller failed, from its log line: it logs as
 * kube's sample-controller does ("Error syncing", the Foo's key), not as
 * controller-runtime.
 */
function syncError(line: string): ReconcileErrorLine | undefined {
  if (!line.includes('"msg":"Error syncing; requeuing for later retry"')) return undefined;
  const entry = JSON.parse(line) as { resourceName?: string; err?: { message?: string } | string };
  const [namespace, name] = (entry.resourceName ?? '').split('/');
  return { controller: 'sample-controller', namespace, name, error: typeof entry.err === 'string' ? entry.err : (entry.err?.message ?? ''), panic: false };
}

/**
 * The user: Foos created, scaled and deleted every 300 ms until the schedule
 * is over. A step that could not reach the server (it is down for a
 * `restart-server` window) is tried again, as kubectl would be by hand; a
 * create or delete that the server did before the connection broke is done.
 */
async function drive(env: TestEnv, namespace: string, playing: { done: boolean }, maxFoos: number): Promise<void> {
  const foo = (i: number, replicas: number): Foo => ({ metadata: { name: `foo-${i}`, namespace }, spec: { deploymentName: `foo-${i}-web`, replicas } });
  const create = (i: number, replicas: number) => untilReached(() => env.client.create(FooKind, foo(i, replicas)), 'AlreadyExists');
  let next = 0;
  for (; next < 6; next++) await create(next, 1 + (next % 3));
  const deleted = new Set<number>();
  for (let step = 0; !playing.done; step++) {
    await new Promise((r) => setTimeout(r, 300));
    const i = (step * 5) % next;
    if (step % 9 === 4 && !deleted.has(i)) {
      await untilReached(() => env.client.delete(FooKind, `foo-${i}`, { namespace }), 'NotFound');
      deleted.add(i);
    } else if (step % 3 === 2 && next < maxFoos) {
      await create(next++, 2);
    } else if (!deleted.has(i)) {
      await untilReached(() => scaleFoo(env.client, `foo-${i}`, namespace, (replicas) => (replicas % 3) + 1));
    }
  }
}

/** Runs `step` until the server answers it; an answer with `done` (the step's effect already there) counts as done. */
async function untilReached(step: () => Promise<unknown>, done?: 'AlreadyExists' | 'NotFound'): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await step();
      return;
    } catch (err) {
      if (err instanceof ApiError && err.reason === done && attempt > 1) return;
      // An answer from the server is the test's business; only a server out of reach is waited out (at most 30 s).
      if (err instanceof ApiError || attempt > 150) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
