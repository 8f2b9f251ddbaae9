/**
 * The reflector over a ListerWatcher that delivers watch events in batches
 * (`watchBatches`, as the client's does): batches applied in order, the sync
 * time noted once per batch, an ERROR in mid-batch, and stopping or replacing a
 * watch whose source ignores its signal.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { FakeClock } from '../workqueue/fake-clock.js';
import { Informer } from './informer.js';
import type { ListerWatcher, ListResult, ListWatchOptions, WatchEvent } from './list-watch.js';
import type { ReflectorMetricsProvider } from './metrics.js';
import { silentLogger } from './logger.js';

type Pod = KubeObject;

const pod = (name: string, resourceVersion: string): Pod => ({ metadata: { namespace: 'default', name, resourceVersion } });
const event = (type: WatchEvent<Pod>['type'], obj: Pod): WatchEvent<Pod> => ({ type, object: obj });

/** Polls until `predicate` holds (5 s at most); used where only a fake clock's timer or another task moves things on. */
async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface BatchWatch {
  resourceVersion: string;
  signal: AbortSignal | undefined;
  /** Hands a batch to the reflector, as a network read would. */
  deliver(events: WatchEvent<Pod>[]): void;
}

/** A ListerWatcher whose watches the test drives batch by batch; with `ignoreSignal` its watches never end by themselves. */
class ScriptedBatches implements ListerWatcher<Pod> {
  readonly watches: BatchWatch[] = [];
  lists = 0;

  constructor(
    private readonly items: Pod[],
    private readonly ignoreSignal = false,
  ) {}

  async list(): Promise<ListResult<Pod>> {
    this.lists++;
    return { items: this.items.map((p) => structuredClone(p)), resourceVersion: '5' };
  }

  watch(): AsyncIterable<WatchEvent<Pod>> {
    throw new Error('the reflector should use watchBatches');
  }

  watchBatches(opts: ListWatchOptions & { resourceVersion: string; signal?: AbortSignal }, onEvents: (events: WatchEvent<Pod>[]) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.watches.push({
        resourceVersion: opts.resourceVersion,
        signal: opts.signal,
        deliver: (events) => {
          try {
            onEvents(events);
          } catch (e) {
            reject(e);
          }
        },
      });
      if (!this.ignoreSignal) opts.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

function recordingMetrics(): ReflectorMetricsProvider & { errors: string[]; syncs: number } {
  const m = {
    errors: [] as string[],
    syncs: 0,
    errored: (name: string, phase: string, reason: string) => void m.errors.push(`${name} ${phase} ${reason}`),
    synced: () => void m.syncs++,
    listed: () => {},
    watchStarted: () => {},
  };
  return m;
}

function eventLog(informer: Informer<Pod>): string[] {
  const log: string[] = [];
  informer.addEventHandler({
    add: (o) => log.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
    update: (o, n) => log.push(`update ${n.metadata.name} ${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
    delete: () => log.push('delete'),
  });
  return log;
}

describe('Reflector over a batch-delivering ListerWatcher', () => {
  test('batches are applied in order with the sync time noted once each; an ERROR mid-batch ends the watch, which resumes after the last applied event', async () => {
    const source = new ScriptedBatches([pod('a', '5')]);
    const metrics = recordingMetrics();
    const informer = new Informer<Pod>(source, { name: 'pods', logger: silentLogger, metrics, backoff: { initialMs: 5, maxMs: 5 } });
    const log = eventLog(informer);
    informer.start();
    assert.equal(await informer.waitForCacheSync(), true);
    await waitFor(() => source.watches.length === 1, 'the first watch');
    assert.equal(source.watches[0]!.resourceVersion, '5');
    const syncsAfterList = metrics.syncs;

    source.watches[0]!.deliver([event('MODIFIED', pod('a', '6')), event('ADDED', pod('b', '7')), event('BOOKMARK', { metadata: { resourceVersion: '8' } })]);
    assert.deepEqual(log.splice(0), ['add a@5', 'update a 5->6', 'add b@7']);
    assert.equal(metrics.syncs, syncsAfterList + 1, 'one sync-time report for the batch');
    assert.equal(informer.stats().resourceVersion, '8');

    const failure = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500, reason: 'InternalError', message: 'boom' } as unknown as Pod;
    source.watches[0]!.deliver([event('MODIFIED', pod('b', '9')), event('ERROR', failure), event('MODIFIED', pod('a', '10'))]);
    assert.deepEqual(log.splice(0), ['update b 7->9'], 'nothing after the ERROR is applied');
    assert.equal(metrics.syncs, syncsAfterList + 2, 'the progress before the ERROR is still reported');
    await waitFor(() => source.watches.length === 2, 'the next watch');
    assert.deepEqual(metrics.errors, ['pods watch InternalError']);
    assert.equal(source.watches[1]!.resourceVersion, '9', 'resumed from the last applied event');
    assert.equal(source.lists, 1, 'no relist for a non-410 error');
    assert.equal(informer.store.get('default/a')?.metadata.resourceVersion, '6');
    await informer.stop();
    assert.equal(source.watches[1]!.signal?.aborted, true, 'stopping aborts the open watch');
  });

  test('a source that ignores its signal: a stalled watch is replaced, stop still resolves, and late batches are ignored', async () => {
    const clock = new FakeClock();
    const source = new ScriptedBatches([pod('a', '5')], true);
    const metrics = recordingMetrics();
    const informer = new Informer<Pod>(source, { name: 'pods', logger: silentLogger, metrics, clock, random: () => 0, watchTimeoutSeconds: 60, backoff: { initialMs: 100 } });
    const log = eventLog(informer);
    informer.start();
    await informer.waitForCacheSync();
    await waitFor(() => source.watches.length === 1, 'the first watch');
    clock.advance(60_000 + 30_000);
    await waitFor(() => metrics.errors.length === 1, 'the stall report');
    assert.deepEqual(metrics.errors, ['pods watch WatchStalled']);
    source.watches[0]!.deliver([event('MODIFIED', pod('a', '6'))]);
    // The abandoned watch is given a moment to close, then the backoff delay starts.
    await waitFor(() => clock.pendingTimers() === 1, 'the backoff delay');
    clock.advance(100);
    await waitFor(() => source.watches.length === 2, 'the replacement watch');
    assert.equal(source.watches[1]!.resourceVersion, '5');

    await informer.stop();
    assert.equal(informer.state, 'stopped');
    assert.equal(clock.pendingTimers(), 0, 'no watchdog or backoff timer left');
    source.watches[1]!.deliver([event('MODIFIED', pod('a', '7'))]);
    assert.deepEqual(log, ['add a@5'], 'batches from a stopped or abandoned watch change nothing');
    assert.equal(informer.store.get('default/a')?.metadata.resourceVersion, '5');
  });
});
