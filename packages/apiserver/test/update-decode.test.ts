/**
 * An update or patch decodes only the top-level fields that differ from the
 * stored object's (registry/codec.ts decodeChangedFields), and a status write
 * keeps the stored object's other values as they are, shared with it
 * (resource-store.ts narrowToSubresource). These rows check that no change
 * slips past decoding that way, as kube decodes every body into its Go type
 * (k8s.io/apiserver handlers/update.go, patch.go: the whole object, each
 * time): a nested change, a null, a quantity's other spelling, an unknown
 * field, a change of type only; and that the values a status write shares
 * with the stored object are never changed under it by a later write (a
 * watch replaying history still sends what was stored then).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;
const ns = 'decode';
const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
const merge = { 'Content-Type': 'application/merge-patch+json' };

before(async () => {
  api = await TestApi.start();
  await api.createNamespace(ns);
});
after(async () => {
  await api?.stop();
});

function deployment(name: string, cpu: unknown = '500m'): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'c', image: 'nginx:1', resources: { requests: { cpu } } }] },
      },
    },
  };
}

const container = (d: Json): Json => d.spec.template.spec.containers[0];

describe('an update decodes what changed, however deep', () => {
  it('a quantity spelled otherwise in a PUT is stored canonical ("1000m" is "1"), as is one sent as a number', async () => {
    const created = await api.ok('POST', deployments, deployment('spelling'), 201);
    const body = structuredClone(created);
    container(body).resources.requests.cpu = '1000m';
    const put = await api.ok('PUT', `${deployments}/spelling`, body, 200);
    assert.equal(container(put).resources.requests.cpu, '1');
    // Only the type differs from what is stored ("1"): decoded, and stored as the string.
    const again = structuredClone(put);
    container(again).resources.requests.cpu = 1;
    const put2 = await api.ok('PUT', `${deployments}/spelling`, again, 200);
    assert.equal(container(put2).resources.requests.cpu, '1');
    const got = await api.ok('GET', `${deployments}/spelling`);
    assert.equal(container(got).resources.requests.cpu, '1');
  });

  it('a quantity spelled otherwise in a merge patch is stored canonical', async () => {
    await api.ok('POST', deployments, deployment('patched-spelling'), 201);
    const patch = { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1', resources: { requests: { cpu: '2000m', memory: '1024Mi' } } }] } } } };
    const patched = await api.ok('PATCH', `${deployments}/patched-spelling`, patch, 200, merge);
    assert.deepEqual(container(patched).resources.requests, { cpu: '2', memory: '1Gi' });
  });

  it('an unknown field deep in an otherwise unchanged spec is pruned with a warning, or refused when Strict', async () => {
    const created = await api.ok('POST', deployments, deployment('unknown'), 201);
    const body = structuredClone(created);
    container(body).bogus = 'x';
    const strict = await api.request('PUT', `${deployments}/unknown?fieldValidation=Strict`, body);
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "spec\.template\.spec\.containers\[0\]\.bogus"/);
    const warned = await api.request('PUT', `${deployments}/unknown?fieldValidation=Warn`, body);
    assert.equal(warned.status, 200);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.template.spec.containers[0].bogus\\""');
    assert.equal(Object.hasOwn(container(warned.body), 'bogus'), false);
    // Sent again on the stored object's resourceVersion (the rest equal to what is stored): still pruned.
    const again = structuredClone(warned.body);
    container(again).bogus = 'x';
    const ignored = await api.ok('PUT', `${deployments}/unknown?fieldValidation=Ignore`, again, 200);
    assert.equal(Object.hasOwn(container(ignored), 'bogus'), false);
    const got = await api.ok('GET', `${deployments}/unknown`);
    assert.equal(Object.hasOwn(container(got), 'bogus'), false);
    assert.equal(got.metadata.resourceVersion, warned.body.metadata.resourceVersion, 'an update that changes nothing once decoded stores nothing');
  });

  it('a value of the wrong type deep in an otherwise unchanged spec is refused', async () => {
    const created = await api.ok('POST', deployments, deployment('typed'), 201);
    const body = structuredClone(created);
    body.spec.template.spec.terminationGracePeriodSeconds = '30';
    const put = await api.request('PUT', `${deployments}/typed`, body);
    assert.equal(put.status, 400);
    assert.match(put.body.message, /cannot unmarshal string into Go struct field PodSpec\.spec\.template\.spec\.terminationGracePeriodSeconds of type int64/);
    const patch = await api.request('PATCH', `${deployments}/typed`, { spec: { replicas: '3' } }, merge);
    assert.equal(patch.status, 400);
  });

  it('a null, in a field that changed or one equal but for it, decodes as kube decodes it (the field left out)', async () => {
    const created = await api.ok('POST', deployments, { ...deployment('nulls'), spec: { ...deployment('nulls').spec, minReadySeconds: 5 } }, 201);
    assert.equal(created.spec.minReadySeconds, 5);
    const body = structuredClone(created);
    body.spec.minReadySeconds = null;
    const put = await api.ok('PUT', `${deployments}/nulls`, body, 200);
    assert.equal(Object.hasOwn(put.spec, 'minReadySeconds'), false);
    // The metadata as stored, plus a null annotation: decoded, not kept as sent.
    const withNull = structuredClone(put);
    withNull.metadata.annotations = { keep: 'yes', gone: null };
    const put2 = await api.ok('PUT', `${deployments}/nulls`, withNull, 200);
    assert.equal(put2.metadata.annotations.keep, 'yes');
    // Go decodes a null map value into the string's zero value.
    assert.deepEqual(put2.metadata.annotations, { keep: 'yes', gone: '' });
  });
});

describe('a status write shares the stored values; nothing changes them afterwards', () => {
  it('a watch replaying history sends each version as it was stored, after later writes to spec, metadata and status', async () => {
    const created = await api.ok('POST', deployments, deployment('shared'), 201);
    const start = created.metadata.resourceVersion;
    const statusBody = { ...structuredClone(created), status: { replicas: 1, observedGeneration: 1 } };
    const afterStatus = await api.ok('PUT', `${deployments}/shared/status`, statusBody, 200);
    const snapshot = JSON.stringify(afterStatus);
    // Later writes of every kind: the main resource (spec and labels), a patch, another status write.
    const main = structuredClone(afterStatus);
    container(main).image = 'nginx:2';
    main.metadata.labels = { changed: 'yes' };
    main.spec.template.metadata.labels.extra = 'x';
    main.spec.selector.matchLabels = { app: 'shared' };
    await api.ok('PUT', `${deployments}/shared`, main, 200);
    await api.ok('PATCH', `${deployments}/shared`, { metadata: { annotations: { a: 'b' } }, spec: { replicas: 3 } }, 200, merge);
    await api.ok('PATCH', `${deployments}/shared/status`, { status: { replicas: 2, conditions: [{ type: 'Available', status: 'True' }] } }, 200, merge);
    const w = await api.watch(`${deployments}?watch=true&resourceVersion=${start}&fieldSelector=metadata.name%3Dshared`);
    try {
      const [statusEvent] = await w.take(1);
      assert.equal(statusEvent!.type, 'MODIFIED');
      assert.equal(JSON.stringify(statusEvent!.object), snapshot);
      assert.equal(container(statusEvent!.object).image, 'nginx:1');
    } finally {
      w.close();
    }
  });
});
