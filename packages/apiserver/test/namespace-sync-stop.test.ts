/**
 * Stopping a server on a data dir while the namespace controller empties a
 * terminating namespace: the sync under way finds the store closed, which is
 * the stop, not a failure. Before, it printed `namespace controller: syncing
 * <ns>: Error: the store is closed` with a stack to the test's output (seen at
 * the end of every test file whose durable TestEnv stopped while a test's
 * namespace was still being deleted), and scheduled a retry.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { TestApi, configMap } from './support/api-client.js';

const dir = mkdtempSync(join(tmpdir(), 'operant-ns-sync-stop-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a namespace sync cut short by stop() logs nothing', async () => {
  const api = await TestApi.start({ dataDir: join(dir, 'data') });
  const logged: string[] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
  try {
    await api.createNamespace('doomed');
    const cms = '/api/v1/namespaces/doomed/configmaps';
    for (let i = 0; i < 400; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => api.ok('POST', cms, configMap(`cm-${i + j}`), 201)));
    }
    const { metadata } = await api.ok('GET', cms);
    const watch = await api.watch(`${cms}?watch=true&resourceVersion=${metadata.resourceVersion}`);
    await api.ok('DELETE', '/api/v1/namespaces/doomed');
    // The controller has begun deleting the namespace's 400 ConfigMaps (one fsync each): stop it midway.
    await watch.until((e) => e.type === 'DELETED');
    await api.stop();
    // Whatever the sync was awaiting settles after the stop: give it its turns.
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    console.error = consoleError;
  }
  assert.deepEqual(logged.filter((l) => l.includes('namespace controller')), []);
});
