/**
 * Informers (issue 5's benchmark): @operant/runtime's SharedInformerFactory
 * over its Client ("ours") against @kubernetes/client-node 1.4.0's
 * makeInformer over CoreV1Api.listNamespacedPod ("peer"), on one
 * `operant server --data-dir` child process and the same 10,000 pods, each
 * informer in a child process of its own (informer-child.ts) so that neither
 * shares an event loop, a heap or a CPU figure with the other. Per round:
 *
 * 1. Sync: from informer start until all 10,000 pods are cached and delivered
 *    as adds (ours: waitForCacheSync; peer, which has no synced signal: its
 *    10,000th add handler call). The children sync one after the other.
 * 2. Heap per cached pod: the child's heap after sync minus before (both after
 *    gc, --expose-gc), over 10,000; also ours with dropManagedFields (the
 *    server writes no managedFields yet, so that transform has nothing to drop).
 * 3. Update events: every pod gets a new label by merge patch (16 concurrent
 *    requests from this process). "Live": both informers watching; events/s =
 *    10,000 ÷ (first patch sent → 10,000th update handler call), bounded by the
 *    server's write rate (SQLite, group commit). "Backlog": both children
 *    frozen (SIGSTOP) while the patches are written, then thawed one at a time;
 *    events/s = 10,000 ÷ (SIGCONT → 10,000th update handler call): the rate
 *    the informer itself can process. CPU per event: the child's user + system
 *    time over each phase, ÷ 10,000 (live: one event per chunk, so per-chunk
 *    costs dominate; backlog: many events per chunk).
 * 4. Reconnect: the server is stopped (SIGTERM) and started again on the same
 *    port and data dir, which ends every watch; nothing is written meanwhile
 *    (checked: every pod's resourceVersion is unchanged). A marker pod is then
 *    created; every add, update or delete handler call before its add is a
 *    spurious event. client-node's informer stops on the connection error, so
 *    its child restarts it on 'error' after 1 s (the README's pattern); ours
 *    retries by itself.
 *
 * BENCH_CPU_PROF=<dir> writes a CPU profile of every child there (node --cpu-prof).
 */
import { join } from 'node:path';
import type { KubeObject } from '@operant/apimachinery';
import { Client, defineKind, loadKubeConfig } from '@operant/runtime';
import { closedLoop } from './client.js';
import { pod } from './fixtures.js';
import { InformerProcess, type Timed } from './informer-process.js';
import type { DoneMessage, InformerMode, SyncedMessage } from './informer-child.js';
import { cliMain, spawnReady, startOperant, type ReadyProcess } from './processes.js';
import { median } from './stats.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

const Pod = defineKind<KubeObject>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });
const namespace = 'informer-bench';
const writers = 16;
const pair = ['ours', 'peer'] as const;
type Side = (typeof pair)[number];

interface RoundFigures {
  sync: Record<Side, SyncedMessage>;
  syncTransform: SyncedMessage;
  liveRate: Record<Side, number>;
  liveCpuUs: Record<Side, number>;
  backlogRate: Record<Side, number>;
  backlogCpuUs: Record<Side, number>;
  reconnect: Record<Side, DoneMessage>;
}

/** The server under test, restartable on the same port and data dir. */
class Server {
  private process: ReadyProcess | undefined;
  private port = 0;

  constructor(
    private readonly kubeconfig: string,
    private readonly dataDir: string,
  ) {}

  async start(): Promise<void> {
    if (this.port === 0) {
      this.process = await startOperant(this.kubeconfig, this.dataDir);
      this.port = Number(new URL(this.process.url).port);
    } else {
      const args = [cliMain, 'server', '--port', String(this.port), '--kubeconfig', this.kubeconfig, '--data-dir', this.dataDir];
      this.process = await spawnReady(process.execPath, args);
    }
  }

  async stop(): Promise<void> {
    await this.process?.stop();
    this.process = undefined;
  }
}

async function newClient(kubeconfig: string): Promise<Client> {
  return Client.fromConfig(await loadKubeConfig({ path: kubeconfig }), { qps: Infinity });
}

const podName = (i: number): string => `pod-${String(i).padStart(5, '0')}`;

async function labelEveryPod(client: Client, count: number, value: string): Promise<void> {
  await closedLoop(writers, { total: count }, async (_w, i) => {
    await client.patch(Pod, podName(i), { metadata: { labels: { phase: value } } }, { namespace });
  });
}

/** Every pod's name and resourceVersion: equal before and after means nothing in the collection changed. */
async function versions(client: Client): Promise<string> {
  return (await client.list(Pod, { namespace })).items.map((p) => `${p.metadata.name}@${p.metadata.resourceVersion}`).join(',');
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One round: fresh children for ours, ours with a transform, and the peer, on the running server. */
async function round(r: number, server: Server, kubeconfig: string, count: number, log: Log): Promise<RoundFigures> {
  const order: Side[] = r % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours'];
  const children = new Map<InformerMode, InformerProcess>();
  let writer = await newClient(kubeconfig);
  try {
    // 1 + 2: sync and heap, one child at a time.
    const sync = {} as Record<Side, SyncedMessage>;
    for (const side of order) {
      const child = await InformerProcess.start(side, kubeconfig, namespace, count);
      children.set(side, child);
      sync[side] = await child.sync();
    }
    const transformed = await InformerProcess.start('ours-transform', kubeconfig, namespace, count);
    const syncTransform = await transformed.sync().finally(() => transformed.stop());
    for (const [side, s] of [...Object.entries(sync), ['ours-transform', syncTransform] as const]) {
      if (s.cached !== count) throw new Error(`${side} cached ${s.cached} pods, expected ${count}`);
    }
    const child = (side: Side): InformerProcess => children.get(side)!;
    log(`  round ${r + 1} sync: ${order.map((s) => `${s} ${fmt.ms(sync[s].syncMs)} heap/pod ${fmt.bytes(sync[s].heapPerPod)} (RSS ${fmt.bytes(sync[s].rssPerPod)})`).join('; ')}; ours+transform heap/pod ${fmt.bytes(syncTransform.heapPerPod)}`);

    // 3a: live updates, both informers watching while the pods are patched.
    const live = await Promise.all(pair.map((side) => child(side).expect('live', { updates: count })));
    const t0 = performance.now();
    await labelEveryPod(writer, count, `r${r}-live`);
    const writeSeconds = (performance.now() - t0) / 1000;
    const liveDone = await Promise.all(live.map((l) => withTimeout(l.done, 120_000, 'live updates')));
    const liveRate = {} as Record<Side, number>;
    const liveCpuUs = {} as Record<Side, number>;
    pair.forEach((side, i) => {
      liveRate[side] = count / ((liveDone[i]!.at - t0) / 1000);
      liveCpuUs[side] = liveDone[i]!.message.cpuUs / count;
    });
    log(`  round ${r + 1} live: patches ${fmt.rate(count / writeSeconds)}; ${pair.map((s) => `${s} ${fmt.rate(liveRate[s])} ${fmt.us(liveCpuUs[s])} CPU/event`).join('; ')}`);

    // 3b: a backlog: both frozen while the pods are patched, then thawed one at a time.
    const backlog = new Map<Side, Promise<Timed<DoneMessage>>>();
    for (const side of pair) backlog.set(side, (await child(side).expect('backlog', { updates: count })).done);
    for (const side of pair) child(side).pause();
    try {
      await labelEveryPod(writer, count, `r${r}-backlog`);
    } catch (e) {
      for (const side of pair) child(side).resume();
      throw e;
    }
    const backlogRate = {} as Record<Side, number>;
    const backlogCpuUs = {} as Record<Side, number>;
    for (const side of order) {
      const thawed = performance.now();
      child(side).resume();
      const done = await withTimeout(backlog.get(side)!, 120_000, `${side} backlog`);
      backlogRate[side] = count / ((done.at - thawed) / 1000);
      backlogCpuUs[side] = done.message.cpuUs / count;
      if (done.message.watchStarts > 0) log(`  note: ${side} re-watched ${done.message.watchStarts}× while draining (the server cut off a frozen watcher)`);
    }
    log(`  round ${r + 1} backlog: ${pair.map((s) => `${s} ${fmt.rate(backlogRate[s])} ${fmt.us(backlogCpuUs[s])} CPU/event`).join('; ')}`);

    // 4: reconnect after a server restart, with nothing changed meanwhile.
    const marker = `marker-${r}`;
    const reconnect = await Promise.all(pair.map((side) => child(side).expect('reconnect', { marker })));
    const before = await versions(writer);
    writer.close();
    await server.stop();
    await server.start();
    writer = await newClient(kubeconfig);
    if ((await versions(writer)) !== before) throw new Error('the pods changed across the server restart');
    const created = performance.now();
    await writer.create(Pod, JSON.parse(pod(marker, 0)) as KubeObject, { namespace });
    const reconnected = await Promise.all(reconnect.map((x) => withTimeout(x.done, 60_000, 'marker after restart')));
    const reconnectFigures = {} as Record<Side, DoneMessage>;
    pair.forEach((side, i) => (reconnectFigures[side] = reconnected[i]!.message));
    const describe = (m: DoneMessage, at: number): string =>
      `${m.adds - 1} adds, ${m.updates} updates (${m.sameVersionUpdates} same-version), ${m.deletes} deletes, ${m.watchStarts} watch starts, ${m.errors} errors, the marker after ${fmt.ms(at - created)}`;
    log(`  round ${r + 1} restart: ${pair.map((s, i) => `${s} ${describe(reconnectFigures[s], reconnected[i]!.at)}`).join('; ')}`);
    for (const side of pair) await child(side).stop();
    await writer.delete(Pod, marker, { namespace });
    return { sync, syncTransform, liveRate, liveCpuUs, backlogRate, backlogCpuUs, reconnect: reconnectFigures };
  } finally {
    for (const c of children.values()) await c.stop().catch(() => undefined);
    writer.close();
  }
}

/** Spurious handler calls after the restart: everything but the marker's add. */
const spurious = (m: DoneMessage): number => m.adds - 1 + m.updates + m.deletes;

export async function informerSection(workDir: string, rounds: number, log: Log, count = 10_000): Promise<Row[]> {
  const kubeconfig = join(workDir, 'kc-informer');
  const server = new Server(kubeconfig, join(workDir, 'informer-data'));
  await server.start();
  const results: RoundFigures[] = [];
  try {
    const client = await newClient(kubeconfig);
    try {
      await client.create(Namespace, { metadata: { name: namespace } });
      const t0 = performance.now();
      await closedLoop(writers, { total: count }, async (_w, i) => {
        await client.create(Pod, JSON.parse(pod(podName(i), i)) as KubeObject, { namespace });
      });
      log(`informers: created ${count} pods in ${((performance.now() - t0) / 1000).toFixed(1)} s (SQLite); ${rounds} rounds`);
    } finally {
      client.close();
    }
    for (let r = 0; r < rounds; r++) results.push(await round(r, server, kubeconfig, count, log));
  } finally {
    await server.stop();
  }

  const of = <K extends keyof RoundFigures>(k: K, pick: (v: RoundFigures[K]) => number): number[] => results.map((x) => pick(x[k]));
  const peer = '(client-node makeInformer)';
  const n = count.toLocaleString('en-US');
  const spuriousRow = row(
    'Spurious handler calls after a server restart',
    of('reconnect', (m) => spurious(m.ours)),
    of('reconnect', (m) => spurious(m.peer)),
    (v) => v.toFixed(0),
    peer,
    '0',
    (v) => v === 0,
  );
  if (spuriousRow.ratio.startsWith('NaN')) spuriousRow.ratio = 'n/a';
  const oursHeap = (x: Record<Side, SyncedMessage>): number => x.ours.heapPerPod;
  const peerHeap = median(of('sync', (s) => s.peer.heapPerPod));
  return [
    row(`Informer sync, ${n} pods, time`, of('sync', (s) => s.ours.syncMs), of('sync', (s) => s.peer.syncMs), fmt.ms, peer),
    row(`Informer heap per cached pod`, of('sync', oursHeap), of('sync', (s) => s.peer.heapPerPod), fmt.bytes, peer, '≤ client-node', (v) => v <= peerHeap),
    row('  ours with dropManagedFields (no managedFields yet)', of('syncTransform', (s) => s.heapPerPod), of('sync', (s) => s.peer.heapPerPod), fmt.bytes, peer),
    row(`Update events/s, live (${n} patches, ${writers} writers)`, of('liveRate', (v) => v.ours), of('liveRate', (v) => v.peer), fmt.rate, peer),
    row(`Update events/s, backlog of ${n}`, of('backlogRate', (v) => v.ours), of('backlogRate', (v) => v.peer), fmt.rate, peer, '≥ 2× client-node', () => ratioOf(results, 'backlogRate') >= 2),
    row('  CPU per update event, live', of('liveCpuUs', (v) => v.ours), of('liveCpuUs', (v) => v.peer), fmt.us, peer),
    row('  CPU per update event, backlog', of('backlogCpuUs', (v) => v.ours), of('backlogCpuUs', (v) => v.peer), fmt.us, peer),
    spuriousRow,
  ];
}

function ratioOf(results: RoundFigures[], k: 'backlogRate' | 'liveRate'): number {
  return median(results.map((x) => x[k].ours)) / median(results.map((x) => x[k].peer));
}
