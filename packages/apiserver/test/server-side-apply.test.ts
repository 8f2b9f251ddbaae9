/**
 * Server-side apply and managedFields over HTTPS against the embedded server:
 * kube's texts for a missing fieldManager and for conflicts, create on absent,
 * removal of dropped fields, every list type on a CRD, the status subresource,
 * and managedFields recorded on ordinary writes under the derived manager.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;
before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const applyType = { 'Content-Type': 'application/apply-patch+yaml' };
const cm = (name: string, data: Record<string, string>): Json => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const cmPath = (name: string, query = 'fieldManager=alice'): string => `/api/v1/namespaces/default/configmaps/${name}?${query}`;
const managers = (obj: Json): Record<string, Json> => Object.fromEntries(obj.metadata.managedFields.map((e: Json) => [`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`, e]));

describe('the apply request', () => {
  it('requires a fieldManager, in kube’s words', async () => {
    const r = await api.request('PATCH', cmPath('nomanager', ''), cm('nomanager', {}), applyType);
    assert.equal(r.status, 422);
    assert.equal(r.body.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    const forced = await api.request('PATCH', cmPath('nomanager', 'force=true'), {}, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(forced.status, 422);
    assert.equal(forced.body.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('creates when absent (201), from YAML, and removes the fields a manager dropped', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels:\n    team: a\ndata:\n  one: "1"\n  two: "2"\n';
    const created = await api.ok('PATCH', cmPath('applied'), yaml, 201, applyType);
    assert.deepEqual(created.data, { one: '1', two: '2' });
    assert.deepEqual(created.metadata.managedFields, [
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'v1',
        time: created.metadata.managedFields[0].time,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:one': {}, 'f:two': {} }, 'f:metadata': { 'f:labels': { 'f:team': {} } } },
      },
    ]);
    assert.match(created.metadata.managedFields[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const again = await api.ok('PATCH', cmPath('applied'), cm('applied', { one: '1' }), 200, applyType);
    assert.deepEqual(again.data, { one: '1' });
    assert.equal(again.metadata.labels, undefined);
    // Re-applying the same configuration changes nothing: same resourceVersion.
    const same = await api.ok('PATCH', cmPath('applied'), cm('applied', { one: '1' }), 200, applyType);
    assert.equal(same.metadata.resourceVersion, again.metadata.resourceVersion);
  });

  it('keeps a dropped field another manager also applied, and refuses changing it (409) unless forced', async () => {
    await api.ok('PATCH', cmPath('shared'), cm('shared', { a: '1', b: '1' }), 201, applyType);
    await api.ok('PATCH', cmPath('shared', 'fieldManager=bob'), cm('shared', { b: '1' }), 200, applyType);
    const kept = await api.ok('PATCH', cmPath('shared'), cm('shared', { a: '1' }), 200, applyType);
    assert.deepEqual(kept.data, { a: '1', b: '1' });
    const r = await api.request('PATCH', cmPath('shared'), cm('shared', { a: '2', b: '2' }), applyType);
    assert.equal(r.status, 409);
    assert.equal(r.body.reason, 'Conflict');
    assert.equal(r.body.message, 'Apply failed with 1 conflict: conflict with "bob": .data.b');
    assert.deepEqual(r.body.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "bob"', field: '.data.b' }] });
    const forced = await api.ok('PATCH', cmPath('shared', 'fieldManager=alice&force=true'), cm('shared', { a: '2', b: '2' }), 200, applyType);
    assert.deepEqual(forced.data, { a: '2', b: '2' });
    // bob lost his only field, so his entry is gone.
    assert.deepEqual(Object.keys(managers(forced)), ['alice/Apply']);
  });

  it('with dryRun=All answers the result and stores nothing', async () => {
    const dry = await api.ok('PATCH', cmPath('dry', 'fieldManager=alice&dryRun=All'), cm('dry', { a: '1' }), 201, applyType);
    assert.deepEqual(dry.data, { a: '1' });
    assert.equal((await api.request('GET', cmPath('dry', ''))).status, 404);
    const stored = await api.ok('PATCH', cmPath('dry'), cm('dry', { a: '1' }), 201, applyType);
    const changed = await api.ok('PATCH', cmPath('dry', 'fieldManager=alice&dryRun=All'), cm('dry', { a: '2' }), 200, applyType);
    assert.deepEqual(changed.data, { a: '2' });
    const after = await api.ok('GET', cmPath('dry', ''));
    assert.deepEqual(after.data, { a: '1' });
    assert.equal(after.metadata.resourceVersion, stored.metadata.resourceVersion);
  });

  it('refuses undeclared fields and another kind', async () => {
    const r = await api.request('PATCH', cmPath('bad'), { ...cm('bad', {}), spec: {} }, applyType);
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'failed to create typed patch object (/bad; /v1, Kind=ConfigMap): .spec: field not declared in schema');
    const kind = await api.request('PATCH', cmPath('bad'), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' } }, applyType);
    assert.equal(kind.status, 400);
    assert.equal(kind.body.message, 'invalid object type: /v1, Kind=Secret');
    await api.ok('PATCH', cmPath('bad'), cm('bad', {}), 201, applyType);
    const moved = await api.request('PATCH', cmPath('bad'), { ...cm('bad', {}), metadata: { name: 'bad', namespace: 'elsewhere' } }, applyType);
    assert.equal(moved.status, 400);
    assert.equal(moved.body.message, 'the namespace of the provided object does not match the namespace sent on the request');
    const named = await api.request('PATCH', cmPath('bad'), cm('other', {}), applyType);
    assert.equal(named.status, 400);
    assert.equal(named.body.message, 'the name of the object (other) does not match the name on the URL (bad)');
  });
});

describe('managedFields on every write', () => {
  it('records creates, updates and patches under the fieldManager or the User-Agent’s first word', async () => {
    const created = await api.ok('POST', '/api/v1/namespaces/default/configmaps', cm('tracked', { a: '1' }), 201, { 'User-Agent': 'kubectl-create/v1.32.0 (linux/amd64) kubernetes/abc' });
    assert.deepEqual(managers(created)['kubectl-create/Update'].fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
    assert.equal(managers(created)['kubectl-create/Update'].apiVersion, 'v1');
    const patched = await api.ok('PATCH', '/api/v1/namespaces/default/configmaps/tracked', { data: { b: '2' } }, 200, {
      'Content-Type': 'application/merge-patch+json',
      'User-Agent': 'kubectl-edit/v1.32.0',
    });
    assert.deepEqual(managers(patched)['kubectl-edit/Update'].fieldsV1, { 'f:data': { 'f:b': {} } });
    // Changing a field moves it from its previous manager.
    const labelled = await api.ok('PATCH', '/api/v1/namespaces/default/configmaps/tracked?fieldManager=labeler', { data: { a: 'x' }, metadata: { labels: { l: 'v' } } }, 200, {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.deepEqual(managers(labelled)['labeler/Update'].fieldsV1, { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } });
    // kubectl-create keeps the map it created, not the key labeler changed.
    assert.deepEqual(managers(labelled)['kubectl-create/Update'].fieldsV1, { 'f:data': {} });
    // Sending [{}] resets them; the object stays untracked until an apply.
    const reset = await api.ok('PATCH', '/api/v1/namespaces/default/configmaps/tracked', { metadata: { managedFields: [{}] } }, 200, {
      'Content-Type': 'application/merge-patch+json',
    });
    assert.equal(reset.metadata.managedFields, undefined);
    const applied = await api.ok('PATCH', cmPath('tracked'), cm('tracked', { c: '3' }), 200, applyType);
    assert.deepEqual(Object.keys(managers(applied)).sort(), ['alice/Apply', 'before-first-apply/Update']);
    assert.deepEqual(applied.data, { a: 'x', b: '2', c: '3' });
  });
});

describe('managedFields through subresources', () => {
  it('records status updates and scale changes under their subresource', async () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'sub' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'sub' } }, template: { metadata: { labels: { app: 'sub' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const base = '/apis/apps/v1/namespaces/default/deployments';
    const created = await api.ok('POST', `${base}?fieldManager=creator`, dep, 201);
    const status = await api.ok('PUT', `${base}/sub/status?fieldManager=controller`, { ...created, status: { observedGeneration: 1, replicas: 1 } }, 200);
    assert.deepEqual(managers(status)['controller/Update/status'].fieldsV1, { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } });
    const scaled = await api.ok('PATCH', `${base}/sub/scale?fieldManager=autoscaler`, { spec: { replicas: 3 } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(scaled.spec.replicas, 3);
    const after = await api.ok('GET', `${base}/sub`);
    assert.deepEqual(managers(after)['autoscaler/Update/scale'].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    // creator no longer owns replicas; its other fields stay.
    assert.equal(managers(after)['creator/Update'].fieldsV1['f:spec']['f:replicas'], undefined);
    assert.deepEqual(managers(after)['creator/Update'].fieldsV1['f:spec']['f:selector'], {});
  });
});

describe('custom resources', () => {
  const group = 'ssa.example.com';
  const base = `/apis/${group}/v1/namespaces/default/widgets`;
  before(async () => {
    await api.createCrd(group, 'Widget', {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            atomic: { type: 'array', items: { type: 'string' } },
            set: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
            byName: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' } } },
            },
            byTwo: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['port', 'protocol'],
              items: { type: 'object', required: ['port', 'protocol'], properties: { port: { type: 'integer' }, protocol: { type: 'string' }, note: { type: 'string' } } },
            },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
            whole: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
          },
        },
        status: { type: 'object', properties: { phase: { type: 'string' } } },
      },
    }, { status: {} });
  });

  const widget = (spec: Json, extra: Json = {}): Json => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec, ...extra });
  const apply = (body: Json, query: string): Promise<{ status: number; body: Json }> => api.request('PATCH', `${base}/w?${query}`, body, applyType);

  it('merges and owns every list and map type as its schema says', async () => {
    const first = await apply(
      widget({ atomic: ['a', 'b'], set: ['x'], byName: [{ name: 'n1', value: '1' }], byTwo: [{ port: 80, protocol: 'TCP', note: 'web' }], labels: { k1: 'v' }, whole: { a: '1' } }),
      'fieldManager=one',
    );
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(first.body.metadata.managedFields[0].fieldsV1, {
      'f:spec': {
        'f:atomic': {},
        'f:byName': { 'k:{"name":"n1"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
        'f:byTwo': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:note': {}, 'f:port': {}, 'f:protocol': {} } },
        'f:labels': { 'f:k1': {} },
        'f:set': { 'v:"x"': {} },
        'f:whole': {},
      },
    });
    const second = await apply(
      widget({ atomic: ['c'], set: ['y'], byName: [{ name: 'n2', value: '2' }], byTwo: [{ port: 80, protocol: 'UDP' }], labels: { k2: 'v' }, whole: { b: '2' } }),
      'fieldManager=two',
    );
    assert.equal(second.status, 409);
    // Only the atomic list and the atomic map clash: the granular ones merge.
    assert.equal(second.body.message, 'Apply failed with 2 conflicts: conflicts with "one":\n- .spec.atomic\n- .spec.whole');
    const merged = await apply(widget({ set: ['y'], byName: [{ name: 'n2', value: '2' }], byTwo: [{ port: 80, protocol: 'UDP' }], labels: { k2: 'v' } }), 'fieldManager=two');
    assert.equal(merged.status, 200, JSON.stringify(merged.body));
    assert.deepEqual(merged.body.spec, {
      atomic: ['a', 'b'],
      set: ['x', 'y'],
      byName: [{ name: 'n1', value: '1' }, { name: 'n2', value: '2' }],
      byTwo: [{ port: 80, protocol: 'TCP', note: 'web' }, { port: 80, protocol: 'UDP' }],
      labels: { k1: 'v', k2: 'v' },
      whole: { a: '1' },
    });
  });

  it('reports conflicts on a list item and on a map key', async () => {
    const r = await apply(widget({ byName: [{ name: 'n1', value: 'changed' }], byTwo: [{ port: 80, protocol: 'TCP', note: 'x' }], labels: { k1: 'changed' } }), 'fieldManager=two');
    assert.equal(r.status, 409);
    assert.equal(
      r.body.message,
      'Apply failed with 3 conflicts: conflicts with "one":\n- .spec.byName[name="n1"].value\n- .spec.byTwo[port=80,protocol="TCP"].note\n- .spec.labels.k1',
    );
  });

  it('applies through the status subresource, owning only status', async () => {
    const r = await api.request('PATCH', `${base}/w/status?fieldManager=statusor`, widget({ atomic: ['ignored'] }, { status: { phase: 'Ready' } }), applyType);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status.phase, 'Ready');
    assert.deepEqual(r.body.spec.atomic, ['a', 'b']);
    const entry = managers(r.body)['statusor/Apply/status'];
    assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:phase': {} } });
    // The main resource does not own status: applying it there changes nothing.
    const main = await apply(widget({ set: ['x'] }, { status: { phase: 'Other' } }), 'fieldManager=one');
    assert.equal(main.body.status.phase, 'Ready');
    assert.equal(JSON.stringify(managers(main.body)['one/Apply'].fieldsV1).includes('status'), false);
  });

  it('leaves a list-map item without its key to validation (422), on create and on apply', async () => {
    const created = await api.request('POST', base, { ...widget({ byName: [{ value: 'keyless' }] }), metadata: { name: 'keyless' } });
    assert.equal(created.status, 422, JSON.stringify(created.body));
    const applied = await apply(widget({ byName: [{ value: 'keyless' }] }), 'fieldManager=one');
    assert.equal(applied.status, 400);
    assert.match(applied.body.message, /^failed to create typed patch object \(\/w; ssa\.example\.com\/v1, Kind=Widget\): \.spec\.byName: element 0: associative list with keys has an element that omits all key fields \["name"\]/);
  });

  it('answers 404 for a status apply to a missing object', async () => {
    const r = await api.request('PATCH', `${base}/missing/status?fieldManager=x`, { ...widget({}), metadata: { name: 'missing' } }, applyType);
    assert.equal(r.status, 404);
  });
});

describe('an apply is defaulted and validated as any write', () => {
  const group = 'rules.example.com';
  const base = `/apis/${group}/v1/namespaces/default/pools`;
  before(async () => {
    await api.createCrd(group, 'Pool', {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-validations': [{ rule: 'self.size <= self.maxSize', message: 'size must not exceed maxSize' }],
          properties: {
            mode: { type: 'string', default: 'fast' },
            size: { type: 'integer' },
            maxSize: { type: 'integer', maximum: 10 },
            zone: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'zone is immutable' }] },
          },
        },
      },
    });
  });

  const pool = (spec: Json): Json => ({ apiVersion: `${group}/v1`, kind: 'Pool', metadata: { name: 'p' }, spec });
  const apply = (spec: Json, query: string): Promise<{ status: number; body: Json }> => api.request('PATCH', `${base}/p?${query}`, pool(spec), applyType);

  it('defaults what the configuration leaves out, without making the applier its owner', async () => {
    const created = await apply({ size: 1, maxSize: 3, zone: 'a' }, 'fieldManager=one');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.spec.mode, 'fast');
    assert.deepEqual(managers(created.body)['one/Apply'].fieldsV1, { 'f:spec': { 'f:maxSize': {}, 'f:size': {}, 'f:zone': {} } });
    assert.equal((await api.ok('GET', `${base}/p`)).spec.mode, 'fast');
  });

  it('refuses a merged object that breaks the schema or a CEL rule (422), transition rules included', async () => {
    const schema = await apply({ size: 1, maxSize: 30, zone: 'a' }, 'fieldManager=one');
    assert.equal(schema.status, 422, JSON.stringify(schema.body));
    assert.match(schema.body.message, /spec\.maxSize: Invalid value: 30: spec\.maxSize in body should be less than or equal to 10/);
    // The rules judge the merged object: another manager's size against one's maxSize.
    const rule = await apply({ size: 5 }, 'fieldManager=two&force=true');
    assert.equal(rule.status, 422, JSON.stringify(rule.body));
    assert.match(rule.body.message, /size must not exceed maxSize/);
    const transition = await apply({ zone: 'b' }, 'fieldManager=two&force=true');
    assert.equal(transition.status, 422, JSON.stringify(transition.body));
    assert.match(transition.body.message, /zone is immutable/);
    const after = await api.ok('GET', `${base}/p`);
    assert.deepEqual(after.spec, { mode: 'fast', size: 1, maxSize: 3, zone: 'a' });
    assert.deepEqual(Object.keys(managers(after)), ['one/Apply']);
  });

  it('refuses a value of the wrong type in kube’s words (400), before any merge', async () => {
    const r = await apply({ size: 'big' }, 'fieldManager=one');
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.message, 'failed to create typed patch object (/p; rules.example.com/v1, Kind=Pool): .spec.size: expected numeric (int or float), got string');
  });
});
