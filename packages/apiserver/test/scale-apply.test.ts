/**
 * Field ownership through the scale subresource, over HTTPS against the
 * embedded server, as kube's ScaleHandler keeps it: an apply to `<resource>/scale`
 * records its manager with `subresource: scale` on the object, owning the
 * object's replicas path (spec.replicas, or a CRD's specReplicasPath); it
 * conflicts with an apply owning the replicas through the object unless
 * forced, and the reverse; updates through the scale take the field without
 * conflicts; managers of the scale that first appear get no `time`, as in kube.
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
const mergeType = { 'Content-Type': 'application/merge-patch+json' };
const managers = (obj: Json): Record<string, Json> => Object.fromEntries(obj.metadata.managedFields.map((e: Json) => [`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`, e]));
const scaleConfig = (name: string, replicas: number): Json => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas } });

describe('apply through the scale subresource of built-ins', () => {
  const base = '/apis/apps/v1/namespaces/default';
  const template = (app: string): Json => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const deployment = (name: string, spec: Json): Json => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec });

  it('conflicts with the apply that owns spec.replicas, takes it when forced, and the owner then conflicts back', async () => {
    const owned = deployment('web', { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: template('web') });
    await api.ok('PATCH', `${base}/deployments/web?fieldManager=owner`, owned, 201, applyType);

    const refused = await api.request('PATCH', `${base}/deployments/web/scale?fieldManager=scaler`, scaleConfig('web', 5), applyType);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.reason, 'Conflict');
    assert.equal(refused.body.message, 'Apply failed with 1 conflict: conflict with "owner": .spec.replicas');
    assert.deepEqual(refused.body.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "owner"', field: '.spec.replicas' }]);
    assert.equal((await api.ok('GET', `${base}/deployments/web`)).spec.replicas, 2, 'a refused apply changes nothing');

    // The same value is no conflict: both own it.
    const shared = await api.ok('PATCH', `${base}/deployments/web/scale?fieldManager=sharer`, scaleConfig('web', 2), 200, applyType);
    assert.equal(shared.kind, 'Scale');
    assert.equal(shared.apiVersion, 'autoscaling/v1');
    const both = managers(await api.ok('GET', `${base}/deployments/web`));
    assert.deepEqual(both['sharer/Apply/scale'].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.ok(both['owner/Apply'].fieldsV1['f:spec']['f:replicas'], 'the owner keeps it');

    const forced = await api.ok('PATCH', `${base}/deployments/web/scale?fieldManager=scaler&force=true`, scaleConfig('web', 5), 200, applyType);
    assert.equal(forced.spec.replicas, 5);
    const after = await api.ok('GET', `${base}/deployments/web`);
    assert.equal(after.spec.replicas, 5);
    const m = managers(after);
    assert.deepEqual(m['scaler/Apply/scale'], {
      manager: 'scaler',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      subresource: 'scale',
    });
    assert.equal(m['owner/Apply'].fieldsV1['f:spec']['f:replicas'], undefined, 'the owner lost the replicas');
    assert.deepEqual(m['owner/Apply'].fieldsV1['f:spec']['f:selector'], {}, 'and kept the rest');
    assert.equal(m['sharer/Apply/scale'], undefined, 'a forced apply takes the field from every other owner');

    const back = await api.request('PATCH', `${base}/deployments/web?fieldManager=owner`, owned, applyType);
    assert.equal(back.status, 409, back.text);
    assert.equal(back.body.message, 'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale": .spec.replicas');

    // The owner leaves replicas to the scaler: no conflict, and the replicas stay.
    const { replicas: _left, ...withoutReplicas } = owned.spec as Json;
    const yielded = await api.ok('PATCH', `${base}/deployments/web?fieldManager=owner`, deployment('web', withoutReplicas), 200, applyType);
    assert.equal(yielded.spec.replicas, 5);
  });

  it('an update through the scale (kubectl scale) takes the replicas from an apply without a conflict', async () => {
    const owned = deployment('upd', { replicas: 1, selector: { matchLabels: { app: 'upd' } }, template: template('upd') });
    await api.ok('PATCH', `${base}/deployments/upd?fieldManager=owner`, owned, 201, applyType);
    await api.ok('PATCH', `${base}/deployments/upd/scale?fieldManager=hpa`, { spec: { replicas: 4 } }, 200, mergeType);
    const m = managers(await api.ok('GET', `${base}/deployments/upd`));
    assert.deepEqual(m['hpa/Update/scale'].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(m['hpa/Update/scale'].apiVersion, 'apps/v1');
    assert.equal(m['owner/Apply'].fieldsV1['f:spec']['f:replicas'], undefined);
    // An apply of a Scale now conflicts with the update's manager, named as kube names it: the
    // Scale's managedFields carry autoscaling/v1, so its identifier does too.
    const r = await api.request('PATCH', `${base}/deployments/upd/scale?fieldManager=scaler`, scaleConfig('upd', 6), applyType);
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.message, 'Apply failed with 1 conflict: conflict with "hpa" with subresource "scale" using autoscaling/v1: .spec.replicas');
  });

  it('works on replica sets and stateful sets, and dryRun=All stores nothing', async () => {
    const selector = { matchLabels: { app: 'rs' } };
    await api.ok('POST', `${base}/replicasets?fieldManager=maker`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { replicas: 1, selector, template: template('rs') } }, 201);
    await api.ok('POST', `${base}/statefulsets?fieldManager=maker`, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'sts' }, spec: { replicas: 1, serviceName: 'sts', selector: { matchLabels: { app: 'sts' } }, template: template('sts') } }, 201);
    for (const [resource, name] of [['replicasets', 'rs'], ['statefulsets', 'sts']] as const) {
      const dry = await api.ok('PATCH', `${base}/${resource}/${name}/scale?fieldManager=scaler&force=true&dryRun=All`, scaleConfig(name, 3), 200, applyType);
      assert.equal(dry.spec.replicas, 3);
      assert.equal((await api.ok('GET', `${base}/${resource}/${name}`)).spec.replicas, 1, `${resource}: a dry run stores nothing`);
      // The creator's update owns the replicas: an apply changing them conflicts with it.
      const r = await api.request('PATCH', `${base}/${resource}/${name}/scale?fieldManager=scaler`, scaleConfig(name, 3), applyType);
      assert.equal(r.status, 409, r.text);
      assert.equal(r.body.message, 'Apply failed with 1 conflict: conflict with "maker" using autoscaling/v1: .spec.replicas');
      await api.ok('PATCH', `${base}/${resource}/${name}/scale?fieldManager=scaler&force=true`, scaleConfig(name, 3), 200, applyType);
      const obj = await api.ok('GET', `${base}/${resource}/${name}`);
      assert.equal(obj.spec.replicas, 3);
      assert.deepEqual(managers(obj)['scaler/Apply/scale'].fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    }
  });

  it('refuses a configuration of another kind, another name, or a bad replicas value', async () => {
    await api.ok('POST', `${base}/deployments?fieldManager=maker`, deployment('bad', { replicas: 1, selector: { matchLabels: { app: 'bad' } }, template: template('bad') }), 201);
    const kind = await api.request('PATCH', `${base}/deployments/bad/scale?fieldManager=scaler`, deployment('bad', { replicas: 2 }), applyType);
    assert.equal(kind.status, 400, kind.text);
    assert.equal(kind.body.message, 'invalid object type: apps/v1, Kind=Deployment');
    const name = await api.request('PATCH', `${base}/deployments/bad/scale?fieldManager=scaler&force=true`, scaleConfig('other', 2), applyType);
    assert.equal(name.status, 400, name.text);
    assert.equal(name.body.message, 'the name of the object (other) does not match the name on the URL (bad)');
    const typed = await api.request('PATCH', `${base}/deployments/bad/scale?fieldManager=scaler&force=true`, { ...scaleConfig('bad', 2), spec: { replicas: 'two' } }, applyType);
    assert.equal(typed.status, 400, typed.text);
    assert.match(typed.body.message, /^failed to create typed patch object \(\/bad; autoscaling\/v1, Kind=Scale\): \.spec\.replicas: expected numeric \(int or float\), got string/);
    const negative = await api.request('PATCH', `${base}/deployments/bad/scale?fieldManager=scaler&force=true`, scaleConfig('bad', -1), applyType);
    assert.equal(negative.status, 422, negative.text);
    assert.equal(negative.body.message, 'Scale.autoscaling "bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    const patched = await api.request('PATCH', `${base}/deployments/bad/scale`, { spec: { replicas: -2 } }, mergeType);
    assert.equal(patched.status, 422, patched.text);
    assert.equal(patched.body.details.kind, 'Scale');
    const missing = await api.request('PATCH', `${base}/deployments/none/scale?fieldManager=scaler`, scaleConfig('none', 2), applyType);
    assert.equal(missing.status, 404, 'an apply to a scale never creates');
    assert.equal((await api.ok('GET', `${base}/deployments/bad`)).spec.replicas, 1);
  });
});

describe('apply through the scale subresource of a custom resource', () => {
  const group = 'scale.example.com';
  const base = `/apis/${group}/v1/namespaces/default/dbs`;
  before(async () => {
    const schema = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { members: { type: 'integer' }, engine: { type: 'string' } } },
        status: { type: 'object', properties: { members: { type: 'integer' } } },
      },
    };
    await api.createCrd(group, 'Db', schema, { status: {}, scale: { specReplicasPath: '.spec.members', statusReplicasPath: '.status.members' } });
  });

  it('maps the Scale’s spec.replicas onto the CRD’s specReplicasPath, with conflicts both ways', async () => {
    const db = { apiVersion: `${group}/v1`, kind: 'Db', metadata: { name: 'main' }, spec: { members: 3, engine: 'pg' } };
    // A new CRD's resource may take a moment to be served.
    await api.ok('PATCH', `${base}/main?fieldManager=owner`, db, 201, applyType);
    const r = await api.request('PATCH', `${base}/main/scale?fieldManager=scaler`, scaleConfig('main', 5), applyType);
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.message, 'Apply failed with 1 conflict: conflict with "owner": .spec.replicas');
    const scaled = await api.ok('PATCH', `${base}/main/scale?fieldManager=scaler&force=true`, scaleConfig('main', 5), 200, applyType);
    assert.equal(scaled.spec.replicas, 5);
    const obj = await api.ok('GET', `${base}/main`);
    assert.equal(obj.spec.members, 5);
    const m = managers(obj);
    assert.deepEqual(m['scaler/Apply/scale'].fieldsV1, { 'f:spec': { 'f:members': {} } });
    assert.equal(m['scaler/Apply/scale'].apiVersion, `${group}/v1`);
    assert.deepEqual(m['owner/Apply'].fieldsV1, { 'f:spec': { 'f:engine': {} } });
    const back = await api.request('PATCH', `${base}/main?fieldManager=owner`, db, applyType);
    assert.equal(back.status, 409, back.text);
    assert.equal(back.body.message, 'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale": .spec.members');
  });

  it('answers 415 to a strategic merge patch of a custom resource’s scale, listing apply', async () => {
    const r = await api.request('PATCH', `${base}/main/scale?fieldManager=x`, { spec: { replicas: 1 } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.equal(r.status, 415, r.text);
    assert.match(r.body.message, /application\/apply-patch\+yaml/);
    assert.doesNotMatch(r.body.message, /strategic/);
  });
});
