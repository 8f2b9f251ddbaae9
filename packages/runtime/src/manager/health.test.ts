/**
 * Health checks: names, outcomes (return, false, throw, reject), one check at a time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HealthChecks } from './health.js';

test('checks pass by returning and fail by returning false, throwing or rejecting', async () => {
  const checks = new HealthChecks('readyz', 503);
  checks.add('plain', () => undefined);
  checks.add('true', () => true);
  checks.add('async', async () => undefined);
  assert.deepEqual(await checks.run(), {
    ok: true,
    results: [
      { name: 'plain', ok: true },
      { name: 'true', ok: true },
      { name: 'async', ok: true },
    ],
  });
  checks.add('false', () => false);
  checks.add('throws', () => {
    throw new Error('no route to host');
  });
  checks.add('rejects', () => Promise.reject(new Error('timeout')));
  const { ok, results } = await checks.run();
  assert.equal(ok, false);
  assert.deepEqual(results.slice(3), [
    { name: 'false', ok: false },
    { name: 'throws', ok: false, reason: 'no route to host' },
    { name: 'rejects', ok: false, reason: 'timeout' },
  ]);
  assert.deepEqual(await checks.run('plain'), { ok: true, results: [{ name: 'plain', ok: true }] });
  assert.deepEqual(checks.names(), ['plain', 'true', 'async', 'false', 'throws', 'rejects']);
});

test('names are unique and URL-safe', () => {
  const checks = new HealthChecks('healthz', 500);
  checks.add('ping', () => true);
  assert.throws(() => checks.add('ping', () => true), /already exists/);
  assert.throws(() => checks.add('a/b', () => true), /invalid/);
  assert.throws(() => checks.add('', () => true), /invalid/);
});
