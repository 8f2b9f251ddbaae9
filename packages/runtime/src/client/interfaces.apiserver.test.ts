/**
 * The client interfaces (issue 18): a reconcile, an admission handler and the
 * helpers take an ObjectClient, so a wrapper of the real client (here, one
 * that records every write) can stand in for it, against the embedded server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { ConfigMap, type Typed } from '../builtins.js';
import { Controller } from '../controller/controller.js';
import type { Source } from '../controller/source.js';
import { createOrUpdate } from '../helpers/create-or-update.js';
import { useApiServer } from '../testdata/api-server.js';
import type { ObjectClient } from './interfaces.js';

const ns = 'client-interfaces';
const api = useApiServer({ namespaces: [ns] });

/** Delegates to `inner`, recording the name of every object it creates or updates. */
function recording(inner: ObjectClient, writes: string[]): ObjectClient {
  return {
    get namespace() {
      return inner.namespace;
    },
    get: inner.get.bind(inner) as ObjectClient['get'],
    list: inner.list.bind(inner) as ObjectClient['list'],
    create: (kind, obj, opts) => (writes.push(`create ${obj.metadata?.name}`), inner.create(kind, obj, opts)),
    update: (kind, obj, opts) => (writes.push(`update ${obj.metadata?.name}`), inner.update(kind, obj, opts)),
    updateStatus: inner.updateStatus.bind(inner),
    patch: inner.patch.bind(inner),
    apply: inner.apply.bind(inner),
    applyStatus: inner.applyStatus.bind(inner),
    delete: inner.delete.bind(inner),
    deleteAllOf: inner.deleteAllOf.bind(inner),
    getScale: inner.getScale.bind(inner),
    updateScale: inner.updateScale.bind(inner),
    applyScale: inner.applyScale.bind(inner),
    watch: inner.watch.bind(inner),
  };
}

test('a reconcile gets the ObjectClient the controller was given, and the helpers write through it', async () => {
  const writes: string[] = [];
  const client = recording(api.client, writes);
  const once: Source = { description: 'once', start: ({ queue }) => queue.add({ namespace: ns, name: 'wrapped' }), waitForSync: async () => true, hasSynced: () => true };
  const stop = new AbortController();
  let done!: (given: ObjectClient) => void;
  const reconciled = new Promise<ObjectClient>((resolve) => (done = resolve));
  const controller = new Controller({
    name: 'wrapped-client',
    client,
    sources: [once],
    reconcile: async (req, ctx) => {
      const key: Typed<corev1.ConfigMap> = { metadata: { name: req.name, namespace: req.namespace } };
      await createOrUpdate(ctx.client, ConfigMap, key, (cm) => void (cm.data = { owner: 'wrapper' }));
      done(ctx.client);
    },
  });
  const running = controller.start(stop.signal);
  assert.equal(await reconciled, client);
  stop.abort();
  await running;
  assert.deepEqual(writes, ['create wrapped']);
  const stored = await api.client.get(ConfigMap, 'wrapped', { namespace: ns });
  assert.deepEqual(stored.data, { owner: 'wrapper' });
});
