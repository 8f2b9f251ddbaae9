/**
 * An informer over the client's ListerWatcher against the embedded API server
 * (port 0): events that the server writes together, in one chunk, reach the
 * informer as one batch (ListerWatcher.watchBatches), applied in order. The
 * server writes several events per chunk when a watcher is behind (a replay of
 * what happened since its list) and for a burst of writes in one turn (a
 * deletecollection).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { TestEnv } from '@operant/testing';
import type { ListerWatcher } from './list-watch.js';
import { Informer } from './informer.js';
import { deletedObject } from './tombstone.js';
import { defineKind } from '../kind.js';
import type { Client } from '../client/client.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
const ConfigMap = defineKind<ConfigMap>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });

const count = 30;
const names = Array.from({ length: count }, (_, i) => `cm-${String(i).padStart(2, '0')}`);

let env: TestEnv;
let client: Client;
let namespace: string;

before(async () => {
  env = await TestEnv.start();
  client = env.client;
  namespace = (await env.namespace(undefined, { prefix: 'informer-batches' })).name;
});
after(() => env?.stop());

test('an informer applies the events the server wrote together as one batch: a backlog since its list, and a burst of deletes', async (t) => {
  const lw = client.listerWatcher(ConfigMap);
  /** Each batch the informer was handed, as `TYPE name` lines. */
  const batches: string[][] = [];
  let listed = false;
  // The client's own ListerWatcher; it notes each batch on its way to the informer. Its first
  // watch starts only after 30 creates made since the list: the watch begins that far behind.
  const noting: ListerWatcher<ConfigMap> = {
    list: async (opts) => {
      const result = await lw.list(opts);
      if (!listed) {
        listed = true;
        for (const name of names) await client.create(ConfigMap, { metadata: { name, namespace }, data: { name } });
      }
      return result;
    },
    watch: (opts) => lw.watch(opts),
    watchBatches: (opts, onEvents) =>
      lw.watchBatches!(opts, (events) => {
        batches.push(events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.name}`));
        onEvents(events);
      }),
  };
  const informer = new Informer(noting, { namespace });
  const seen: string[] = [];
  let waiting: { until: number; resolve: () => void } | undefined;
  const note = (line: string): void => {
    seen.push(line);
    if (waiting && seen.length >= waiting.until) waiting.resolve();
  };
  const seenCount = (until: number): Promise<void> => (seen.length >= until ? Promise.resolve() : new Promise((resolve) => (waiting = { until, resolve })));
  informer.addEventHandler({
    add: (cm) => note(`ADDED ${cm.metadata.name}`),
    delete: (cm) => note(`DELETED ${deletedObject(cm).metadata.name}`),
  });
  const ac = new AbortController();
  informer.start(ac.signal);
  try {
    await seenCount(count);
    assert.deepEqual(seen, names.map((n) => `ADDED ${n}`));
    const replay = batches.flat();
    assert.deepEqual(replay, names.map((n) => `ADDED ${n}`));
    assert.ok(batches.some((b) => b.length > 1), `the backlog came in batches of ${batches.map((b) => b.length).join(', ')}`);

    // One request deletes them all within one turn of the server: one fan-out round, one chunk.
    const before = batches.length;
    await client.deleteAllOf(ConfigMap, { namespace });
    await seenCount(2 * count);
    assert.deepEqual(seen.slice(count), names.map((n) => `DELETED ${n}`));
    const burst = batches.slice(before).filter((b) => b.length > 0);
    assert.deepEqual(burst.flat(), names.map((n) => `DELETED ${n}`));
    t.diagnostic(`backlog in batches of ${batches.slice(0, before).map((b) => b.length).join(', ')}; deletes in ${burst.map((b) => b.length).join(', ')}`);
    assert.ok(burst.some((b) => b.length > 1), `the deletes came in batches of ${burst.map((b) => b.length).join(', ')}`);
  } finally {
    ac.abort();
    await informer.stop();
  }
});
