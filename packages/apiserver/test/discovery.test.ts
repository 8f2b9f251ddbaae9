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

/** A CRD of its own for a test: group `<name>.example.com`, kind Gizmo, one version v1. */
async function gizmoCrd(name: string): Promise<string> {
  const group = `${name}.example.com`;
  const versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }];
  const spec = { group, names: { kind: 'Gizmo', plural: 'gizmos' }, scope: 'Namespaced', versions };
  await api.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gizmos.${group}` }, spec }, 201);
  return group;
}

it('lists groups in kube-aggregator\'s order, resources by name, and pods/log, as a 1.32 cluster does', async () => {
  // Named to sort before every built-in group: priority, not name, puts it last.
  const crdGroup = await gizmoCrd('aaa');
  // kube's /apis order: its own group first, then by groupPriorityMinimum (equal ones by name); CRD groups (1000) last.
  const groups = (await api.ok('GET', '/apis', undefined, 200)).groups.map((g: Json) => g.name as string);
  assert.deepEqual(groups.slice(0, 19), [
    'apiregistration.k8s.io',
    'apps',
    'events.k8s.io',
    'authentication.k8s.io',
    'authorization.k8s.io',
    'autoscaling',
    'batch',
    'certificates.k8s.io',
    'networking.k8s.io',
    'policy',
    'rbac.authorization.k8s.io',
    'storage.k8s.io',
    'admissionregistration.k8s.io',
    'apiextensions.k8s.io',
    'scheduling.k8s.io',
    'coordination.k8s.io',
    'node.k8s.io',
    'discovery.k8s.io',
    'flowcontrol.apiserver.k8s.io',
  ]);
  assert.ok(groups.indexOf(crdGroup) > groups.indexOf('flowcontrol.apiserver.k8s.io'), 'a CRD group comes after the built-ins');
  const core = (await api.ok('GET', '/api/v1', undefined, 200)).resources as Json[];
  const names = core.map((r) => r.name as string);
  assert.deepEqual(names, [...names].sort(), 'sorted by name, subresources included');
  assert.deepEqual(
    core.find((r) => r.name === 'pods/log'),
    { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
  );
});

it('orders CRD groups of equal priority by their APIService names in /apis, by group name in aggregated discovery, as kube does', async () => {
  // b serves v1 and a only v2: kube's APIServices v1.b-tie.example.com < v2.a-tie.example.com put b first in /apis
  // (kube-aggregator's SortedByGroupAndVersion); aggregated discovery's ResourceManager breaks ties by group name.
  const crd = (group: string, version: string): Json => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `knobs.${group}` },
    spec: {
      group,
      names: { kind: 'Knob', plural: 'knobs' },
      scope: 'Namespaced',
      versions: [{ name: version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  await api.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('a-tie.example.com', 'v2'), 201);
  await api.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd('b-tie.example.com', 'v1'), 201);
  const ours = (names: string[]): string[] => names.filter((n) => n.endsWith('-tie.example.com'));
  const groups = (await api.ok('GET', '/apis', undefined, 200)).groups.map((g: Json) => g.name as string);
  assert.deepEqual(ours(groups), ['b-tie.example.com', 'a-tie.example.com']);
  const aggregated = await api.ok('GET', '/apis', undefined, 200, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
  assert.deepEqual(ours(aggregated.items.map((g: Json) => g.metadata.name as string)), ['a-tie.example.com', 'b-tie.example.com']);
});

it('aggregated discovery names a built-in\'s own kind without group and version, as kube converts it', async () => {
  const crdGroup = await gizmoCrd('aggregated');
  const list = await api.ok('GET', '/apis', undefined, 200, { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
  const apps = list.items.find((g: Json) => g.metadata.name === 'apps').versions[0].resources as Json[];
  assert.deepEqual(apps.map((r) => r.resource), ['controllerrevisions', 'daemonsets', 'deployments', 'replicasets', 'statefulsets']);
  const deployments = apps.find((r) => r.resource === 'deployments');
  assert.deepEqual(deployments.responseKind, { group: '', version: '', kind: 'Deployment' });
  assert.deepEqual(
    deployments.subresources.map((s: Json) => [s.subresource, s.responseKind]),
    [
      ['scale', { group: 'autoscaling', version: 'v1', kind: 'Scale' }],
      ['status', { group: '', version: '', kind: 'Deployment' }],
    ],
  );
  // A CRD's discovery names its group and version.
  const gizmos = list.items.find((g: Json) => g.metadata.name === crdGroup).versions[0].resources[0];
  assert.deepEqual(gizmos.responseKind, { group: crdGroup, version: 'v1', kind: 'Gizmo' });
});
