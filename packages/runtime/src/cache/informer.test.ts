/**
 * Informer and reflector behaviour against the in-memory FakeListerWatcher:
 * list then watch, resuming without replay, relisting after a 410 with
 * tombstones, reconnecting with backoff after errors, handlers, iteration,
 * resync, indexes, transforms and stopping.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { FakeClock } from '../workqueue/fake-clock.js';
import { NoKindMatchError } from '../no-kind-match.js';
import { FakeListerWatcher } from './fake-lister-watcher.js';
import { Informer, type InformerOptions } from './informer.js';
import type { CacheLogger, LogFields } from './logger.js';
import type { ReflectorMetricsProvider } from './metrics.js';
import type { InformerEvent } from './events.js';
import { deletedObject, isTombstone, type Tombstone } from './tombstone.js';
import { dropManagedFields } from './transform.js';
import type { ListerWatcher, WatchEvent } from './list-watch.js';

interface Pod extends KubeObject {
  spec?: { nodeName?: string };
  data?: Record<string, string>;
}

function pod(name: string, extra: Partial<Pod> = {}, ns = 'default'): Pod {
  return { ...extra, metadata: { namespace: ns, name, ...(extra.metadata ?? {}) } };
}

/** Polls until `predicate` holds (5 s at most). */
async function waitFor(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: LogFields;
}

function recordingLogger(): CacheLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: LogFields, msg: string) => void lines.push({ level, msg, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function recordingMetrics(): ReflectorMetricsProvider & { errors: string[]; syncs: number[]; lists: number; watches: number } {
  const m = {
    errors: [] as string[],
    syncs: [] as number[],
    lists: 0,
    watches: 0,
    errored: (name: string, phase: string, reason: string) => void m.errors.push(`${name} ${phase} ${reason}`),
    synced: (_name: string, t: number) => void m.syncs.push(t),
    listed: () => void m.lists++,
    watchStarted: () => void m.watches++,
  };
  return m;
}

/** An event log as short strings: `add a (initial)`, `update a 3->4`, `delete a`, `delete a (tombstone)`. */
function eventLog(informer: Informer<Pod>): string[] {
  const log: string[] = [];
  informer.addEventHandler({
    add: (o, initial) => log.push(`add ${o.metadata.name}${initial ? ' (initial)' : ''}`),
    update: (o, n) => log.push(`update ${n.metadata.name} ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
    delete: (o) => log.push(`delete ${deletedObject(o).metadata.name}${isTombstone(o) ? ' (tombstone)' : ''}`),
  });
  return log;
}

function setup(options: InformerOptions<Pod> = {}, fake = new FakeListerWatcher<Pod>()) {
  const logger = recordingLogger();
  const metrics = recordingMetrics();
  const informer = new Informer<Pod>(fake, { name: 'pods', logger, metrics, backoff: { initialMs: 5, maxMs: 40 }, ...options });
  const ac = new AbortController();
  return { fake, informer, logger, metrics, ac };
}

describe('Informer: list, then watch', () => {
  test('the initial list arrives as adds in the initial list, then adds, updates and deletes', async () => {
    const fake = new FakeListerWatcher<Pod>({ objects: [pod('a'), pod('b')] });
    const { informer, ac, metrics } = setup({}, fake);
    const log = eventLog(informer);
    assert.equal(informer.hasSynced(), false);
    informer.start(ac.signal);
    assert.equal(await informer.waitForCacheSync(ac.signal), true);
    assert.equal(informer.hasSynced(), true);
    assert.deepEqual(log.sort(), ['add a (initial)', 'add b (initial)']);
    assert.equal(informer.store.size, 2);
    await waitFor(() => fake.openWatches === 1, 'the watch');
    assert.deepEqual(fake.calls[1], {
      verb: 'watch',
      options: { namespace: undefined, labelSelector: undefined, fieldSelector: undefined, resourceVersion: '2', allowWatchBookmarks: true, timeoutSeconds: fake.calls[1]!.options.timeoutSeconds },
    });
    const timeout = fake.calls[1]!.options.timeoutSeconds!;
    assert.ok(timeout >= 300 && timeout < 600, `watch timeout ${timeout} in [300, 600)`);

    log.length = 0;
    fake.upsert(pod('c'));
    fake.upsert(pod('a', { data: { v: '2' } }));
    fake.delete('default/b');
    await waitFor(() => log.length === 3, 'three events');
    assert.deepEqual(log, ['add c', 'update a 1->4', 'delete b']);
    assert.deepEqual(informer.store.keys().sort(), ['default/a', 'default/c']);
    assert.deepEqual(informer.store.get('default/a')?.data, { v: '2' });
    assert.equal(informer.stats().resourceVersion, '5');
    assert.ok(metrics.syncs.length >= 4, 'last sync time set by the list and each event');
    assert.equal(metrics.lists, 1);
    await informer.stop();
    assert.equal(fake.openWatches, 0);
  });

  test('bookmarks move the resourceVersion on without events', async () => {
    const { fake, informer, ac } = setup();
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.upsert(pod('x'));
    fake.delete('default/x');
    await waitFor(() => log.length === 2, 'add and delete');
    fake.bookmark();
    await waitFor(() => informer.stats().resourceVersion === fake.resourceVersion, 'bookmark resourceVersion');
    assert.deepEqual(log, ['add x', 'delete x']);
    ac.abort();
    await informer.stop();
  });

  test('namespace and selectors scope the list and the watch', async () => {
    const fake = new FakeListerWatcher<Pod>({
      objects: [pod('a', { metadata: { labels: { app: 'web' } } }), pod('b', { metadata: { labels: { app: 'db' } } }), pod('c', { metadata: { labels: { app: 'web' } } }, 'other')],
    });
    const { informer, ac } = setup({ namespace: 'default', labelSelector: 'app=web' }, fake);
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    assert.deepEqual(log, ['add a (initial)']);
    assert.deepEqual(fake.calls[0]!.options, { namespace: 'default', labelSelector: 'app=web', fieldSelector: undefined });
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.upsert(pod('a', { metadata: { labels: { app: 'db' } } })); // leaves the selector
    await waitFor(() => log.length === 2, 'the delete');
    assert.equal(log[1], 'delete a');
    assert.equal(informer.store.size, 0);
    ac.abort();
    await informer.stop();
  });
});

describe('Informer: resuming, relisting, reconnecting', () => {
  test('a watch the server ends is resumed from the last resourceVersion: no relist, no replayed updates', async () => {
    const fake = new FakeListerWatcher<Pod>({ objects: [pod('a'), pod('b'), pod('c')] });
    const { informer, ac, metrics } = setup({}, fake);
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    log.length = 0;
    for (let round = 0; round < 5; round++) {
      await waitFor(() => fake.openWatches === 1, 'a watch');
      fake.upsert(pod(`n${round}`));
      await waitFor(() => log.length === round + 1, 'the add');
      fake.endWatches();
    }
    await waitFor(() => fake.openWatches === 1, 'the last watch');
    const calls = fake.calls.map((c) => `${c.verb}${c.options.resourceVersion ? ` ${c.options.resourceVersion}` : ''}`);
    assert.deepEqual(calls, ['list', 'watch 3', 'watch 4', 'watch 5', 'watch 6', 'watch 7', 'watch 8']);
    assert.deepEqual(log, ['add n0', 'add n1', 'add n2', 'add n3', 'add n4'], 'no update event for unchanged objects');
    assert.equal(informer.stats().errors, 0);
    assert.deepEqual(metrics.errors, []);
    ac.abort();
    await informer.stop();
  });

  test('a 410 ERROR event makes it relist and report the gap: adds, updates, and tombstones for vanished objects', async () => {
    const fake = new FakeListerWatcher<Pod>({ objects: [pod('keep'), pod('change'), pod('vanish'), pod('transient-old')] });
    const { informer, ac, metrics, logger } = setup({}, fake);
    const log = eventLog(informer);
    const tombstones: Tombstone<Pod>[] = [];
    informer.addEventHandler({ delete: (o) => void (isTombstone(o) && tombstones.push(o)) });
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    log.length = 0;

    // The watch goes down; changes happen that it never sees; the server forgets them.
    fake.endWatches();
    fake.upsert(pod('change', { data: { v: '2' } }));
    fake.delete('default/vanish');
    fake.delete('default/transient-old');
    fake.upsert(pod('born'));
    fake.upsert(pod('transient-new'));
    fake.delete('default/transient-new');
    fake.expireHistory();

    await waitFor(() => log.length === 4, 'the relist diff');
    assert.deepEqual(log.sort(), ['add born', 'delete transient-old (tombstone)', 'delete vanish (tombstone)', 'update change 2->5']);
    assert.deepEqual(tombstones.map((t) => [t.key, t.lastKnown.metadata.resourceVersion]).sort(), [
      ['default/transient-old', '4'],
      ['default/vanish', '3'],
    ]);
    assert.deepEqual(informer.store.keys().sort(), ['default/born', 'default/change', 'default/keep']);
    assert.deepEqual(
      fake.calls.map((c) => c.verb),
      ['list', 'watch', 'watch', 'list', 'watch'],
    );
    assert.deepEqual(metrics.errors, ['pods watch Expired']);
    assert.ok(logger.lines.some((l) => l.level === 'info' && /relisting/.test(l.msg)));
    await waitFor(() => fake.openWatches === 1, 'the new watch');
    assert.equal(fake.calls.at(-1)!.options.resourceVersion, fake.resourceVersion, 'watches from the relist');
    fake.upsert(pod('after'));
    await waitFor(() => log.length === 5, 'events after the relist');
    assert.equal(log[4], 'add after');
    ac.abort();
    await informer.stop();
  });

  test('a thrown 410 (ApiError-like) also relists', async () => {
    const { fake, informer, ac, metrics } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.failWatches(1, Object.assign(new Error('too old resource version'), { code: 410 }));
    fake.endWatches();
    fake.delete('default/a');
    await waitFor(() => log.length === 2, 'the tombstone');
    assert.equal(log[1], 'delete a (tombstone)');
    assert.equal(fake.calls.filter((c) => c.verb === 'list').length, 2);
    assert.deepEqual(metrics.errors, ['pods watch HTTP410']);
    ac.abort();
    await informer.stop();
  });

  test('repeated 410s back off instead of relisting in a tight loop', async () => {
    const { fake, informer, ac, logger } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.failWatches(3, { code: 410, reason: 'Expired', message: 'gone' });
    fake.endWatches();
    await waitFor(() => fake.calls.filter((c) => c.verb === 'list').length === 4 && fake.openWatches === 1, 'recovery');
    const warnings = logger.lines.filter((l) => l.level === 'warn');
    assert.equal(warnings.length, 2, 'the second and third 410 in a row wait a backoff delay');
    assert.ok(warnings.every((w) => typeof w.fields.retryInMs === 'number'));
    ac.abort();
    await informer.stop();
  });

  test('list failures are retried with growing jittered delays, each one logged and counted, until it syncs', async () => {
    const fake = new FakeListerWatcher<Pod>({ objects: [pod('a')] });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    fake.failLists(4, refused);
    const { informer, ac, logger, metrics } = setup({ backoff: { initialMs: 10, maxMs: 1000 }, random: () => 0.5 }, fake);
    informer.start(ac.signal);
    assert.equal(await informer.waitForCacheSync(ac.signal), true);
    const failures = logger.lines.filter((l) => l.level === 'error');
    assert.deepEqual(failures.map((l) => l.msg), Array(4).fill('list failed; retrying'));
    assert.deepEqual(failures.map((l) => l.fields.retryInMs), [10, 20, 40, 80]);
    assert.deepEqual(failures.map((l) => l.fields.reason), Array(4).fill('ECONNREFUSED'));
    assert.deepEqual(metrics.errors, Array(4).fill('pods list ECONNREFUSED'));
    const stats = informer.stats();
    assert.equal(stats.errors, 4);
    assert.equal(stats.consecutiveFailures, 0);
    assert.match(stats.lastError!, /ECONNREFUSED/);
    assert.ok(stats.lastSyncTime! > Date.now() - 5000);
    ac.abort();
    await informer.stop();
  });

  test('transport errors and non-410 ERROR events reconnect the watch from the last resourceVersion, without relisting', async () => {
    const { fake, informer, ac, metrics, logger } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.upsert(pod('b'));
    fake.breakWatches(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await waitFor(() => fake.openWatches === 1, 'the second watch');
    fake.sendError({ code: 500, reason: 'InternalError', message: 'etcd is sad' });
    fake.failWatches(2, new Error('connection refused'));
    await waitFor(() => fake.openWatches === 1 && fake.calls.length === 6, 'the fifth watch');
    fake.upsert(pod('c'));
    await waitFor(() => log.length === 3, 'events after reconnecting');
    assert.deepEqual(log, ['add a (initial)', 'add b', 'add c']);
    assert.deepEqual(
      fake.calls.map((c) => `${c.verb}${c.options.resourceVersion ? ` ${c.options.resourceVersion}` : ''}`),
      ['list', 'watch 1', 'watch 2', 'watch 2', 'watch 2', 'watch 2'],
    );
    assert.deepEqual(metrics.errors, ['pods watch ECONNRESET', 'pods watch InternalError', 'pods watch Error', 'pods watch Error']);
    // The connection reset (a server going away) is retried quietly, as client-go's reflector does; the server's error and the others are warnings.
    const failures = logger.lines.filter((l) => l.msg === 'watch failed; resuming from the last resourceVersion');
    assert.deepEqual(failures.map((l) => `${l.level} ${l.fields.reason}`), ['debug ECONNRESET', 'warn InternalError', 'warn Error', 'warn Error']);
    ac.abort();
    await informer.stop();
  });

  test('a server out of reach is retried quietly for the first connection failures in a row, then each one is a warning', async () => {
    const { fake, informer, ac, metrics, logger } = setup({ backoff: { initialMs: 1, maxMs: 4 } }, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    // A restart: the stream is reset, then no socket file until the new server listens, then nobody on the port.
    fake.failWatches(3, Object.assign(new Error('connect ENOENT /tmp/operant-apiserver-x/api.sock'), { code: 'ENOENT' }));
    fake.failWatches(3, Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }));
    fake.breakWatches(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await waitFor(() => fake.openWatches === 1 && fake.calls.length === 9, 'the watch after seven failures');
    fake.upsert(pod('b'));
    await waitFor(() => log.length === 2, 'an event after reconnecting');
    assert.deepEqual(log, ['add a (initial)', 'add b']);
    const failures = logger.lines.filter((l) => l.msg === 'watch failed; resuming from the last resourceVersion');
    assert.deepEqual(
      failures.map((l) => `${l.fields.consecutiveFailures} ${l.level} ${l.fields.reason}`),
      ['1 debug ECONNRESET', '2 debug ENOENT', '3 debug ENOENT', '4 debug ENOENT', '5 debug ECONNREFUSED', '6 warn ECONNREFUSED', '7 warn ECONNREFUSED'],
    );
    assert.equal(metrics.errors.length, 7, 'every failure is counted');
    ac.abort();
    await informer.stop();
  });

  test('a watch the server does not end by its timeout (+30 s) is presumed dead and replaced', async () => {
    const clock = new FakeClock();
    const hung: ListerWatcher<Pod> = {
      list: async () => ({ items: [pod('a', { metadata: { resourceVersion: '7' } })], resourceVersion: '7' }),
      watch: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<WatchEvent<Pod>>>(() => {}) }) }),
    };
    let watches = 0;
    const counting: ListerWatcher<Pod> = { list: (o) => hung.list(o), watch: (o) => (watches++, hung.watch(o)) };
    const logger = recordingLogger();
    const metrics = recordingMetrics();
    const informer = new Informer<Pod>(counting, { name: 'pods', logger, metrics, clock, random: () => 0, watchTimeoutSeconds: 60, backoff: { initialMs: 100 } });
    informer.start();
    await informer.waitForCacheSync();
    await waitFor(() => watches === 1, 'the first watch');
    clock.advance(60_000 + 29_999);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal(watches, 1, 'not before timeout + 30 s');
    clock.advance(1);
    await waitFor(() => metrics.errors.length === 1, 'the stall report');
    assert.deepEqual(metrics.errors, ['pods watch WatchStalled']);
    clock.advance(100);
    await waitFor(() => watches === 2, 'the replacement watch');
    await informer.stop();
    assert.equal(clock.pendingTimers(), 0, 'stop cancels the watchdog');
  });

  test('a clean but empty watch that ends at once waits a backoff delay before the next', async () => {
    const clock = new FakeClock();
    let watches = 0;
    const lw: ListerWatcher<Pod> = {
      list: async () => ({ items: [], resourceVersion: '1' }),
      watch: () => (watches++, { [Symbol.asyncIterator]: () => ({ next: async () => ({ value: undefined, done: true as const }) }) }),
    };
    const informer = new Informer<Pod>(lw, { logger: recordingLogger(), clock, random: () => 0.5, backoff: { initialMs: 1000 } });
    informer.start();
    await waitFor(() => watches === 1, 'the first watch');
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(watches, 1);
    clock.advance(1000);
    await waitFor(() => watches === 2, 'the second watch');
    await informer.stop();
    assert.equal(informer.stats().errors, 0, 'not an error');
  });
});

describe('Informer: handlers, iteration, resync', () => {
  test('a handler added after sync gets the current state replayed as adds, then only later changes', async () => {
    const { fake, informer, ac } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a'), pod('b')] }));
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    const late = eventLog(informer);
    assert.deepEqual(late.sort(), ['add a (initial)', 'add b (initial)']);
    fake.upsert(pod('c'));
    await waitFor(() => late.length === 3, 'the add');
    assert.equal(late[2], 'add c');
    const reg = informer.addEventHandler({});
    assert.equal(reg.hasSynced(), true);
    ac.abort();
    await informer.stop();
  });

  test('a throwing handler is logged and does not disturb others', async () => {
    const { fake, informer, ac, logger } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    informer.addEventHandler({ add: () => { throw new Error('handler bug'); } });
    const log = eventLog(informer);
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.upsert(pod('b'));
    await waitFor(() => log.length === 2, 'both adds');
    assert.equal(logger.lines.filter((l) => l.msg === 'event handler threw').length, 2);
    ac.abort();
    await informer.stop();
  });

  test('a removed handler hears nothing more', async () => {
    const { fake, informer, ac } = setup();
    const log: string[] = [];
    const reg = informer.addEventHandler({ add: (o) => log.push(o.metadata.name!) });
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    fake.upsert(pod('a'));
    await waitFor(() => log.length === 1, 'the add');
    reg.remove();
    fake.upsert(pod('b'));
    await waitFor(() => informer.store.size === 2, 'b cached');
    assert.deepEqual(log, ['a']);
    ac.abort();
    await informer.stop();
  });

  test('events() iterates the replay then the changes, and ends on abort', async () => {
    const { fake, informer, ac } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    const iterAbort = new AbortController();
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const ev of informer.events({ signal: iterAbort.signal })) {
        seen.push(describeEvent(ev));
        if (seen.length === 4) iterAbort.abort();
      }
    })();
    fake.upsert(pod('b'));
    fake.upsert(pod('a', { data: { x: '1' } }));
    fake.delete('default/b');
    await consumer;
    assert.deepEqual(seen, ['add a initial', 'add b', 'update a', 'delete b']);
    ac.abort();
    await informer.stop();
  });

  test('events() without replay, ended by break, and all iterators end when the informer stops', async () => {
    const { fake, informer, ac } = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    const first: string[] = [];
    const breaking = (async () => {
      for await (const ev of informer.events({ replay: false })) {
        first.push(describeEvent(ev));
        break;
      }
    })();
    const untilStop: string[] = [];
    const endless = (async () => {
      for await (const ev of informer.events({ replay: false })) untilStop.push(describeEvent(ev));
    })();
    fake.upsert(pod('b'));
    await breaking;
    fake.upsert(pod('c'));
    await waitFor(() => untilStop.length === 2, 'two adds');
    await informer.stop();
    await endless;
    assert.deepEqual(first, ['add b']);
    assert.deepEqual(untilStop, ['add b', 'add c']);
  });

  test('resync re-delivers every cached object as an update of itself', async () => {
    const { informer, ac } = setup({ resyncPeriodMs: 20 }, new FakeListerWatcher<Pod>({ objects: [pod('a'), pod('b')] }));
    const resyncs: string[] = [];
    informer.addEventHandler({ update: (o, n) => void (o === n && resyncs.push(n.metadata.name!)) });
    const iterated: boolean[] = [];
    const it = informer.events({ replay: false, signal: ac.signal });
    const consumer = (async () => {
      for await (const ev of it) if (ev.type === 'update') iterated.push(ev.resync === true);
    })();
    informer.start(ac.signal);
    await waitFor(() => resyncs.length >= 4, 'two resyncs');
    assert.deepEqual(resyncs.slice(0, 4).sort(), ['a', 'a', 'b', 'b']);
    ac.abort();
    await informer.stop();
    await consumer;
    assert.ok(iterated.length >= 4 && iterated.every(Boolean), 'iterated resync events are marked');
  });
});

describe('Informer: cache features and lifecycle', () => {
  test('indexes (pods by spec.nodeName) and transforms apply to what is cached and delivered', async () => {
    const fake = new FakeListerWatcher<Pod>({
      objects: [
        pod('p1', { spec: { nodeName: 'node-1' }, metadata: { managedFields: [{ manager: 'x' }] } }),
        pod('p2', { spec: { nodeName: 'node-2' }, metadata: { managedFields: [{ manager: 'x' }] } }),
      ],
    });
    const byNode = (p: Pod): string[] => (p.spec?.nodeName ? [p.spec.nodeName] : []);
    const { informer, ac } = setup({ transform: dropManagedFields, indexers: { byNode } }, fake);
    const delivered: Pod[] = [];
    informer.addEventHandler({ add: (o) => delivered.push(o), update: (_o, n) => delivered.push(n), delete: (o) => delivered.push(deletedObject(o)) });
    informer.start(ac.signal);
    await informer.waitForCacheSync();
    await waitFor(() => fake.openWatches === 1, 'the watch');
    informer.store.addIndexer('namespace', (p) => [p.metadata.namespace ?? '']);
    assert.deepEqual(informer.store.byIndex('byNode', 'node-1').map((p) => p.metadata.name), ['p1']);
    fake.upsert(pod('p3', { spec: { nodeName: 'node-1' }, metadata: { managedFields: [{ manager: 'x' }] } }));
    fake.upsert(pod('p1', { spec: { nodeName: 'node-2' }, metadata: { managedFields: [{ manager: 'x' }] } }));
    fake.delete('default/p2');
    await waitFor(() => delivered.length === 5, 'all events');
    assert.deepEqual(informer.store.byIndex('byNode', 'node-1').map((p) => p.metadata.name), ['p3']);
    assert.deepEqual(informer.store.byIndex('byNode', 'node-2').map((p) => p.metadata.name), ['p1']);
    assert.equal(informer.store.byIndex('namespace', 'default').length, 2);
    assert.ok(delivered.every((p) => p.metadata.managedFields === undefined), 'handlers see transformed objects, deletes included');
    assert.ok(informer.store.list().every((p) => p.metadata.managedFields === undefined));
    ac.abort();
    await informer.stop();
  });

  test('waitForCacheSync: false when aborted or stopped before syncing, true at once after', async () => {
    const fake = new FakeListerWatcher<Pod>();
    fake.failLists(1000, new Error('down'));
    const { informer, ac } = setup({ backoff: { initialMs: 5, maxMs: 5 } }, fake);
    informer.start(ac.signal);
    const waitAbort = new AbortController();
    const waiting = informer.waitForCacheSync(waitAbort.signal);
    waitAbort.abort();
    assert.equal(await waiting, false);
    const untilStop = informer.waitForCacheSync();
    ac.abort();
    assert.equal(await untilStop, false);
    await informer.stop();
    assert.equal(await informer.waitForCacheSync(), false);
    assert.equal(informer.state, 'stopped');
    assert.throws(() => informer.start(), /already started/);

    const ok = setup({}, new FakeListerWatcher<Pod>({ objects: [pod('a')] }));
    ok.informer.start(ok.ac.signal);
    assert.equal(await ok.informer.waitForCacheSync(), true);
    assert.equal(await ok.informer.waitForCacheSync(AbortSignal.abort()), true);
    await ok.informer.stop();
  });

  test('a kind the server does not serve: the first list stops the informer and its waiters reject; once synced, the same error is retried', async () => {
    const notServed = new NoKindMatchError({ group: 'example.com', version: 'v1', kind: 'Widget' });
    const fake = new FakeListerWatcher<Pod>();
    fake.failLists(1, notServed);
    const informer = new Informer<Pod>(fake, { logger: recordingLogger(), backoff: { initialMs: 5, maxMs: 5 } });
    const waiting = informer.waitForCacheSync();
    informer.start();
    await assert.rejects(waiting, (e: unknown) => e === notServed);
    await assert.rejects(informer.waitForCacheSync(), (e: unknown) => e === notServed, 'a later waiter learns it too');
    assert.equal(informer.state, 'stopped');
    assert.equal(informer.stats().errors, 1);
    assert.equal(fake.calls.filter((c) => c.verb === 'list').length, 1, 'not retried');

    const served = new FakeListerWatcher<Pod>({ objects: [pod('a')] });
    const synced = new Informer<Pod>(served, { logger: recordingLogger(), backoff: { initialMs: 5, maxMs: 5 } });
    synced.start();
    assert.equal(await synced.waitForCacheSync(), true);
    served.failLists(1, notServed); // say, the CRD was deleted and installed again
    await waitFor(() => served.calls.some((c) => c.verb === 'watch'), 'the watch');
    served.sendError({ code: 410, reason: 'Expired' });
    await waitFor(() => synced.stats().lists === 2, 'the relist after the failed one');
    assert.equal(synced.state, 'running');
    await synced.stop();
  });

  test('stop ends a list that ignores its signal, and a sleep between retries', async () => {
    const hanging: ListerWatcher<Pod> = { list: () => new Promise(() => {}), watch: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}) }) }) };
    const a = new Informer<Pod>(hanging, { logger: recordingLogger() });
    a.start();
    await new Promise((r) => setTimeout(r, 5));
    await a.stop();
    assert.equal(a.state, 'stopped');

    const fake = new FakeListerWatcher<Pod>();
    fake.failLists(1, new Error('down'));
    const b = new Informer<Pod>(fake, { logger: recordingLogger(), backoff: { initialMs: 60_000 } });
    b.start();
    await waitFor(() => b.stats().errors === 1, 'the failure');
    const started = Date.now();
    await b.stop();
    assert.ok(Date.now() - started < 1000, 'did not wait out the backoff');
  });

  test('an informer started with an aborted signal, or stopped before starting, never lists', async () => {
    const fake = new FakeListerWatcher<Pod>();
    const a = new Informer<Pod>(fake, { logger: recordingLogger() });
    a.start(AbortSignal.abort());
    await a.stop();
    const b = new Informer<Pod>(fake, { logger: recordingLogger() });
    await b.stop();
    assert.equal(b.state, 'stopped');
    assert.equal(fake.calls.length, 0);
  });
});

function describeEvent(ev: InformerEvent<Pod>): string {
  switch (ev.type) {
    case 'add':
      return `add ${ev.object.metadata.name}${ev.isInInitialList ? ' initial' : ''}`;
    case 'update':
      return `update ${ev.object.metadata.name}`;
    case 'delete':
      return `delete ${deletedObject(ev.object).metadata.name}`;
  }
}
