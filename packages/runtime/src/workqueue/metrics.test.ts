import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DelayingQueue } from './delaying-queue.js';
import { FakeClock } from './fake-clock.js';
import type { QueueMetricsProvider } from './metrics.js';

/** Records every call as "metric queue value". */
function recorder(): { calls: string[]; provider: QueueMetricsProvider } {
  const calls: string[] = [];
  const record =
    (metric: string) =>
    (queue: string, value?: number): void => {
      calls.push(value === undefined ? `${metric} ${queue}` : `${metric} ${queue} ${value}`);
    };
  return {
    calls,
    provider: {
      depth: record('depth'),
      added: record('adds'),
      queueDuration: record('queue_duration'),
      workDuration: record('work_duration'),
      retried: record('retries'),
      unfinishedWork: record('unfinished_work'),
      longestRunningProcessor: record('longest_running'),
    },
  };
}

describe('queue metrics', () => {
  test('depth, adds, queue and work duration follow the key through the queue', async () => {
    const clock = new FakeClock();
    const { calls, provider } = recorder();
    const queue = new DelayingQueue({ clock, name: 'foo', metricsProvider: provider, unfinishedWorkSamplePeriodMs: 60_000 });
    queue.add('a');
    queue.add('a'); // merged: not an add
    queue.add('b');
    clock.advance(2000);
    const a = await queue.get();
    clock.advance(500);
    queue.done(a.key!);
    assert.deepEqual(calls, [
      'adds foo',
      'depth foo 1',
      'adds foo',
      'depth foo 2',
      'depth foo 1',
      'queue_duration foo 2',
      'work_duration foo 0.5',
    ]);
  });

  test('every addAfter counts as a retry', () => {
    const clock = new FakeClock();
    const { calls, provider } = recorder();
    const queue = new DelayingQueue({ clock, name: 'foo', metricsProvider: provider, unfinishedWorkSamplePeriodMs: 60_000 });
    queue.addAfter('a', 10);
    queue.addAfter('a', 20);
    assert.deepEqual(calls, ['retries foo', 'retries foo']);
  });

  test('unfinished work and the longest-running processor are sampled periodically', async () => {
    const clock = new FakeClock();
    const { calls, provider } = recorder();
    const queue = new DelayingQueue({ clock, name: 'foo', metricsProvider: provider, unfinishedWorkSamplePeriodMs: 500 });
    queue.add('a');
    await queue.get();
    clock.advance(1000);
    queue.add('b');
    await queue.get();
    calls.length = 0;
    clock.advance(500);
    assert.deepEqual(calls, ['unfinished_work foo 2', 'longest_running foo 1.5']);
    queue.shutDown();
    calls.length = 0;
    clock.advance(5000);
    assert.deepEqual(calls, [], 'sampling stops at shutdown');
  });

  test('without a provider nothing is scheduled', () => {
    const clock = new FakeClock();
    new DelayingQueue({ clock, name: 'foo' });
    assert.equal(clock.pendingTimers(), 0);
  });
});
