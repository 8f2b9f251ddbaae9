/**
 * The public surface (issue 18): `@operant/runtime`'s root exports what an
 * operator author uses, and this test holds it to a reviewed list
 * (testdata/root-exports.json), so that an internal cannot slip back in
 * unnoticed. A change to the list is a change to the public API: review it,
 * then update the file. The machinery lives behind subpaths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const reviewed = JSON.parse(await readFile(new URL('./testdata/root-exports.json', import.meta.url), 'utf8')) as string[];

test('the root exports exactly the reviewed values', async () => {
  const root = await import('./index.js');
  const actual = Object.keys(root).sort();
  const added = actual.filter((name) => !reviewed.includes(name));
  const removed = reviewed.filter((name) => !actual.includes(name));
  assert.deepEqual({ added, removed }, { added: [], removed: [] }, 'the root export list changed: review it and update testdata/root-exports.json');
});

test('internals are not in the root; the machinery is behind its subpaths', async () => {
  const root: Record<string, unknown> = await import('./index.js');
  for (const internal of ['passesCreate', 'requestsForUpdate', 'noopControllerMetrics', 'reconcileTimeBuckets', 'FakeClock', 'RequestRateLimiter', 'mutateChangedKeyMessage']) {
    assert.ok(!(internal in root), `${internal} is not exported from the root`);
  }
  const subpaths: Record<string, { module: Promise<Record<string, unknown>>; has: string[] }> = {
    cache: { module: import('./cache/index.js'), has: ['SharedInformerFactory', 'Informer', 'CacheReader', 'isTombstone', 'dropManagedFields'] },
    workqueue: { module: import('./workqueue/index.js'), has: ['WorkQueue', 'RateLimitingQueue', 'defaultControllerRateLimiter', 'realClock'] },
    metrics: { module: import('./metrics/index.js'), has: ['MetricsRegistry', 'metricsHandler', 'noopControllerMetrics', 'reconcileTimeBuckets'] },
    testing: { module: import('./testing/index.js'), has: ['FakeClock', 'FakeListerWatcher'] },
  };
  for (const [subpath, { module, has }] of Object.entries(subpaths)) {
    const exports = await module;
    for (const name of has) assert.ok(name in exports, `@operant/runtime/${subpath} exports ${name}`);
  }
});

test('package.json maps each subpath to its module', async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, { source: string }> };
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './cache', './duration', './metrics', './testing', './workqueue']);
  for (const subpath of ['cache', 'workqueue', 'metrics', 'testing']) assert.equal(pkg.exports[`./${subpath}`]?.source, `./src/${subpath}/index.ts`);
  // Go durations on their own, for callers (the server's option parser) that must not load the whole runtime.
  assert.equal(pkg.exports['./duration']?.source, './src/duration.ts');
});

test('deprecated names still resolve for one release', async () => {
  const root: Record<string, unknown> = await import('./index.js');
  assert.equal(root.isConflictError, root.isConflict);
});
