/**
 * The manager against the real embedded API server: leader election between
 * two managers (release on shutdown, takeover after a crash, stepping down
 * when the lease is lost), the order of start and stop, `/metrics` with
 * controller-runtime's names, `/healthz` and `/readyz`, runnable failures,
 * the shutdown grace period, and a process that exits by itself afterwards.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigMap } from '../builtins.js';
import { loadKubeConfig } from '../config/load.js';
import { defineKind } from '../kind.js';
import { TerminalError } from '../controller/errors.js';
import { useApiServer } from '../testdata/api-server.js';
import { useCheckedLogs } from '../testdata/log-lines.js';
import { scriptedServer, statusBody } from '../testdata/scripted-server.js';
import { Lease } from '../builtins.js';
import { microTime } from '../time.js';
import { LeaderElectionLostError, Manager, ShutdownTimeoutError } from './manager.js';
import type { ManagerOptions } from './options.js';
import type { Runnable } from './runnable.js';

const Widget = defineKind({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });

const timing = { leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 };
/** The longest a candidate waits between attempts (client-go's jitter: 1 to 2.2 retry periods). */
const longestRetryMs = timing.retryPeriodMs * 2.2;
/** Room for requests and scheduling on a loaded machine, added to bounds derived from the timing above. */
const slackMs = 500;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A runnable that records when it runs and, on abort, takes `drainMs` to stop. */
class Probe implements Runnable {
  running = false;
  starts = 0;
  stoppedAt = 0;
  onStop: () => void | Promise<void> = () => {};
  constructor(
    readonly needLeaderElection: boolean,
    private readonly drainMs = 0,
  ) {}
  async start(signal: AbortSignal): Promise<void> {
    this.running = true;
    this.starts++;
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await new Promise((r) => setTimeout(r, this.drainMs));
    await this.onStop();
    this.running = false;
    this.stoppedAt = performance.now();
  }
}

async function get(address: { host: string; port: number } | undefined, path: string): Promise<{ status: number; body: string }> {
  assert.ok(address, 'the server is bound');
  const res = await fetch(`http://${address.host}:${address.port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe('Manager against the embedded server', () => {
  const api = useApiServer();
  // Every line these managers log, at every level, is checked for repeated keys.
  const logs = useCheckedLogs();
  let idNo = 0;

  /** Resolves once `m`'s elector has logged that it saw `holder` hold the Lease. */
  async function observed(m: Manager, holder: string): Promise<void> {
    await logs.lines.next((line) => {
      const entry = JSON.parse(line) as { msg?: string; identity?: string; leader?: string };
      return entry.msg === 'new leader observed' && entry.identity === m.identity && entry.leader === holder;
    });
  }

  function create(options: ManagerOptions = {}): Promise<Manager> {
    return Manager.create({ kubeconfig: { kubeconfigText: api.server.kubeconfig }, logger: logs.logger, client: { qps: Infinity }, ...options });
  }

  test('two managers, one lease: only the leader runs leader runnables; shutdown releases the lease and the other takes over at once', async () => {
    const id = `mgr-${++idNo}`;
    const le = { id, ...timing };
    const [a, b] = [await create({ leaderElection: le }), await create({ leaderElection: le })];
    const probes = new Map<Manager, { leader: Probe; everywhere: Probe }>();
    const reconciled = new Map<Manager, string[]>();
    await api.client.create(ConfigMap, { metadata: { name: `cm-${id}`, namespace: 'default', labels: { test: id } }, data: {} });
    for (const m of [a, b]) {
      const p = { leader: new Probe(true, 150), everywhere: new Probe(false) };
      m.add(p.leader);
      m.add(p.everywhere);
      probes.set(m, p);
      const seen: string[] = [];
      reconciled.set(m, seen);
      m.controller(`configmaps-${id}`)
        .for(ConfigMap, { informer: { namespace: 'default', labelSelector: `test=${id}` } })
        .reconcile((req) => void seen.push(req.name));
    }
    const acA = new AbortController();
    const acB = new AbortController();
    const runA = a.start(acA.signal);
    await a.elected();
    const runB = b.start(acB.signal);
    await waitFor(() => probes.get(b)!.everywhere.running, 'b runs its runnables that need no leader');
    await waitFor(() => reconciled.get(a)!.length > 0, 'the leader reconciles');
    await observed(b, a.identity!);
    // b has read the Lease and declined it; for longer than a lease duration it must keep declining a renewed Lease.
    await new Promise((r) => setTimeout(r, timing.leaseDurationMs + longestRetryMs));
    assert.equal(probes.get(a)!.leader.running, true);
    assert.equal(probes.get(b)!.leader.running, false, 'the follower does not run leader runnables');
    assert.deepEqual(reconciled.get(a), [`cm-${id}`], 'the leader reconciles once');
    assert.deepEqual(reconciled.get(b), [], 'the follower does not reconcile');
    assert.equal(a.isLeader, true);
    assert.equal(b.isLeader, false);
    assert.equal((await api.client.get(Lease, id, { namespace: 'default' })).spec?.holderIdentity, a.identity);

    // The lease must still be held while the leader's runnables drain.
    let holderWhileDraining: string | undefined;
    probes.get(a)!.leader.onStop = async () => {
      holderWhileDraining = (await api.client.get(Lease, id, { namespace: 'default' })).spec?.holderIdentity;
    };
    acA.abort();
    await runA;
    const releasedAt = performance.now();
    assert.equal(holderWhileDraining, a.identity, 'the lease is released only after the leader runnables stopped');
    assert.equal(probes.get(a)!.leader.running, false);
    assert.equal(probes.get(a)!.everywhere.running, false);
    await b.elected();
    // a renewed until its runnables had stopped: waiting for expiry would take b a lease duration from that last renewal.
    const takeoverMs = performance.now() - releasedAt;
    assert.ok(takeoverMs < timing.leaseDurationMs - timing.retryPeriodMs, `b led ${takeoverMs.toFixed(0)} ms after a released the lease: it waited for the lease (1000 ms) to expire`);
    await waitFor(() => probes.get(b)!.leader.running, 'b runs its leader runnable');
    await waitFor(() => reconciled.get(b)!.length === 1, 'b reconciles');
    const lease = await api.client.get(Lease, id, { namespace: 'default' });
    assert.equal(lease.spec?.holderIdentity, b.identity);
    assert.equal(lease.spec?.leaseTransitions, 1);
    assert.equal(probes.get(a)!.leader.starts, 1);
    acB.abort();
    await runB;
    const released = await api.client.get(Lease, id, { namespace: 'default' });
    assert.equal(released.spec?.holderIdentity, '');
    assert.equal(released.spec?.leaseDurationSeconds, 1);
  });

  test('a leader that dies without releasing is replaced after the lease expires', async () => {
    const id = `mgr-${++idNo}`;
    const a = await create({ leaderElection: { id, ...timing, releaseOnCancel: false } });
    const b = await create({ leaderElection: { id, ...timing } });
    const pa = new Probe(true);
    const pb = new Probe(true);
    a.add(pa);
    b.add(pb);
    const acA = new AbortController();
    const acB = new AbortController();
    const runA = a.start(acA.signal);
    await a.elected();
    const runB = b.start(acB.signal);
    await observed(b, a.identity!);
    assert.equal(pb.running, false);
    const t0 = performance.now();
    acA.abort(); // stops renewing, leaves the lease as it was
    await runA;
    assert.equal((await api.client.get(Lease, id, { namespace: 'default' })).spec?.holderIdentity, a.identity);
    await b.elected();
    const takeoverMs = performance.now() - t0;
    assert.ok(takeoverMs >= 800, `b took over after ${takeoverMs.toFixed(0)} ms, not before the 1 s lease expired`);
    const latestMs = timing.leaseDurationMs + 2 * longestRetryMs + slackMs;
    assert.ok(takeoverMs < latestMs, `b took over after ${takeoverMs.toFixed(0)} ms, more than the lease duration plus two retries (${latestMs} ms)`);
    await waitFor(() => pb.running, 'b runs its leader runnable');
    acB.abort();
    await runB;
  });

  test('a manager that loses its lease stops its leader runnables and start() rejects', async () => {
    const id = `mgr-${++idNo}`;
    const m = await create({ leaderElection: { id, ...timing } });
    const leader = new Probe(true);
    const everywhere = new Probe(false);
    m.add(leader);
    m.add(everywhere);
    const run = m.start(new AbortController().signal);
    await m.elected();
    await waitFor(() => leader.running, 'the leader runnable');
    const lease = await api.client.get(Lease, id, { namespace: 'default' });
    const now = microTime(new Date());
    await api.client.update(Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'usurper', leaseDurationSeconds: 60, renewTime: now, acquireTime: now } });
    await assert.rejects(run, (err) => err instanceof LeaderElectionLostError && err.lease === `default/${id}`);
    assert.equal(leader.running, false);
    assert.equal(everywhere.running, false);
    assert.equal((await api.client.get(Lease, id, { namespace: 'default' })).spec?.holderIdentity, 'usurper', 'a manager never releases a lease it lost');
  });

  test('/metrics serves controller-runtime names from a controller, its queue, the client and leader election', async () => {
    const id = `mgr-${++idNo}`;
    // The default lease timing (15 s, renewed within 10 s): what is read here is the gauge of a leader. With the
    // 700 ms renew deadline of the election tests a loaded machine's renewal can miss it, and the gauge reads 0.
    const m = await create({ leaderElection: { id }, metricsPort: 0, metricsHost: '127.0.0.1' });
    await api.client.create(ConfigMap, { metadata: { name: `ok-${id}`, namespace: 'default', labels: { test: id } }, data: {} });
    await api.client.create(ConfigMap, { metadata: { name: `bad-${id}`, namespace: 'default', labels: { test: id } }, data: {} });
    let reconciles = 0;
    m.controller('configmaps')
      .for(ConfigMap, { informer: { namespace: 'default', labelSelector: `test=${id}` } })
      .maxConcurrentReconciles(2)
      .reconcile(async (req, { client: c }) => {
        reconciles++;
        await c.get(ConfigMap, req.name, { namespace: req.namespace });
        if (req.name.startsWith('bad-')) throw new TerminalError('refusing');
      });
    const ac = new AbortController();
    const run = m.start(ac.signal);
    await m.elected();
    await waitFor(() => reconciles === 2 && m.metricsAddress !== undefined, 'both reconciles');
    // The work-in-progress gauges are sampled every 500 ms.
    let scrape = await get(m.metricsAddress, '/metrics');
    for (let i = 0; i < 30 && !scrape.body.includes('workqueue_unfinished_work_seconds{'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      scrape = await get(m.metricsAddress, '/metrics');
    }
    const { status, body } = scrape;
    assert.equal(status, 200);
    const q = 'name="configmaps",controller="configmaps"';
    for (const line of [
      'controller_runtime_reconcile_total{controller="configmaps",result="success"} 1',
      'controller_runtime_reconcile_total{controller="configmaps",result="error"} 1',
      'controller_runtime_reconcile_total{controller="configmaps",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="configmaps",result="requeue_after"} 0',
      'controller_runtime_reconcile_errors_total{controller="configmaps"} 1',
      'controller_runtime_terminal_reconcile_errors_total{controller="configmaps"} 1',
      'controller_runtime_reconcile_panics_total{controller="configmaps"} 0',
      'controller_runtime_reconcile_time_seconds_count{controller="configmaps"} 2',
      'controller_runtime_active_workers{controller="configmaps"} 0',
      'controller_runtime_max_concurrent_reconciles{controller="configmaps"} 2',
      `workqueue_depth{${q}} 0`,
      `workqueue_adds_total{${q}} 2`,
      `workqueue_queue_duration_seconds_count{${q}} 2`,
      `workqueue_work_duration_seconds_count{${q}} 2`,
      `leader_election_master_status{name="${id}"} 1`,
    ]) {
      assert.match(body, new RegExp(`^${escape(line)}$`, 'm'), `/metrics has ${line}`);
    }
    for (const prefix of [
      `workqueue_queue_duration_seconds_bucket{le="1e-8",${q}}`,
      `workqueue_unfinished_work_seconds{${q}}`,
      `workqueue_longest_running_processor_seconds{${q}}`,
      'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="configmaps"}',
      `rest_client_requests_total{code="200",method="GET",host="127.0.0.1:${api.server.port}"}`,
      `rest_client_requests_total{code="201",method="POST",host="127.0.0.1:${api.server.port}"}`, // the lease's creation
      `rest_client_request_duration_seconds_bucket{le="0.005",verb="GET",host="127.0.0.1:${api.server.port}"}`,
      'informer_last_sync_timestamp_seconds{name="configmaps@default?labelSelector=test=',
      'process_resident_memory_bytes ',
    ]) {
      assert.ok(body.includes(prefix), `/metrics has ${prefix}`);
    }
    assert.equal((await get(m.metricsAddress, '/other')).status, 404);
    ac.abort();
    await run;
    await assert.rejects(fetch(`http://127.0.0.1:${m.metricsAddress!.port}/metrics`), 'the metrics server is closed');
  });

  test('managers started and stopped in a loop leave no process collectors behind; each /metrics still has them', async () => {
    // prom-client's event-loop delay monitor and GC observer run until the process ends:
    // every manager must reuse the process's one set rather than start another.
    const seen = new Set<unknown>();
    for (let i = 0; i < 8; i++) {
      const m = await create({ metricsPort: 0, metricsHost: '127.0.0.1' });
      const ac = new AbortController();
      const run = m.start(ac.signal);
      await waitFor(() => m.metricsAddress !== undefined, 'the metrics server');
      const { status, body } = await get(m.metricsAddress, '/metrics');
      assert.equal(status, 200);
      for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds']) {
        assert.match(body, new RegExp(`^# TYPE ${name} `, 'm'), `manager ${i}'s /metrics has ${name}`);
      }
      seen.add(m.metrics.registry.getSingleMetric('nodejs_eventloop_lag_seconds'));
      seen.add(m.metrics.registry.getSingleMetric('nodejs_gc_duration_seconds'));
      ac.abort();
      await run;
    }
    assert.equal(seen.size, 2, 'one event-loop monitor and one GC observer for 8 managers');
  });

  test('/healthz passes; /readyz fails until the caches have synced, and again while shutting down', async (t) => {
    // A server whose lists fail (503) until `listsWork`: the informer keeps retrying meanwhile.
    let listsWork = false;
    const server = await scriptedServer((_method, path) =>
      !listsWork ? statusBody(503, 'ServiceUnavailable') : path === '/apis/example.com/v1/widgets' ? { status: 200, body: { items: [], metadata: { resourceVersion: '1' } } } : { status: 200 },
    );
    t.after(() => server.close());
    const m = await create({ kubeconfig: server.config, healthPort: 0, healthHost: '127.0.0.1', cache: { backoff: { initialMs: 10, maxMs: 50 } } });
    m.informers.informerFor(Widget);
    const started = new Probe(false);
    m.add(started);
    let healthy = true;
    m.addHealthCheck('custom', () => healthy);
    const ac = new AbortController();
    const run = m.start(ac.signal);
    await waitFor(() => m.healthAddress !== undefined, 'the health server');

    assert.deepEqual(await get(m.healthAddress, '/healthz'), { status: 200, body: 'ok' });
    assert.equal((await get(m.healthAddress, '/healthz/ping')).status, 200);
    const notReady = await get(m.healthAddress, '/readyz?verbose');
    assert.equal(notReady.status, 503);
    assert.match(notReady.body, /^\[-\]informers failed: caches have not synced yet$/m);
    assert.match(notReady.body, /^\[\+\]shutdown ok$/m);
    assert.match(notReady.body, /readyz check failed\n$/);
    assert.equal(started.running, false, 'runnables wait for the caches');

    healthy = false;
    const unhealthy = await get(m.healthAddress, '/healthz');
    assert.equal(unhealthy.status, 500);
    assert.match(unhealthy.body, /^\[-\]custom failed: reason withheld$/m);
    healthy = true;
    assert.equal((await get(m.healthAddress, '/healthz/nope')).status, 404);
    assert.equal((await get(m.healthAddress, '/metrics')).status, 404);

    listsWork = true;
    await waitFor(() => started.running, 'the caches to sync and the runnables to start', 10_000);
    assert.deepEqual(await get(m.healthAddress, '/readyz'), { status: 200, body: 'ok' });
    const verbose = await get(m.healthAddress, '/readyz?verbose');
    assert.equal(verbose.status, 200);
    assert.match(verbose.body, /^\[\+\]informers ok\n\[\+\]shutdown ok\nreadyz check passed\n$/);

    // While the runnables drain, readiness fails and liveness holds.
    let duringShutdown: { readyz: number; healthz: number } | undefined;
    started.onStop = async () => {
      duringShutdown = { readyz: (await get(m.healthAddress, '/readyz')).status, healthz: (await get(m.healthAddress, '/healthz')).status };
    };
    ac.abort();
    await run;
    assert.deepEqual(duringShutdown, { readyz: 503, healthz: 200 });
  });

  test('a failing runnable stops the manager and start() rejects with its error', async () => {
    const m = await create();
    const other = new Probe(false);
    m.add(other);
    m.add({ needLeaderElection: false, start: async () => Promise.reject(new Error('boom')) });
    await assert.rejects(m.start(new AbortController().signal), /boom/);
    assert.equal(other.running, false);
    await assert.rejects(m.start(new AbortController().signal), /only once/);
    assert.throws(() => m.add(new Probe(false)), /stopped/);
  });

  test('runnables that outlive the grace period: start() rejects and the lease is left to expire', async () => {
    const id = `mgr-${++idNo}`;
    const m = await create({ leaderElection: { id, ...timing }, gracefulShutdownTimeoutMs: 200 });
    const stuck = new Probe(true, 600);
    m.add(stuck);
    const ac = new AbortController();
    const run = m.start(ac.signal);
    await m.elected();
    await waitFor(() => stuck.running, 'the stuck runnable');
    ac.abort();
    await assert.rejects(run, (err) => err instanceof ShutdownTimeoutError && err.timeoutMs === 200);
    assert.equal(stuck.running, true, 'start() returned at the end of the grace period, before the stuck runnable ended');
    assert.equal((await api.client.get(Lease, id, { namespace: 'default' })).spec?.holderIdentity, m.identity, 'not released');
    await waitFor(() => !stuck.running, 'the stuck runnable to end');
  });

  test('without leader election, leader runnables start at once; a runnable added later starts too', async () => {
    const m = await create({ kubeconfig: await loadKubeConfig({ kubeconfigText: api.server.kubeconfig }) }); // a loaded ClientConfig
    const early = new Probe(true);
    m.add(early);
    const ac = new AbortController();
    const run = m.start(ac.signal);
    await m.elected();
    await waitFor(() => early.running, 'the early runnable');
    assert.equal(m.isLeader, true);
    const late = new Probe(true);
    m.add(late);
    await waitFor(() => late.running, 'the late runnable');
    ac.abort();
    await run;
    assert.equal(early.running || late.running, false);
  });

  test('a port in use: start() rejects; bad leader-election durations: create() rejects', async () => {
    const first = await create({ healthPort: 0, healthHost: '127.0.0.1' });
    const ac = new AbortController();
    const run = first.start(ac.signal);
    await waitFor(() => first.healthAddress !== undefined, 'the health server');
    const second = await create({ healthPort: first.healthAddress!.port, healthHost: '127.0.0.1' });
    const runnable = new Probe(false);
    second.add(runnable);
    await assert.rejects(second.start(new AbortController().signal), /EADDRINUSE/);
    assert.equal(runnable.starts, 0);
    ac.abort();
    await run;
    await assert.rejects(create({ leaderElection: { id: 'x', leaseDurationMs: 1000, renewDeadlineMs: 2000 } }), RangeError);
  });

  test('an already aborted signal: start() returns at once and leaves nothing running', async () => {
    const m = await create({ healthPort: 0, healthHost: '127.0.0.1', leaderElection: { id: `mgr-${++idNo}`, ...timing } });
    const p = new Probe(true);
    m.add(p);
    const ac = new AbortController();
    ac.abort();
    await m.start(ac.signal);
    assert.equal(p.starts, 0);
  });
});

describe('Manager shutdown', () => {
  test('leaves no timers, sockets or servers behind: a process running a manager exits by itself', async () => {
    const runtimeIndex = new URL('../index.ts', import.meta.url).href;
    const workqueueIndex = new URL('../workqueue/index.ts', import.meta.url).href;
    const script = `
      const { TestEnv } = await import('@operant/testing');
      const rt = await import(${JSON.stringify(runtimeIndex)});
      const wq = await import(${JSON.stringify(workqueueIndex)});
      const env = await TestEnv.start();
      const mgr = await rt.Manager.create({
        kubeconfig: { kubeconfigText: env.kubeconfig.text },
        // Leader election's timers are among what must be gone; not its timing under test. A fresh Lease is
        // taken at the first attempt, and the default deadlines outlast a loaded machine's slow renewals
        // (a 700 ms renew deadline ran out at load 21, and the manager then fails as it must).
        leaderElection: { id: 'exit-test' },
        metricsPort: 0, metricsHost: '127.0.0.1', healthPort: 0, healthHost: '127.0.0.1',
        logger: rt.silentLogger,
      });
      const ConfigMap = rt.defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
      mgr.informers.informerFor(ConfigMap);
      const queue = new wq.WorkQueue({ name: 'exit', metricsProvider: mgr.metrics.workqueue });
      mgr.add({ start: async (signal) => { queue.add('a'); await new Promise((r) => signal.addEventListener('abort', r)); queue.shutDown(); } });
      const ac = new AbortController();
      const done = mgr.start(ac.signal);
      await mgr.elected();
      for (const [addr, path] of [[mgr.metricsAddress, '/metrics'], [mgr.healthAddress, '/readyz']]) {
        const res = await fetch('http://127.0.0.1:' + addr.port + path);
        await res.text();
      }
      ac.abort();
      await done;
      await env.stop();
      // What would keep the process alive now. Handles being closed are gone within a couple of
      // event-loop turns; the pipes of stdout and stderr to the test are its own (and unref'd by exit).
      let left = [];
      for (let turn = 0; turn < 10; turn++) {
        await new Promise((r) => setImmediate(r));
        left = process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap' && r !== 'Immediate');
        if (left.length === 0) break;
      }
      console.log('stopped ' + JSON.stringify(left));
    `;
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../../../', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    // A safety net, not a bound: a process something keeps alive for good is killed (and fails below).
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    clearTimeout(killer);
    const stopped = /^stopped (.*)$/m.exec(stdout);
    assert.ok(stopped, `the child stopped its manager; stdout: ${stdout}; stderr: ${stderr}`);
    // Nothing the manager or the environment (its server, client and files) started is left: no timer, socket or server that would hold the process.
    assert.deepEqual(JSON.parse(stopped[1]!), [], 'what still kept the event loop alive once everything was stopped');
    assert.equal(code, 0, `child exited by itself with ${code}; stderr: ${stderr}`);
  });
});
