/**
 * Discovery's storageVersionHash (issue 17): kube's value for every stored
 * resource, none for subresources and resources that are never stored, and a
 * CRD's from its storage version, so clients that compare it see a change.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const hashes = async (path: string): Promise<Map<string, string | undefined>> => {
  const list = await api.ok('GET', path, undefined, 200);
  return new Map(list.resources.map((r: Json) => [r.name, r.storageVersionHash]));
};

it('built-in resources carry the hashes a 1.32 cluster sends, subresources and reviews none', async () => {
  const core = await hashes('/api/v1');
  // Values as kube-apiserver 1.32 serves them (base64 of sha256("<group>/<version>/<kind>")[:8]).
  assert.equal(core.get('pods'), 'xPOwRZ+Yhw8=');
  assert.equal(core.get('configmaps'), 'qFsyl6wFWjQ=');
  assert.equal(core.get('namespaces'), 'Q3oi5N2YM8M=');
  assert.equal(core.get('events'), 'r2yiGXH7wu8=');
  assert.equal(core.get('pods/status'), undefined);
  assert.equal((await hashes('/apis/apps/v1')).get('deployments'), '8aSe+NMegvE=');
  // events.k8s.io Events share the core Events' storage, and so their hash.
  assert.equal((await hashes('/apis/events.k8s.io/v1')).get('events'), 'r2yiGXH7wu8=');
  assert.equal((await hashes('/apis/authorization.k8s.io/v1')).get('selfsubjectaccessreviews'), undefined);
});

it('a CRD\'s versions all carry the hash of its storage version', async () => {
  const version = (name: string, storage: boolean): Json => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  });
  await api.ok(
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions: [version('v1', false), version('v2', true)] },
    },
    201,
  );
  const expected = 'zRcoV5EeA3s='; // sha256("example.com/v2/Widget")[:8], by the formula the built-in values above confirm
  assert.equal((await hashes('/apis/example.com/v1')).get('widgets'), expected);
  assert.equal((await hashes('/apis/example.com/v2')).get('widgets'), expected);
});
