/**
 * retryOnConflict against the embedded server: a read-change-write that loses
 * the race to another writer gets the server's 409 and wins on its next try
 * from a fresh read; other errors are not retried; retryOnError's pacing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMap } from '../builtins.js';
import { useApiServer } from '../testdata/api-server.js';
import { isConflict, isNotFound } from './api-error.js';
import { retryOnConflict, retryOnError } from './retry.js';

const namespace = 'client-retry';
const api = useApiServer({ namespaces: [namespace] });

test('a read-change-write that loses a race reads again and wins, keeping the other writer\'s change', async () => {
  const { client } = api;
  await client.create(ConfigMap, { metadata: { name: 'raced', namespace }, data: { count: '0' } });
  const errors: unknown[] = [];
  let tries = 0;
  await retryOnConflict(async () => {
    tries++;
    const cm = await client.get(ConfigMap, 'raced', { namespace });
    // Another writer gets in between this read and this write, twice.
    if (tries <= 2) await client.update(ConfigMap, { ...cm, data: { ...cm.data, other: String(tries) } });
    try {
      await client.update(ConfigMap, { ...cm, data: { ...cm.data, count: String(Number(cm.data?.count) + 1) } });
    } catch (err) {
      errors.push(err);
      throw err;
    }
  });
  assert.equal(tries, 3);
  assert.deepEqual(errors.map(isConflict), [true, true]);
  const final = await client.get(ConfigMap, 'raced', { namespace });
  assert.deepEqual(final.data, { count: '1', other: '2' });
});

test('it gives up after its steps with the last Conflict, and never retries another error', async () => {
  const { client } = api;
  const created = await client.create(ConfigMap, { metadata: { name: 'stale', namespace } });
  await client.update(ConfigMap, { ...created, data: { moved: 'on' } });
  let tries = 0;
  // Always writing the first read's resourceVersion: every try conflicts.
  await assert.rejects(
    retryOnConflict(async () => {
      tries++;
      await client.update(ConfigMap, created);
    }),
    (err: unknown) => isConflict(err),
  );
  assert.equal(tries, 5, "client-go's DefaultRetry: 5 steps");

  tries = 0;
  await assert.rejects(
    retryOnConflict(async () => {
      tries++;
      await client.get(ConfigMap, 'missing', { namespace });
    }),
    (err: unknown) => isNotFound(err),
  );
  assert.equal(tries, 1);
});

test('retryOnError paces its tries by delay, factor and cap, and stops on the signal', async () => {
  const at: number[] = [];
  await assert.rejects(
    retryOnError(
      () => true,
      async () => {
        at.push(performance.now());
        throw new Error('not yet');
      },
      { steps: 4, delayMs: 20, factor: 3, capMs: 50, jitter: 0 },
    ),
    /not yet/,
  );
  // 20 ms, then 60 capped to 50, then 180 capped to 50 (timers never fire early; 1 ms for clock rounding).
  const pauses = at.slice(1).map((t, i) => t - at[i]!);
  assert.deepEqual(pauses.map((p, i) => p >= [20, 50, 50][i]! - 1), [true, true, true], `pauses ${pauses.join(', ')}`);

  const controller = new AbortController();
  const pending = retryOnError(() => true, () => Promise.reject(new Error('again')), { steps: 100, delayMs: 60_000, signal: controller.signal });
  setImmediate(() => controller.abort(new Error('stopped')));
  await assert.rejects(pending, (err: unknown) => err instanceof Error && err.name === 'AbortError' && (err.cause as Error).message === 'stopped');
});
