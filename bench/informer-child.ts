/**
 * One informer over the pods of a namespace, in a process of its own (run with
 * --expose-gc), driven by informer.ts over the IPC channel:
 *
 *   informer-child.ts MODE KUBECONFIG NAMESPACE COUNT
 *
 * MODE is `ours` (@operant/runtime's SharedInformerFactory over its Client),
 * `ours-transform` (the same with dropManagedFields) or `peer`
 * (@kubernetes/client-node's makeInformer with CoreV1Api.listNamespacedPod, the
 * usage its README shows). Each informer gets its own process so the two never
 * share an event loop, a heap or a CPU time figure.
 *
 * Protocol (parent -> child, child -> parent):
 *   (on start)        -> { msg: 'ready' }         informer built, not started; heap measured
 *   { cmd: 'sync' }   -> { msg: 'synced', ... }  start, wait until COUNT pods are cached
 *                                                and every add was delivered; heap after
 *                                                minus heap before, per pod
 *   { cmd: 'expect' } -> { msg: 'armed' } then { msg: 'done', ... }  count handler
 *                                                calls until `updates` updates (or the
 *                                                add of `marker`) arrived
 *   { cmd: 'stop' }   -> the child stops its informer and exits
 */

/** Which informer a child runs. */
import type { KubeObject } from '@operant/apimachinery';
import type { ReflectorMetricsProvider } from '@operant/runtime';
import type { V1Pod } from '@kubernetes/client-node';
import { canCollect, settle } from './settle.js';

export type InformerMode = 'ours' | 'ours-transform' | 'peer';

export type ChildCommand =
  | { cmd: 'sync' }
  | { cmd: 'expect'; phase: string; updates?: number; marker?: string }
  | { cmd: 'stop' };

export interface SyncedMessage {
  msg: 'synced';
  /** From informer start to COUNT pods cached and delivered as adds. */
  syncMs: number;
  cached: number;
  heapPerPod: number;
  rssPerPod: number;
  gc: boolean;
}

export interface DoneMessage {
  msg: 'done';
  phase: string;
  adds: number;
  updates: number;
  deletes: number;
  /** Updates whose object carries the resourceVersion already cached (ours only: its handler sees both). */
  sameVersionUpdates: number;
  /** This process's CPU time (user + system) from `expect` to done, µs. */
  cpuUs: number;
  /** Watch (re)connections and failures reported by the informer since `expect`. */
  watchStarts: number;
  errors: number;
}

export type ChildMessage = SyncedMessage | DoneMessage | { msg: 'ready' } | { msg: 'armed' } | { msg: 'failed'; error: string };

/** The informer under test, reduced to what the benchmark drives. */
interface Subject {
  start(): void;
  synced(): Promise<void>;
  size(): number;
  stop(): Promise<void>;
}

interface Counters {
  adds: number;
  updates: number;
  deletes: number;
  sameVersionUpdates: number;
  watchStarts: number;
  errors: number;
}

const counters: Counters = { adds: 0, updates: 0, deletes: 0, sameVersionUpdates: 0, watchStarts: 0, errors: 0 };
/** Called after every handler call; set while a phase is being counted. */
let onEvent: ((name: string) => void) | undefined;

function send(m: ChildMessage): void {
  process.send!(m);
}

function count(kind: 'adds' | 'updates' | 'deletes', name: string): void {
  counters[kind]++;
  onEvent?.(name);
}

async function ours(kubeconfigPath: string, namespace: string, transform: boolean): Promise<Subject> {
  const runtime = await import('@operant/runtime');
  const cache = await import('@operant/runtime/cache');
  const Pod = runtime.defineKind<KubeObject>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
  const client = runtime.Client.fromConfig(await runtime.loadKubeConfig({ path: kubeconfigPath }), { qps: Infinity });
  // Warm the HTTPS connection and the list path, so the heap delta is the cache's.
  await client.list(Pod, { namespace, limit: 1 });
  const metrics: ReflectorMetricsProvider = {
    errored: () => void counters.errors++,
    synced: () => {},
    listed: () => {},
    watchStarted: () => void counters.watchStarts++,
  };
  const factory = new cache.SharedInformerFactory(client, {
    namespace,
    logger: runtime.silentLogger,
    metrics,
    transform: transform ? cache.dropManagedFields : undefined,
  });
  const informer = factory.informerFor(Pod);
  informer.addEventHandler({
    add: (pod) => count('adds', pod.metadata.name ?? ''),
    update: (old, pod) => {
      if (old.metadata.resourceVersion === pod.metadata.resourceVersion) counters.sameVersionUpdates++;
      count('updates', pod.metadata.name ?? '');
    },
    delete: () => count('deletes', ''),
  });
  const ac = new AbortController();
  return {
    start: () => factory.startAll(ac.signal),
    synced: async () => {
      if (!(await factory.waitForCacheSync(ac.signal))) throw new Error('the informer stopped before it synced');
    },
    size: () => informer.store.size,
    stop: async () => {
      ac.abort();
      await factory.stopAll();
      client.close();
    },
  };
}

async function peer(kubeconfigPath: string, namespace: string, expected: number): Promise<Subject> {
  const k8s = await import('@kubernetes/client-node');
  const { readFileSync } = await import('node:fs');
  const kc = new k8s.KubeConfig();
  kc.loadFromString(readFileSync(kubeconfigPath, 'utf8'));
  const api = kc.makeApiClient(k8s.CoreV1Api);
  await api.listNamespacedPod({ namespace, limit: 1 });
  const informer = k8s.makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () => api.listNamespacedPod({ namespace }));
  let stopping = false;
  let adds = 0;
  let resolveSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => (resolveSynced = resolve));
  informer.on('add', (pod) => {
    // client-node has no synced signal of its own; synced = every listed pod delivered as an add.
    if (++adds === expected) resolveSynced();
    count('adds', pod.metadata?.name ?? '');
  });
  informer.on('update', (pod) => count('updates', pod.metadata?.name ?? ''));
  informer.on('delete', () => count('deletes', ''));
  informer.on('connect', () => void counters.watchStarts++);
  // The README's way to survive errors: client-node's informer stops on any
  // failure (e.g. connection refused while the server restarts) until started again.
  informer.on('error', () => {
    counters.errors++;
    if (!stopping) setTimeout(() => void informer.start().catch(() => undefined), 1000);
  });
  return {
    start: () => void informer.start(),
    synced: () => synced,
    size: () => informer.list().length,
    stop: async () => {
      stopping = true;
      await informer.stop();
    },
  };
}

async function main(): Promise<void> {
  const [mode, kubeconfigPath, namespace, countText] = process.argv.slice(2) as [InformerMode, string, string, string];
  const expected = Number(countText);
  const subject =
    mode === 'peer' ? await peer(kubeconfigPath, namespace, expected) : await ours(kubeconfigPath, namespace, mode === 'ours-transform');
  const before = await settle();

  // The parent is gone (crashed or killed): do not linger.
  process.on('disconnect', () => process.exit(1));
  process.on('message', (command: ChildCommand) => {
    void handle(command).catch((e: unknown) => send({ msg: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) }));
  });

  async function handle(command: ChildCommand): Promise<void> {
    if (command.cmd === 'sync') {
      const t0 = performance.now();
      subject.start();
      await subject.synced();
      const syncMs = performance.now() - t0;
      const after = await settle();
      const cached = subject.size();
      send({ msg: 'synced', syncMs, cached, heapPerPod: (after.heap - before.heap) / cached, rssPerPod: (after.rss - before.rss) / cached, gc: canCollect });
    } else if (command.cmd === 'expect') {
      for (const k of Object.keys(counters) as Array<keyof Counters>) counters[k] = 0;
      const cpu0 = process.cpuUsage();
      let markerSeen = false;
      onEvent = (name) => {
        if (command.marker !== undefined && name === command.marker) markerSeen = true;
        const finished = command.marker !== undefined ? markerSeen : counters.updates >= (command.updates ?? 0);
        if (!finished) return;
        onEvent = undefined;
        const cpu = process.cpuUsage(cpu0);
        const { adds, updates, deletes, sameVersionUpdates, watchStarts, errors } = counters;
        send({ msg: 'done', phase: command.phase, adds, updates, deletes, sameVersionUpdates, cpuUs: cpu.user + cpu.system, watchStarts, errors });
      };
      send({ msg: 'armed' });
    } else {
      await subject.stop();
      process.exit(0);
    }
  }
  send({ msg: 'ready' });
}

await main();
