/**
 * handleSignals: the first signal aborts with a reason naming it. (SIGUSR2
 * stands in for SIGTERM so the test runner is not disturbed.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { handleSignals } from './signals.js';

test('the first signal aborts the returned signal; its listeners go when a second must not exit', async () => {
  const before = process.listenerCount('SIGUSR2');
  const signal = handleSignals({ signals: ['SIGUSR2'], exitOnSecondSignal: false });
  assert.equal(process.listenerCount('SIGUSR2'), before + 1);
  assert.equal(signal.aborted, false);
  const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  const keepAlive = setTimeout(() => undefined, 5000); // signal listeners do not keep the loop alive while delivery is pending
  process.kill(process.pid, 'SIGUSR2');
  await aborted;
  clearTimeout(keepAlive);
  assert.match(String((signal.reason as Error).message), /received SIGUSR2/);
  assert.equal(process.listenerCount('SIGUSR2'), before);
});
