/**
 * The public FakeListerWatcher behaves like the embedded server for the same
 * sequence of changes (issue 20, suite health item 9), so that tests written
 * against it stay honest: the same list through a label selector, and the
 * same watch events from that list's revision, objects entering and leaving
 * the selector included (ADDED, and DELETED with the previous content at the
 * change's revision, as kube's watch cache sends them).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { ConfigMap } from '../builtins.js';
import { isNotFound } from '../client/api-error.js';
import { useApiServer } from '../testdata/api-server.js';
import { FakeListerWatcher } from './fake-lister-watcher.js';
import type { ListerWatcher, WatchEvent } from './list-watch.js';

interface CM extends KubeObject {
  data?: Record<string, string>;
}

type Step = { put: string; tier: string; v: string } | { delete: string };

/** The changes made before the list, then those made while the watch runs. */
const before: Step[] = [
  { put: 'a', tier: 'web', v: '1' },
  { put: 'b', tier: 'db', v: '1' },
  { put: 'c', tier: 'web', v: '1' },
];
const during: Step[] = [
  { put: 'a', tier: 'web', v: '2' }, // stays in the selector: MODIFIED
  { put: 'b', tier: 'web', v: '2' }, // enters it: ADDED
  { put: 'c', tier: 'db', v: '2' }, // leaves it: DELETED, with its content from before
  { put: 'd', tier: 'db', v: '1' }, // never in it: nothing
  { delete: 'a' }, // DELETED
  { delete: 'd' }, // never in it: nothing
  { put: 'b', tier: 'web', v: '3' }, // MODIFIED
];
const namespace = 'parity';
const selector = { namespace, labelSelector: 'tier=web' };

/** What can be compared between two servers: names, labels, data, and where each event's revision falls among the changes. */
interface Seen {
  list: string[];
  events: Array<{ type: string; name?: string; tier?: string; v?: string; at: number }>;
}

/** Makes the changes through `apply`, which answers each change's resourceVersion (or, for a delete, one at or after it), and watches through `lw`. */
async function observe(lw: ListerWatcher<CM>, apply: (step: Step) => Promise<string>): Promise<Seen> {
  for (const step of before) await apply(step);
  const listed = await lw.list(selector);
  const stop = new AbortController();
  // A watch that sends fewer events than expected ends after a few seconds, and the comparison shows what is missing.
  const signal = AbortSignal.any([stop.signal, AbortSignal.timeout(5000)]);
  const events = lw.watch({ ...selector, resourceVersion: listed.resourceVersion, signal })[Symbol.asyncIterator]();
  const revisions: string[] = [];
  for (const step of during) revisions.push(await apply(step));
  const expected = 5;
  const got: WatchEvent<CM>[] = [];
  while (got.length < expected) {
    const next = await events.next();
    if (next.done) break;
    if (next.value.type !== 'BOOKMARK') got.push(next.value);
  }
  stop.abort();
  await events.return?.();
  return {
    list: listed.items.map((i) => i.metadata.name!).sort(),
    events: got.map((e) => ({
      type: e.type,
      name: e.object.metadata.name,
      tier: e.object.metadata.labels?.tier,
      v: e.object.data?.v,
      // Which change of `during` made the event: the first whose revision is not below the event's.
      at: revisions.findIndex((rv) => Number(rv) >= Number(e.object.metadata.resourceVersion)),
    })),
  };
}

function object(step: Extract<Step, { put: string }>): { metadata: { name: string; namespace: string; labels: Record<string, string> }; data: Record<string, string> } {
  return { metadata: { name: step.put, namespace, labels: { tier: step.tier } }, data: { v: step.v } };
}

describe('FakeListerWatcher against the embedded server', () => {
  const api = useApiServer({ namespaces: [namespace] });

  test('the same changes give the same list and the same watch events', async () => {
    const client = api.client;
    const server = await observe(client.listerWatcher(ConfigMap) as unknown as ListerWatcher<CM>, async (step) => {
      if ('delete' in step) {
        const gone = await client.delete(ConfigMap, step.delete, { namespace });
        return (gone as CM).metadata?.resourceVersion ?? (await latestRevision());
      }
      const existing = await client.get(ConfigMap, step.put, { namespace }).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      const written = existing ? await client.update(ConfigMap, { ...object(step), metadata: { ...object(step).metadata, resourceVersion: existing.metadata.resourceVersion } }) : await client.create(ConfigMap, object(step));
      return written.metadata.resourceVersion!;
    });

    const fake = new FakeListerWatcher<CM>();
    const faked = await observe(fake, async (step) => {
      if ('delete' in step) {
        fake.delete(`${namespace}/${step.delete}`);
        return fake.resourceVersion;
      }
      return fake.upsert(object(step)).metadata.resourceVersion!;
    });

    assert.deepEqual(server.list, ['a', 'c']);
    assert.deepEqual(server.events, [
      { type: 'MODIFIED', name: 'a', tier: 'web', v: '2', at: 0 },
      { type: 'ADDED', name: 'b', tier: 'web', v: '2', at: 1 },
      { type: 'DELETED', name: 'c', tier: 'web', v: '1', at: 2 },
      { type: 'DELETED', name: 'a', tier: 'web', v: '2', at: 4 },
      { type: 'MODIFIED', name: 'b', tier: 'web', v: '3', at: 6 },
    ]);
    assert.deepEqual(faked, server);

    /** A revision at or after the delete's, when the server answered a Status rather than the object. */
    async function latestRevision(): Promise<string> {
      return (await client.list(ConfigMap, { namespace })).metadata.resourceVersion!;
    }
  });
});
