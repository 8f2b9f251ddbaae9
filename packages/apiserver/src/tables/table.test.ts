import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError, type KubeObject } from '@operant/apimachinery';
import { columnsFor, parseIncludeObject, toTable } from './table.js';

const now = new Date('2024-05-01T12:00:00Z');
const pods = { group: '', resource: 'pods' };

const podA: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'a',
    namespace: 'default',
    uid: 'uid-a',
    resourceVersion: '41',
    creationTimestamp: '2024-05-01T11:55:00Z',
    labels: { app: 'web' },
    managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1' }],
  },
  spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'node-1' },
  status: {
    phase: 'Running',
    podIP: '10.0.0.1',
    containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: { running: {} } }],
  },
};
const podB: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'b', namespace: 'default', uid: 'uid-b', resourceVersion: '42', creationTimestamp: '2024-05-01T11:00:00Z' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
  status: { phase: 'Succeeded', containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
};

describe('toTable', () => {
  it('builds the meta.k8s.io/v1 Table shape kube-apiserver sends', () => {
    const table = toTable(pods, [podA, podB], { now, listMeta: { resourceVersion: '50', continue: 'tok', remainingItemCount: 3 } });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(Object.keys(table), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    assert.deepEqual(table.metadata, { resourceVersion: '50', continue: 'tok', remainingItemCount: 3 });
    assert.deepEqual(table.columnDefinitions[0], {
      name: 'Name',
      type: 'string',
      format: 'name',
      description:
        'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
      priority: 0,
    });
    for (const c of table.columnDefinitions) assert.deepEqual(Object.keys(c), ['name', 'type', 'format', 'description', 'priority']);
    assert.equal(table.columnDefinitions.length, 9);
    assert.equal(table.rows.length, 2);
    assert.deepEqual(table.rows[0].cells, ['a', '1/1', 'Running', '0', '5m', '10.0.0.1', 'node-1', '<none>', '<none>']);
    assert.deepEqual(Object.keys(table.rows[0]), ['cells', 'object']);
    assert.deepEqual(Object.keys(table.rows[1]), ['cells', 'conditions', 'object']);
    assert.deepEqual(table.rows[1].conditions, [
      { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
    ]);
  });

  it('row.object is PartialObjectMetadata by default, with the full metadata', () => {
    const table = toTable(pods, [podA], { now });
    assert.deepEqual(table.rows[0].object, {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: podA.metadata,
    });
    // JSON round trip is what goes on the wire.
    const wire = JSON.parse(JSON.stringify(table)) as { rows: Array<{ object: { metadata: { labels: unknown } } }> };
    assert.deepEqual(wire.rows[0].object.metadata.labels, { app: 'web' });
  });

  it('includeObject=Object carries the whole object, None carries null', () => {
    assert.equal(toTable(pods, [podA], { now, includeObject: 'Object' }).rows[0].object, podA);
    const none = toTable(pods, [podA], { now, includeObject: 'None' });
    assert.equal(none.rows[0].object, null);
    assert.equal(JSON.stringify(none.rows[0]).includes('"object":null'), true);
  });

  it('a single object (get) takes its own resourceVersion; an empty list has empty metadata and rows', () => {
    assert.deepEqual(toTable(pods, [podA], { now }).metadata, { resourceVersion: '41' });
    const empty = toTable(pods, [], { now, listMeta: { resourceVersion: '7' } });
    assert.deepEqual(empty.metadata, { resourceVersion: '7' });
    assert.deepEqual(empty.rows, []);
    assert.deepEqual(toTable(pods, [], { now }).metadata, {});
    assert.deepEqual(toTable(pods, [], { now, listMeta: { continue: '' } }).metadata, {});
  });

  it('noHeaders drops the column definitions; v1beta1 names itself and its partial objects so', () => {
    assert.deepEqual(toTable(pods, [podA], { now, noHeaders: true }).columnDefinitions, []);
    const beta = toTable(pods, [podA], { now, version: 'v1beta1' });
    assert.equal(beta.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal((beta.rows[0].object as { apiVersion: string }).apiVersion, 'meta.k8s.io/v1beta1');
  });

  it('uses the default Name / Created At columns for resources without a printer', () => {
    const crd = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };
    const table = toTable(crd, [{ metadata: { name: 'widgets.example.com', creationTimestamp: '2024-05-01T10:00:00Z' } }], { now });
    assert.deepEqual(
      table.columnDefinitions.map((c) => [c.name, c.type, c.format]),
      [
        ['Name', 'string', 'name'],
        ['Created At', 'date', ''],
      ],
    );
    assert.deepEqual(table.rows[0].cells, ['widgets.example.com', '2024-05-01T10:00:00Z']);
  });

  it('uses the current time when none is given', () => {
    const fresh: KubeObject = { metadata: { name: 'x', creationTimestamp: new Date().toISOString() } };
    const cells = toTable({ group: '', resource: 'configmaps' }, [fresh]).rows[0].cells;
    assert.match(String(cells[2]), /^[0-9]s$/);
  });
});

describe('columnsFor', () => {
  it('returns every column, wide ones included, as copies', () => {
    const cols = columnsFor({ group: 'apps', resource: 'deployments' });
    assert.deepEqual(
      cols.map((c) => c.name),
      ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector'],
    );
    cols[0].name = 'changed';
    assert.equal(columnsFor({ group: 'apps', resource: 'deployments' })[0].name, 'Name');
    assert.deepEqual(
      columnsFor({ group: '', resource: 'services' }).map((c) => c.name),
      ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector'],
    );
  });
});

describe('parseIncludeObject', () => {
  it('defaults to Metadata and rejects unknown values with kube’s message', () => {
    assert.equal(parseIncludeObject(undefined), 'Metadata');
    assert.equal(parseIncludeObject(''), 'Metadata');
    assert.equal(parseIncludeObject('None'), 'None');
    assert.equal(parseIncludeObject('Object'), 'Object');
    assert.throws(
      () => parseIncludeObject('All'),
      (err: unknown) =>
        err instanceof StatusError &&
        err.status.code === 400 &&
        err.status.reason === 'BadRequest' &&
        err.status.message ===
          `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
    );
  });
});
