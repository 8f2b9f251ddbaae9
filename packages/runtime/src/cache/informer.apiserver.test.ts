/**
 * Informers against the real embedded API server, over HTTPS, through a
 * minimal ListerWatcher written here (paged lists, newline-JSON watches) that
 * a test can pause to open a gap in the watch. The server ends each watch
 * after 300-600 ms and keeps 100 revisions of history, so resuming and
 * relisting after a 410 both happen for real.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '@operant/apimachinery';
import type { RunningApiServer } from '@operant/apiserver';
import { TestEnv } from '@operant/testing';
import type { ListerWatcher, ListResult, ListWatchOptions, WatchEvent } from './list-watch.js';
import { Informer, type InformerOptions } from './informer.js';
import type { CacheLogger, LogFields } from './logger.js';
import type { ReflectorMetricsProvider } from './metrics.js';
import { deletedObject, isTombstone, type Tombstone } from './tombstone.js';
import { composeTransforms, dropManagedFields } from './transform.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
interface Pod extends KubeObject {
  spec?: { nodeName?: string; containers?: Array<{ name: string; image: string }> };
}

type WatchOpts = ListWatchOptions & { resourceVersion: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number; signal?: AbortSignal };

let env: TestEnv;
let server: RunningApiServer;
let agent: https.Agent;

before(async () => {
  env = await TestEnv.start({ server: { historyCapacity: 100, defaultWatchTimeoutMs: 300, bookmarkIntervalMs: 100 } });
  server = env.server;
  agent = new https.Agent({ keepAlive: true, ca: server.caPem });
});

after(async () => {
  agent?.destroy();
  await env?.stop();
});

/** An error with the server's Status fields, as a client would throw. */
class ApiErrorLike extends Error {
  constructor(
    readonly code: number,
    readonly reason: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

function get(path: string, token: string, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, server.url), { method: 'GET', agent, signal, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  return text;
}

async function failure(res: IncomingMessage): Promise<ApiErrorLike> {
  const text = await readAll(res);
  let status: { reason?: string; message?: string } = {};
  try {
    status = JSON.parse(text) as typeof status;
  } catch {
    // not a Status
  }
  return new ApiErrorLike(res.statusCode ?? 0, status.reason, status.message ?? text);
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The minimal HTTPS ListerWatcher: lists in pages (limit/continue), watches as
 * newline-terminated JSON. `pause()` ends the open watches cleanly and holds new
 * ones until `resume()`, opening a gap in which the informer sees nothing.
 */
class HttpsListerWatcher<T extends KubeObject> implements ListerWatcher<T> {
  readonly calls: string[] = [];
  token = server.adminToken;
  openWatches = 0;
  private gate: Promise<void> | undefined;
  private openGate: () => void = () => {};
  private readonly active = new Set<AbortController>();
  private readonly pausedEnds = new WeakSet<AbortController>();

  constructor(
    private readonly resource: { group: string; version: string; plural: string },
    private readonly pageSize = 2,
  ) {}

  private path(namespace: string | undefined): string {
    const base = this.resource.group ? `/apis/${this.resource.group}/${this.resource.version}` : `/api/${this.resource.version}`;
    return namespace ? `${base}/namespaces/${namespace}/${this.resource.plural}` : `${base}/${this.resource.plural}`;
  }

  async list(opts: ListWatchOptions & { signal?: AbortSignal }): Promise<ListResult<T>> {
    this.calls.push('list');
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const res = await get(
        this.path(opts.namespace) + query({ labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, limit: this.pageSize, continue: cont }),
        this.token,
        opts.signal,
      );
      if (res.statusCode !== 200) throw await failure(res);
      const page = JSON.parse(await readAll(res)) as { items: T[]; metadata: { resourceVersion: string; continue?: string } };
      items.push(...page.items);
      resourceVersion = page.metadata.resourceVersion;
      cont = page.metadata.continue || undefined;
    } while (cont);
    return { items, resourceVersion };
  }

  watch(opts: WatchOpts): AsyncIterable<WatchEvent<T>> {
    return { [Symbol.asyncIterator]: () => this.stream(opts) };
  }

  private async *stream(opts: WatchOpts): AsyncGenerator<WatchEvent<T>> {
    while (this.gate) {
      await this.gate;
      if (opts.signal?.aborted) return;
    }
    this.calls.push(`watch ${opts.resourceVersion}`);
    const ac = new AbortController();
    const onAbort = (): void => ac.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.active.add(ac);
    this.openWatches++;
    let res: IncomingMessage | undefined;
    try {
      res = await get(
        this.path(opts.namespace) +
          query({
            watch: true,
            resourceVersion: opts.resourceVersion,
            allowWatchBookmarks: opts.allowWatchBookmarks,
            timeoutSeconds: opts.timeoutSeconds,
            labelSelector: opts.labelSelector,
            fieldSelector: opts.fieldSelector,
          }),
        this.token,
        ac.signal,
      );
      if (res.statusCode !== 200) throw await failure(res);
      let buffer = '';
      for await (const chunk of res) {
        buffer += String(chunk);
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) yield JSON.parse(line) as WatchEvent<T>;
        }
      }
    } catch (err) {
      if (this.pausedEnds.has(ac)) return; // ended by pause(): a clean end, as a server timeout
      throw err;
    } finally {
      this.openWatches--;
      this.active.delete(ac);
      opts.signal?.removeEventListener('abort', onAbort);
      res?.destroy();
    }
  }

  pause(): void {
    if (!this.gate) this.gate = new Promise((resolve) => (this.openGate = resolve));
    for (const ac of this.active) {
      this.pausedEnds.add(ac);
      ac.abort();
    }
  }

  resume(): void {
    this.gate = undefined;
    this.openGate();
  }
}

async function api<T>(method: string, path: string, body?: unknown, expect?: number): Promise<T> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = https.request(new URL(path, server.url), {
      method,
      agent,
      headers: {
        Authorization: `Bearer ${server.adminToken}`,
        Accept: 'application/json',
        ...(payload ? { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', 'Content-Length': String(payload.length) } : {}),
      },
    }, resolve);
    req.on('error', reject);
    req.end(payload);
  });
  const text = await readAll(res);
  if (expect !== undefined ? res.statusCode !== expect : (res.statusCode ?? 500) >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

const cmPath = (ns: string, name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const createNs = (name: string): Promise<unknown> => api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, 201);
const createCm = (ns: string, name: string, data: Record<string, string> = {}): Promise<ConfigMap> =>
  api('POST', cmPath(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }, 201);
const patchCm = (ns: string, name: string, data: Record<string, string>): Promise<ConfigMap> => api('PATCH', cmPath(ns, name), { data });
const deleteCm = (ns: string, name: string): Promise<unknown> => api('DELETE', cmPath(ns, name));

async function waitFor(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}


function recordingLogger(): CacheLogger & { lines: Array<{ level: string; msg: string; fields: LogFields }> } {
  const lines: Array<{ level: string; msg: string; fields: LogFields }> = [];
  const at = (level: string) => (fields: LogFields, msg: string) => void lines.push({ level, msg, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function recordingMetrics(): ReflectorMetricsProvider & { errors: string[] } {
  const errors: string[] = [];
  return { errors, errored: (_n, phase, reason) => void errors.push(`${phase} ${reason}`), synced: () => {}, listed: () => {}, watchStarted: () => {} };
}

interface Harness<T extends KubeObject> {
  lw: HttpsListerWatcher<T>;
  informer: Informer<T>;
  log: string[];
  logger: ReturnType<typeof recordingLogger>;
  metrics: ReturnType<typeof recordingMetrics>;
  ac: AbortController;
}

const configMaps = { group: '', version: 'v1', plural: 'configmaps' };

function harness<T extends KubeObject>(resource: typeof configMaps, options: InformerOptions<T>): Harness<T> {
  const lw = new HttpsListerWatcher<T>(resource);
  const logger = recordingLogger();
  const metrics = recordingMetrics();
  // watchTimeoutSeconds 0: the server picks the duration (here 300-600 ms), so watches end often.
  const informer = new Informer<T>(lw, { logger, metrics, watchTimeoutSeconds: 0, backoff: { initialMs: 20, maxMs: 200 }, ...options });
  const log: string[] = [];
  informer.addEventHandler({
    add: (o, initial) => log.push(`add ${o.metadata.name}${initial ? ' (initial)' : ''}`),
    update: (_o, n) => log.push(`update ${n.metadata.name}`),
    delete: (o) => log.push(`delete ${deletedObject(o).metadata.name}${isTombstone(o) ? ' (tombstone)' : ''}`),
  });
  return { lw, informer, log, logger, metrics, ac: new AbortController() };
}

describe('Informer over HTTPS against the embedded server', () => {
  test('initial (paged) list, then adds, updates and deletes', async () => {
    const ns = 'inf-basic';
    await createNs(ns);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await createCm(ns, name, { v: '1' });
    const h = harness<ConfigMap>(configMaps, { name: 'configmaps', namespace: ns });
    h.informer.start(h.ac.signal);
    assert.equal(await h.informer.waitForCacheSync(h.ac.signal), true);
    assert.deepEqual(h.log.sort(), ['add a (initial)', 'add b (initial)', 'add c (initial)', 'add d (initial)', 'add e (initial)']);
    h.log.length = 0;

    await createCm(ns, 'f');
    await patchCm(ns, 'a', { v: '2' });
    await deleteCm(ns, 'b');
    await waitFor(() => h.log.length === 3, 'three events');
    assert.deepEqual(h.log, ['add f', 'update a', 'delete b']);
    assert.deepEqual(h.informer.store.get(`${ns}/a`)?.data, { v: '2' });
    assert.deepEqual(h.informer.store.keys().sort(), ['a', 'c', 'd', 'e', 'f'].map((n) => `${ns}/${n}`));
    assert.deepEqual(h.metrics.errors, []);
    await h.informer.stop();
    assert.equal(h.lw.openWatches, 0, 'stop closed the watch');
  });

  test('watches ended by the server are resumed from the last resourceVersion: no relist, no replayed updates', async () => {
    const ns = 'inf-resume';
    await createNs(ns);
    for (let i = 0; i < 20; i++) await createCm(ns, `cm-${i}`);
    const h = harness<ConfigMap>(configMaps, { name: 'configmaps', namespace: ns });
    h.informer.start(h.ac.signal);
    await h.informer.waitForCacheSync();
    await waitFor(() => h.lw.calls.filter((c) => c.startsWith('watch')).length >= 5, 'four server-side watch ends', 10_000);
    await patchCm(ns, 'cm-3', { changed: 'yes' });
    await waitFor(() => h.log.includes('update cm-3'), 'the one real update');
    const watchesSoFar = h.lw.calls.filter((c) => c.startsWith('watch')).length;
    // Two more watches opened: the first of them lived out a whole watch, in which any replay would have arrived.
    await waitFor(() => h.lw.calls.filter((c) => c.startsWith('watch')).length >= watchesSoFar + 2, 'a resumed watch to run its course and end', 10_000);
    const updates = h.log.filter((l) => l.startsWith('update'));
    assert.deepEqual(updates, ['update cm-3'], 'exactly one update: nothing replayed after reconnects');
    assert.equal(h.log.filter((l) => l.startsWith('add')).length, 20);
    assert.deepEqual(h.lw.calls.filter((c) => c === 'list'), ['list'], 'never relisted');
    const watchRvs = h.lw.calls.filter((c) => c.startsWith('watch')).map((c) => Number(c.split(' ')[1]));
    assert.ok(watchRvs.length >= 6);
    for (let i = 1; i < watchRvs.length; i++) assert.ok(watchRvs[i]! >= watchRvs[i - 1]!, 'each watch resumes where the last left off');
    assert.deepEqual(h.metrics.errors, []);
    assert.equal(h.informer.stats().errors, 0);
    await h.informer.stop();
  });

  test('after a gap longer than the server history: 410, relist, diff with tombstones', async () => {
    const ns = 'inf-gap';
    const noise = 'inf-gap-noise';
    await createNs(ns);
    await createNs(noise);
    await createCm(noise, 'n');
    for (const name of ['keep', 'change', 'vanish']) await createCm(ns, name, { v: '1' });
    const h = harness<ConfigMap>(configMaps, { name: 'configmaps', namespace: ns });
    const tombstones: Tombstone<ConfigMap>[] = [];
    h.informer.addEventHandler({ delete: (o) => void (isTombstone(o) && tombstones.push(o)) });
    h.informer.start(h.ac.signal);
    await h.informer.waitForCacheSync();
    await waitFor(() => h.lw.openWatches === 1, 'the watch');
    const vanishRv = h.informer.store.get(`${ns}/vanish`)!.metadata.resourceVersion;
    h.log.length = 0;

    h.lw.pause();
    await waitFor(() => h.lw.openWatches === 0, 'the watch to end');
    await patchCm(ns, 'change', { v: '2' });
    await deleteCm(ns, 'vanish');
    await createCm(ns, 'born');
    await createCm(ns, 'brief');
    await deleteCm(ns, 'brief');
    for (let i = 0; i < 120; i++) await patchCm(noise, 'n', { i: String(i) }); // past the 100 revisions kept
    h.lw.resume();

    await waitFor(() => h.log.length === 3, 'the relist diff');
    assert.deepEqual(h.log.sort(), ['add born', 'delete vanish (tombstone)', 'update change']);
    assert.equal(tombstones.length, 1);
    assert.equal(tombstones[0]!.key, `${ns}/vanish`);
    assert.equal(tombstones[0]!.lastKnown.metadata.resourceVersion, vanishRv, 'the last state the cache held');
    assert.deepEqual(h.informer.store.keys().sort(), ['born', 'change', 'keep'].map((n) => `${ns}/${n}`));
    assert.deepEqual(h.metrics.errors, ['watch Expired'], 'the 410 arrived as an ERROR event and was reported');
    assert.deepEqual(h.lw.calls.filter((c) => c === 'list'), ['list', 'list']);
    assert.ok(h.logger.lines.some((l) => l.msg === 'resourceVersion expired; relisting'));

    await waitFor(() => h.lw.openWatches === 1, 'the watch after the relist');
    await createCm(ns, 'later');
    await waitFor(() => h.log.includes('add later'), 'events flow again');
    await h.informer.stop();
  });

  test('failures (401 on list) are retried with backoff, each logged and counted, until they clear', async () => {
    const ns = 'inf-auth';
    await createNs(ns);
    await createCm(ns, 'a');
    const h = harness<ConfigMap>(configMaps, { name: 'configmaps', namespace: ns, random: () => 0.5 });
    h.lw.token = 'not-a-valid-token';
    h.informer.start(h.ac.signal);
    await waitFor(() => h.metrics.errors.length >= 3, 'three failures');
    assert.equal(h.informer.hasSynced(), false);
    h.lw.token = server.adminToken;
    assert.equal(await h.informer.waitForCacheSync(h.ac.signal), true);
    const failures = h.logger.lines.filter((l) => l.level === 'error');
    assert.ok(failures.length >= 3);
    assert.ok(failures.every((l) => l.msg === 'list failed; retrying' && l.fields.reason === 'Unauthorized'));
    assert.deepEqual(failures.slice(0, 3).map((l) => l.fields.retryInMs), [20, 40, 80], 'exponential');
    assert.deepEqual(new Set(h.metrics.errors), new Set(['list Unauthorized']));
    assert.deepEqual(h.log, ['add a (initial)']);

    // A watch refused mid-flight (403 for a revoked token) is retried from the last resourceVersion.
    await waitFor(() => h.lw.openWatches === 1, 'the watch');
    h.lw.token = 'revoked';
    const before = h.metrics.errors.length;
    await waitFor(() => h.metrics.errors.length >= before + 2, 'watch failures'); // the open watch ends at its timeout, the next is refused
    h.lw.token = server.adminToken;
    await createCm(ns, 'b');
    await waitFor(() => h.log.includes('add b'), 'recovered');
    assert.deepEqual(new Set(h.metrics.errors.slice(before)), new Set(['watch Unauthorized']));
    assert.equal(h.lw.calls.lastIndexOf('list') < h.lw.calls.findIndex((c) => c.startsWith('watch')), true, 'no relist after the watch failures');
    await h.informer.stop();
  });

  test('pods indexed by spec.nodeName, transforms dropping managedFields, field-selector scoping', async () => {
    const ns = 'inf-pods';
    const bulky = 'example.com/bulky';
    await createNs(ns);
    const mkPod = (name: string, nodeName: string): Promise<Pod> =>
      api('POST', `/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, annotations: { [bulky]: 'x'.repeat(2000) } },
        spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }] },
      }, 201);
    const created = await mkPod('p1', 'node-a');
    await mkPod('p2', 'node-a');
    await mkPod('p3', 'node-b');
    assert.ok(created.metadata.annotations?.[bulky], 'the server keeps the annotation');

    const pods = { group: '', version: 'v1', plural: 'pods' };
    const byNode = (p: Pod): string[] => (p.spec?.nodeName ? [p.spec.nodeName] : []);
    const dropBulky = (p: Pod): Pod => {
      delete p.metadata.annotations?.[bulky];
      return p;
    };
    const all = harness<Pod>(pods, { name: 'pods', namespace: ns, transform: composeTransforms(dropManagedFields, dropBulky), indexers: { byNode } });
    const onNodeB = harness<Pod>(pods, { name: 'pods-b', namespace: ns, fieldSelector: 'spec.nodeName=node-b' });
    all.informer.start(all.ac.signal);
    onNodeB.informer.start(onNodeB.ac.signal);
    await all.informer.waitForCacheSync();
    await onNodeB.informer.waitForCacheSync();

    const names = (node: string): string[] => all.informer.store.byIndex('byNode', node).map((p) => p.metadata.name!).sort();
    assert.deepEqual(names('node-a'), ['p1', 'p2']);
    assert.deepEqual(names('node-b'), ['p3']);
    assert.ok(all.informer.store.list().every((p) => p.metadata.managedFields === undefined && p.metadata.annotations?.[bulky] === undefined), 'transformed before caching');
    assert.deepEqual(onNodeB.informer.store.keys(), [`${ns}/p3`]);

    await mkPod('p4', 'node-b');
    await api('DELETE', `/api/v1/namespaces/${ns}/pods/p1`);
    await waitFor(() => names('node-b').length === 2 && names('node-a').length === 1, 'index updates');
    assert.deepEqual(names('node-a'), ['p2']);
    await waitFor(() => onNodeB.informer.store.size === 2, 'the field-scoped informer');
    assert.deepEqual(onNodeB.informer.store.keys().sort(), [`${ns}/p3`, `${ns}/p4`]);
    assert.ok(onNodeB.informer.store.get(`${ns}/p4`)?.metadata.annotations?.[bulky], 'the untransformed informer keeps the annotation');
    assert.ok(all.informer.store.get(`${ns}/p4`) && all.informer.store.get(`${ns}/p4`)!.metadata.annotations?.[bulky] === undefined, 'watch events are transformed too');

    // A late handler gets the current state replayed.
    const late: string[] = [];
    all.informer.addEventHandler({ add: (p, initial) => late.push(`${p.metadata.name} ${initial}`) });
    assert.deepEqual(late.sort(), ['p2 true', 'p3 true', 'p4 true']);

    // Stopping through the signal ends everything.
    all.ac.abort();
    onNodeB.ac.abort();
    await all.informer.stop();
    await onNodeB.informer.stop();
    assert.equal(all.lw.openWatches + onNodeB.lw.openWatches, 0);
  });
});
