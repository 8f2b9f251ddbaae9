/**
 * eventually and consistently: what they resolve with, when they give up, and
 * what their failure messages say (the last error or value, and when).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { consistently, eventually, eventuallyFound, WaitError } from '../src/index.js';

test('eventually resolves with the first value that passes', async () => {
  let n = 0;
  const value = await eventually(() => {
    n++;
    assert.ok(n >= 3, `only ${n}`);
    return n * 10;
  }, { interval: 1 });
  assert.equal(value, 30);
});

test('eventually treats false as a failure, and undefined (a void assertion block) as a pass', async () => {
  let n = 0;
  assert.equal(await eventually(() => ++n >= 2, { interval: 1 }), true);
  assert.equal(await eventually(() => undefined), undefined);
});

test('eventuallyFound resolves with the first thing found: undefined, null and false are not found, 0 and the empty string are', async () => {
  const answers: unknown[] = [undefined, null, false, 0];
  let n = 0;
  assert.equal(await eventuallyFound(() => answers[n++], { interval: 1 }), 0);
  assert.equal(n, 4);
  assert.equal(await eventuallyFound(async () => ''), '');
  const store = new Map<string, { replicas: number }>();
  setTimeout(() => store.set('web', { replicas: 3 }), 20);
  assert.deepEqual(await eventuallyFound(() => store.get('web'), { interval: 5 }), { replicas: 3 });
});

test('eventuallyFound, timed out, names the last value without an assertion to describe', async () => {
  const err = await eventuallyFound(() => undefined, { timeout: 60, interval: 10, message: 'the Deployment' }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.match(err.message, /^eventually the Deployment: still failing after 60 ms \(\d+ tries\)\n {2}last value: undefined$/);
  assert.equal(err.cause, undefined);
  // A check that throws is reported as eventually reports it.
  const thrown = await eventuallyFound(() => {
    throw new Error('the list failed');
  }, { timeout: 30, interval: 10 }).catch((e: unknown) => e);
  assert.ok(thrown instanceof WaitError);
  assert.match(thrown.message, /last error: the list failed$/);
});

test('eventually, timed out, shows the last error and keeps it as the cause', async () => {
  let n = 0;
  const err = await eventually(
    () => {
      n++;
      assert.equal(n, -1);
    },
    { timeout: 120, interval: 10, message: 'the counter goes negative' },
  ).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.equal(err.helper, 'eventually');
  assert.match(err.message, /^eventually the counter goes negative: still failing after 120 ms \(\d+ tries\)\n {2}last error: AssertionError/);
  // The last error, not the first: the count in the message is the last attempt's.
  assert.match(err.message, new RegExp(`\\n\\s+${n} !== -1`));
  assert.equal((err.cause as Error).name, 'AssertionError');
  assert.equal(err.attempts, n);
});

test('eventually, timed out on a value, shows that value', async () => {
  let n = 0;
  const err = await eventually(() => (++n, false), { timeout: 50, interval: 5 }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.match(err.message, /still failing after 50 ms .*\n {2}last value: false$/);
  assert.equal(err.lastValue, false);
});

test('eventually does not wait past its timeout for a try that hangs', async () => {
  const started = performance.now();
  const err = await eventually(() => new Promise<never>(() => undefined), { timeout: 80 }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.match(err.message, /the last try was still running/);
  assert.ok(performance.now() - started < 1000);
});

test('eventually stops when its signal aborts', async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  const err = await eventually(() => false, { timeout: 10_000, interval: 5, signal: ac.signal }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.match(err.message, /aborted after \d+ tries/);
});

test('consistently resolves with the last value after passing for its whole duration', async () => {
  const duration = 100;
  const interval = 10;
  const at: number[] = [];
  const started = performance.now();
  const value = await consistently(() => at.push(performance.now() - started), { duration, interval });
  assert.ok(performance.now() - started >= duration);
  assert.equal(value, at.length, 'the last check\'s value');
  // Each check is followed by the next an interval later, or when the duration ends if that is sooner, and
  // only while time remained; the last comes once the duration has passed. Never sooner (2 ms for timer
  // granularity); later is the machine's doing, so no count of checks is promised here (that it checks
  // again and again is the next test's: it fails at the 4th).
  const times = at.map((t) => t.toFixed(1)).join(', ');
  // This clock starts before consistently's, by at most the first check's time: a check at `duration` here
  // may still be inside consistently's duration (seen: a check at 100.0 ms, then one more at 101.2).
  const clockLead = at[0]!;
  for (let i = 1; i < at.length; i++) {
    assert.ok(at[i - 1]! < duration + clockLead, `checked again after a check at ${at[i - 1]!.toFixed(1)} ms, when the duration had passed: ${times}`);
    assert.ok(at[i]! - at[i - 1]! >= Math.min(interval, duration - at[i - 1]!) - 2, `two checks less than an interval apart: ${times}`);
  }
  assert.ok(at.at(-1)! >= duration - 2, `the last check before the duration had passed: ${times}`);
});

test('consistently fails at the first failure, saying when and what it got', async () => {
  let n = 0;
  const started = performance.now();
  const err = await consistently(() => ++n < 4, { duration: 5_000, interval: 10, message: 'the queue stays short' }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.ok(performance.now() - started < 1000, 'it did not wait for the whole duration');
  assert.match(err.message, /^consistently the queue stays short: failed after \d+ ms of 5000 ms \(try 4\)\n {2}got value: false$/);
});

test('consistently reports a thrown error with its message', async () => {
  const err = await consistently(() => {
    throw new Error('two Deployments for foo-1');
  }).catch((e: unknown) => e);
  assert.ok(err instanceof WaitError);
  assert.match(err.message, /\(try 1\)\n {2}got error: two Deployments for foo-1$/);
});
