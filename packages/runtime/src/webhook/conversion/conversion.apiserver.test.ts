/**
 * Conversion webhooks end to end: the embedded API server stores Widgets at
 * v1 (`spec.replicas`, `spec.image`) and serves v2 (`spec.size`, with the
 * image split into `spec.repository` and `spec.tag`) by calling the
 * conversion handler over HTTPS on a WebhookServer, trusting the caBundle
 * written into the CRD. Reads, writes and lists through either version see
 * the same objects; a conversion that fails reaches the client with its message.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { CustomResourceDefinition } from '../../builtins.js';
import { ApiError } from '../../client/index.js';
import type { ControllerLogger } from '../../controller/logger.js';
import { defineKind } from '../../kind.js';
import { useApiServer } from '../../testdata/api-server.js';
import { injectCABundle, localWebhookClientConfig } from '../certs/ca-bundle.js';
import { generateServingCertificate } from '../certs/generate.js';
import { WebhookServer } from '../server.js';
import { conversionHandler } from './handler.js';
import { defineConversion } from './hub.js';

interface WidgetV1 extends KubeObject {
  spec: { replicas: number; image: string };
}
interface WidgetV2 extends KubeObject {
  spec: { size: number; repository: string; tag: string };
}

const WidgetV1 = defineKind<WidgetV1>({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
const WidgetV2 = defineKind<WidgetV2>({ group: 'example.com', version: 'v2', kind: 'Widget', plural: 'widgets', namespaced: true });

const widgets = defineConversion(WidgetV1).spoke(WidgetV2, {
  toHub: ({ spec, ...w }) => {
    if (spec.size < 0) throw new Error(`spec.size must not be negative, got ${spec.size}`);
    return { ...w, spec: { replicas: spec.size, image: `${spec.repository}:${spec.tag}` } };
  },
  fromHub: ({ spec, ...w }) => {
    const colon = spec.image.lastIndexOf(':');
    if (colon < 0) throw new Error(`spec.image ${JSON.stringify(spec.image)} has no tag`);
    return { ...w, spec: { size: spec.replicas, repository: spec.image.slice(0, colon), tag: spec.image.slice(colon + 1) } };
  },
});

const quiet: ControllerLogger = { debug() {}, info() {}, warn() {}, error() {} };

const api = useApiServer();
let webhooks: WebhookServer;
const stopWebhooks = new AbortController();
let serving: Promise<void>;
let caPem: string;

const intSchema = { type: 'integer' };
const stringSchema = { type: 'string' };
function versionSchema(spec: Record<string, unknown>): Record<string, unknown> {
  return { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } };
}

describe('conversion webhook against the embedded API server', () => {
  before(async () => {
    const certs = await generateServingCertificate();
    caPem = certs.caPem;
    webhooks = new WebhookServer({ certificates: certs.source, host: '127.0.0.1', port: 0, logger: quiet });
    webhooks.register('/convert', conversionHandler([widgets]));
    serving = webhooks.start(stopWebhooks.signal);
    const { port } = await webhooks.listening();
    await api.client.create(CustomResourceDefinition, {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema: versionSchema({ replicas: intSchema, image: stringSchema }) },
          { name: 'v2', served: true, storage: false, schema: versionSchema({ size: intSchema, repository: stringSchema, tag: stringSchema }) },
        ],
        // No caBundle yet: injectCABundle writes it.
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: localWebhookClientConfig({ port, path: '/convert' }) } },
      },
    });
  });
  after(async () => {
    stopWebhooks.abort();
    await serving;
  });

  test('without the caBundle the API server cannot trust the webhook; with it, v1 objects read through v2', async () => {
    const created = await api.client.create(WidgetV1, { metadata: { name: 'w1', namespace: 'default', labels: { app: 'w' } }, spec: { replicas: 3, image: 'nginx:1.27' } });
    await assert.rejects(api.client.get(WidgetV2, 'w1', { namespace: 'default' }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.match(e.message, /conversion webhook for example.com\/v1, Kind=Widget failed: .*certificate signed by unknown authority/);
      return true;
    });

    assert.deepEqual(await injectCABundle(api.client, caPem, { crds: ['widgets.example.com'] }), [
      { kind: 'CustomResourceDefinition', name: 'widgets.example.com', result: 'updated' },
    ]);

    const asV2 = await api.client.get(WidgetV2, 'w1', { namespace: 'default' });
    assert.equal(asV2.apiVersion, 'example.com/v2');
    assert.deepEqual(asV2.spec, { size: 3, repository: 'nginx', tag: '1.27' });
    assert.equal(asV2.metadata.uid, created.metadata.uid);
    assert.equal(asV2.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual(asV2.metadata.labels, { app: 'w' });

    const asV1 = await api.client.get(WidgetV1, 'w1', { namespace: 'default' });
    assert.equal(asV1.apiVersion, 'example.com/v1');
    assert.deepEqual(asV1.spec, { replicas: 3, image: 'nginx:1.27' });
  });

  test('objects written through v2 are stored as v1 and read back through both', async () => {
    const created = await api.client.create(WidgetV2, { metadata: { name: 'w2', namespace: 'default' }, spec: { size: 5, repository: 'registry.local:5000/app', tag: 'v2' } });
    assert.equal(created.apiVersion, 'example.com/v2');
    assert.deepEqual(created.spec, { size: 5, repository: 'registry.local:5000/app', tag: 'v2' });

    const asV1 = await api.client.get(WidgetV1, 'w2', { namespace: 'default' });
    assert.deepEqual(asV1.spec, { replicas: 5, image: 'registry.local:5000/app:v2' });

    const updated = await api.client.update(WidgetV2, { ...created, spec: { ...created.spec, size: 7 } });
    assert.equal(updated.spec.size, 7);
    assert.equal((await api.client.get(WidgetV1, 'w2', { namespace: 'default' })).spec.replicas, 7);

    const v1List = await api.client.list(WidgetV1, { namespace: 'default' });
    const v2List = await api.client.list(WidgetV2, { namespace: 'default' });
    const byName = <T extends KubeObject>(items: T[]) => Object.fromEntries(items.map((i) => [i.metadata.name, [i.apiVersion, i.spec]]));
    assert.deepEqual(byName(v1List.items), {
      w1: ['example.com/v1', { replicas: 3, image: 'nginx:1.27' }],
      w2: ['example.com/v1', { replicas: 7, image: 'registry.local:5000/app:v2' }],
    });
    assert.deepEqual(byName(v2List.items), {
      w1: ['example.com/v2', { size: 3, repository: 'nginx', tag: '1.27' }],
      w2: ['example.com/v2', { size: 7, repository: 'registry.local:5000/app', tag: 'v2' }],
    });
  });

  test('a conversion that throws fails the request with the handler’s message', async () => {
    await assert.rejects(api.client.create(WidgetV2, { metadata: { name: 'negative', namespace: 'default' }, spec: { size: -1, repository: 'nginx', tag: '1' } }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 500);
      assert.match(e.message, /spec.size must not be negative, got -1/);
      assert.match(e.message, /converting Widget "default\/negative" from example.com\/v2 to example.com\/v1/);
      return true;
    });
    // Stored as v1 fine, but unreadable as v2: the failure names the object and the direction.
    await api.client.create(WidgetV1, { metadata: { name: 'untagged', namespace: 'default' }, spec: { replicas: 1, image: 'busybox' } });
    await assert.rejects(api.client.get(WidgetV2, 'untagged', { namespace: 'default' }), {
      name: 'ApiError',
      message: /converting Widget "default\/untagged" from example.com\/v1 to example.com\/v2: hub v1 to v2: spec.image "busybox" has no tag/,
    });
    assert.equal((await api.client.get(WidgetV1, 'untagged', { namespace: 'default' })).spec.image, 'busybox');
  });
});
