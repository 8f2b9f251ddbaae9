/**
 * Replicas: an operator's processes, run as a Deployment runs them, and the
 * operator faults they carry out. The program here is testdata/lease-operator.ts,
 * which looks from outside like a Go operator: it reads KUBECONFIG, prints
 * client-go's klog lines and zap's JSON reconcile errors, and never prints
 * its identity, so the Lease is what tells which process leads. Every
 * process started is gone when a test ends.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lease } from '@operant/runtime';
import { eventuallyFound, Replicas, TestEnv, WaitError, type ReplicaProcess } from '../src/index.js';

const operator = join(dirname(fileURLToPath(import.meta.url)), 'testdata', 'lease-operator.ts');
// How this test process loads TypeScript; a Go operator would be its binary alone.
const node = { command: process.execPath, args: ['--conditions=source', '--import', 'tsx', operator] };

const env = await TestEnv.start();
after(() => env.stop());

const window = (): AbortSignal => new AbortController().signal;

/** The process is gone: signal 0 finds no such pid. */
function gone(p: ReplicaProcess): boolean {
  try {
    process.kill(p.child.pid!, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function holder(namespace: string): Promise<string | undefined> {
  return (await env.client.get(Lease, 'lease-operator', { namespace })).spec?.holderIdentity ?? undefined;
}

test('three replicas on one Lease: the Lease names the leader, kill-leader sends it SIGKILL, it is started again, and another replica takes the Lease', async (t) => {
  const ns = await env.namespace(t);
  const replicas: Replicas = await env.replicas({ ...node, count: 3, lease: { name: 'lease-operator', namespace: ns.name }, env: { LEASE_NAMESPACE: ns.name }, scope: t });
  const first = await replicas.firstLeader(30_000);
  assert.ok(first.identity, 'its identity was read from the Lease');
  assert.equal(first.identity, await holder(ns.name));
  assert.equal(await replicas.leader(), first);

  const outcome = await replicas.operatorFaults()({ kind: 'kill-leader' }, window());
  assert.deepEqual(outcome, { target: `${first.name} (pid ${first.child.pid})`, detail: 'SIGKILL to the leader' });
  await first.exit;
  assert.equal(first.exited?.signal, 'SIGKILL');

  // Its Lease runs out (3 s) and another replica takes it; the killed one's slot runs a new process.
  const next = await eventuallyFound(async () => {
    const leader = await replicas.leader();
    return leader && leader !== first ? leader : undefined;
  }, { timeout: 20_000, message: 'a new leader' });
  assert.notEqual(next.identity, first.identity);
  const restarted = await eventuallyFound(() => replicas.live().find((p) => p.slot === first.slot), { timeout: 20_000, message: `slot ${first.slot} started again` });
  assert.equal(restarted.generation, 2);
  assert.equal(replicas.live().length, 3);
  assert.deepEqual(replicas.leaders().slice(0, 2), [first, next]);
  assert.ok((await replicas.leaseTransitions()) >= 1);

  await replicas.stop();
  assert.ok(replicas.processes.every((p) => p.exited && gone(p)), 'no process is left');
});

test('terminate-leader holds a write of the leader in the proxy and sends SIGTERM meanwhile: it releases the Lease and exits 0', async (t) => {
  const ns = await env.namespace(t);
  const proxy = await env.faultProxy(t);
  const replicas = await env.replicas({ ...node, count: 2, kubeconfig: proxy, lease: { name: 'lease-operator', namespace: ns.name }, env: { LEASE_NAMESPACE: ns.name }, scope: t });
  const first = await replicas.firstLeader(30_000);
  // The only writes this operator makes are its Lease renewals (a real one's reconcile writes its objects).
  const terminate = replicas.operatorFaults({ proxy, hold: { verbs: ['update'], resources: ['leases.coordination.k8s.io'], namespaces: [ns.name], ms: 500 } });
  const outcome = await terminate({ kind: 'terminate-leader' }, window());
  assert.equal(outcome.target, `${first.name} (pid ${first.child.pid})`);
  assert.match(outcome.detail, new RegExp(`^SIGTERM while its update leases.coordination.k8s.io ${ns.name}/lease-operator was held in flight$`));
  await first.exit;
  assert.deepEqual({ code: first.exited?.code, signal: first.exited?.signal }, { code: 0, signal: null }, 'it exited by itself');
  // Released before it exited (not left to expire): the Lease no longer names it.
  assert.notEqual(await holder(ns.name), first.identity);
  const next = await eventuallyFound(async () => {
    const leader = await replicas.leader();
    return leader && leader !== first ? leader : undefined;
  }, { timeout: 20_000, message: 'a new leader' });
  assert.ok(next.identity);
});

test('one replica and no Lease: kill-leader kills the manager and it is started again; a process that ignores SIGTERM gets SIGKILL after the grace period', async (t) => {
  const ns = await env.namespace(t);
  const campaigning = new Set<string>();
  const replicas = await env.replicas({
    ...node,
    env: { LEASE_NAMESPACE: ns.name, IGNORE_SIGTERM: '1' },
    gracePeriodMs: 300,
    restartDelayMs: 50,
    scope: t,
    onLine: (p, line) => void (line.includes('attempting to acquire leader lease') && campaigning.add(p.name)),
  });
  const [manager] = replicas.live();
  assert.ok(manager);
  const outcome = await replicas.operatorFaults()({ kind: 'kill-leader' }, window());
  assert.deepEqual(outcome, { target: `replica-1#1 (pid ${manager.child.pid})`, detail: 'SIGKILL to the manager' });
  await manager.exit;
  const again = await eventuallyFound(() => replicas.live()[0], { timeout: 10_000, message: 'the manager started again' });
  assert.equal(again.name, 'replica-1#2');
  assert.notEqual(again.child.pid, manager.child.pid);

  // Running (its SIGTERM handler in place), not still loading.
  await eventuallyFound(() => campaigning.has(again.name) || undefined, { timeout: 20_000, message: `${again.name} runs` });
  const started = performance.now();
  await replicas.stop();
  assert.equal(again.exited?.signal, 'SIGKILL', 'SIGTERM was ignored');
  assert.ok(performance.now() - started >= 290, 'after the grace period');
  assert.ok(replicas.processes.every(gone));
  // Stopped: nothing is started again.
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(replicas.processes.length, 2);
});

test('a failed converges lists the reconcile errors that the replicas printed, each with its replica', async (t) => {
  const ns = await env.namespace(t);
  const replicas = await env.replicas({ module: operator, execArgv: ['--conditions=source', '--import', 'tsx'], count: 1, lease: { name: 'lease-operator', namespace: ns.name }, env: { LEASE_NAMESPACE: ns.name, RECONCILE_ERROR: 'widget w1 refuses' }, scope: t });
  const leader = await replicas.firstLeader(30_000);
  await eventuallyFound(() => replicas.reconcileErrors()[0], { timeout: 10_000, message: 'a reconcile error read from the output' });
  // The replica prints its error every 200 ms, but under load it or this process can stall for
  // longer than the window: the check holds the failure until two have been read meanwhile (a
  // check is never abandoned), so that the count in the report does not depend on the machine.
  let since: number | undefined;
  const check = async (): Promise<boolean> => {
    since ??= performance.now();
    const from = since;
    await eventuallyFound(() => replicas.reconcileErrors(from).length >= 2, { timeout: 20_000, message: 'a second reconcile error meanwhile' });
    return false;
  };
  const err = await env.converges(check, { within: 500, kinds: [] }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.match(err.message, new RegExp(`\n {2}reconcile errors meanwhile \\(\\d+\\):\n {4}${leader.name.replace('#', '\\#')} widget ${ns.name}/w1: widget w1 refuses \\(\\d+ times\\)$`));
});

test('a command that cannot start ends as a process that exits at once, and is tried again until stopped', async () => {
  const replicas = Replicas.start({ command: join(dirname(operator), 'no-such-operator'), restartDelayMs: 20 });
  await eventuallyFound(() => replicas.processes[2], { timeout: 5_000, message: 'a third try' });
  await replicas.stop();
  assert.ok(replicas.processes.every((p) => p.exited && p.exited.code === null && p.exited.signal === null));
  assert.ok((await replicas.leader()) === undefined);
});
