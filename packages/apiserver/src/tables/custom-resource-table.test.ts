import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@operant/apimachinery';
import { creationTimestampDescription, nameDescription } from './column.js';
import {
  customResourceColumns,
  customResourcePrinter,
  customResourceRow,
  toCustomResourceTable,
  type CustomResourceColumnDefinition,
} from './custom-resource-table.js';

const now = new Date('2024-05-01T12:00:00Z');

/** The printer columns of OpenKruise's SidecarSet CRD (config/crd/bases/apps.kruise.io_sidecarsets.yaml). */
const sidecarSetColumns: CustomResourceColumnDefinition[] = [
  { name: 'MATCHED', type: 'integer', description: 'The number of pods matched.', jsonPath: '.status.matchedPods' },
  { name: 'UPDATED', type: 'integer', description: 'The number of pods matched and updated.', jsonPath: '.status.updatedPods' },
  { name: 'READY', type: 'integer', description: 'The number of pods matched and ready.', jsonPath: '.status.readyPods' },
  {
    name: 'AGE',
    type: 'date',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.',
    jsonPath: '.metadata.creationTimestamp',
  },
];

const sidecarSet: KubeObject = {
  apiVersion: 'apps.kruise.io/v1alpha1',
  kind: 'SidecarSet',
  metadata: { name: 'test-sidecarset', uid: 'u1', resourceVersion: '7', generation: 1, creationTimestamp: '2024-05-01T11:57:00Z' },
  spec: { selector: { matchLabels: { app: 'nginx' } }, containers: [{ name: 'sidecar1', image: 'centos:6.7' }] },
  status: { observedGeneration: 1, matchedPods: 3, updatedPods: 2, readyPods: 1, latestRevision: 'abc' },
};

/** The CronTab CRD of the Kubernetes documentation (tasks/extend-kubernetes/custom-resources). */
const cronTabColumns: CustomResourceColumnDefinition[] = [
  { name: 'Spec', type: 'string', description: 'The cron spec defining the interval a CronJob is run', jsonPath: '.spec.cronSpec' },
  { name: 'Replicas', type: 'integer', description: 'The number of jobs launched by the CronJob', jsonPath: '.spec.replicas' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const cronTab: KubeObject = {
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name: 'my-new-cron-object', namespace: 'default', resourceVersion: '12', creationTimestamp: '2024-05-01T11:59:53Z' },
  spec: { cronSpec: '* * * * */5', image: 'my-awesome-cron-image', replicas: 1 },
};

describe('custom resource Tables: SidecarSet', () => {
  it('has Name, MATCHED, UPDATED, READY, AGE columns as kube serves them', () => {
    assert.deepEqual(customResourceColumns(sidecarSetColumns), [
      { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 },
      { name: 'MATCHED', type: 'integer', format: '', description: 'The number of pods matched.', priority: 0 },
      { name: 'UPDATED', type: 'integer', format: '', description: 'The number of pods matched and updated.', priority: 0 },
      { name: 'READY', type: 'integer', format: '', description: 'The number of pods matched and ready.', priority: 0 },
      { name: 'AGE', type: 'date', format: '', description: sidecarSetColumns[3].description, priority: 0 },
    ]);
  });

  it('fills the cells from the status, and the date column with the age', () => {
    assert.deepEqual(customResourceRow(sidecarSet, sidecarSetColumns, now), ['test-sidecarset', 3, 2, 1, '3m']);
  });

  it('leaves the status cells null (kubectl: <none>) before the controller writes status', () => {
    const fresh: KubeObject = { ...sidecarSet, status: undefined };
    delete fresh.status;
    assert.deepEqual(customResourceRow(fresh, sidecarSetColumns, now), ['test-sidecarset', null, null, null, '3m']);
  });

  it('builds the same Table shape as the built-ins', () => {
    const table = toCustomResourceTable([sidecarSet], sidecarSetColumns, { now });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '7' });
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'MATCHED', 'UPDATED', 'READY', 'AGE'],
    );
    assert.deepEqual(table.rows, [
      {
        cells: ['test-sidecarset', 3, 2, 1, '3m'],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: sidecarSet.metadata },
      },
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(table)), table);
  });

  it('honours includeObject, noHeaders, listMeta and v1beta1', () => {
    const table = toCustomResourceTable([sidecarSet, sidecarSet], sidecarSetColumns, {
      now,
      includeObject: 'Object',
      noHeaders: true,
      listMeta: { resourceVersion: '99', continue: 'next' },
      version: 'v1beta1',
    });
    assert.equal(table.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(table.columnDefinitions, []);
    assert.deepEqual(table.metadata, { resourceVersion: '99', continue: 'next' });
    assert.equal(table.rows[0].object, sidecarSet);
    assert.equal(toCustomResourceTable([sidecarSet], sidecarSetColumns, { includeObject: 'None' }).rows[0].object, null);
  });
});

describe('custom resource Tables: CronTab', () => {
  it('prints NAME SPEC REPLICAS AGE', () => {
    const columns = customResourceColumns(cronTabColumns);
    assert.deepEqual(
      columns.map((c) => [c.name, c.type, c.description]),
      [
        ['Name', 'string', nameDescription],
        ['Spec', 'string', 'The cron spec defining the interval a CronJob is run'],
        ['Replicas', 'integer', 'The number of jobs launched by the CronJob'],
        // kube's description for a column that has none names its path.
        ['Age', 'date', 'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp'],
      ],
    );
    assert.deepEqual(customResourceRow(cronTab, cronTabColumns, now), ['my-new-cron-object', '* * * * */5', 1, '7s']);
  });

  it('keeps priority and format for -o wide columns', () => {
    const cols: CustomResourceColumnDefinition[] = [
      ...cronTabColumns,
      { name: 'Image', type: 'string', format: 'byte', priority: 1, jsonPath: '.spec.image' },
    ];
    const table = toCustomResourceTable([cronTab], cols, { now });
    assert.deepEqual(table.columnDefinitions[4], {
      name: 'Image',
      type: 'string',
      format: 'byte',
      description: 'Custom resource definition column (in JSONPath format): .spec.image',
      priority: 1,
    });
    assert.deepEqual(table.rows[0].cells, ['my-new-cron-object', '* * * * */5', 1, '7s', 'my-awesome-cron-image']);
  });
});

describe('custom resource Tables: no printer columns', () => {
  it('serves Name and Age, as kube does for a CRD version without additionalPrinterColumns', () => {
    for (const none of [undefined, null, []]) {
      assert.deepEqual(customResourceColumns(none), [
        { name: 'Name', type: 'string', format: 'name', description: nameDescription, priority: 0 },
        { name: 'Age', type: 'date', format: '', description: creationTimestampDescription, priority: 0 },
      ]);
      assert.deepEqual(customResourceRow(cronTab, none, now), ['my-new-cron-object', '7s']);
    }
  });
});

describe('custom resource Tables: cells by type (kube cellForJSONValue)', () => {
  const obj: KubeObject = {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'thing', creationTimestamp: '2024-05-01T11:00:00Z' },
    spec: {
      int: 42,
      float: 3.14,
      bool: true,
      str: 'foo',
      nul: null,
      list: ['a', 'b<c'],
      map: { z: 1, a: { b: 2 } },
      servers: [{ hosts: ['foo'] }, { hosts: ['bar', 'baz'] }],
      past: '2024-04-30T23:30:00Z',
      future: '2024-05-02T00:30:00Z',
      fractional: '2024-05-01T11:59:30.123456Z',
      offset: '2024-05-01T13:00:00+02:00',
      empty: '',
      zero: '0001-01-01T00:00:00Z',
      notADate: 'yesterday',
      badDay: '2024-02-30T00:00:00Z',
    },
  };
  const cell = (type: string, jsonPath: string) =>
    customResourceRow(obj, [{ name: 'X', type, jsonPath }], now)[1];

  it('integer: whole numbers, floats truncated, anything else null', () => {
    assert.equal(cell('integer', '.spec.int'), 42);
    assert.equal(cell('integer', '.spec.float'), 3);
    assert.equal(cell('integer', '.spec.bool'), null);
    assert.equal(cell('integer', '.spec.str'), null);
    assert.equal(cell('integer', '.spec.list'), null);
  });
  it('number and boolean keep only their own type', () => {
    assert.equal(cell('number', '.spec.int'), 42);
    assert.equal(cell('number', '.spec.float'), 3.14);
    assert.equal(cell('number', '.spec.str'), null);
    assert.equal(cell('boolean', '.spec.bool'), true);
    assert.equal(cell('boolean', '.spec.int'), null);
  });
  it('string prints any value as kubectl jsonpath does', () => {
    assert.equal(cell('string', '.spec.str'), 'foo');
    assert.equal(cell('string', '.spec.int'), '42');
    assert.equal(cell('string', '.spec.float'), '3.14');
    assert.equal(cell('string', '.spec.bool'), 'true');
    assert.equal(cell('string', '.spec.list'), '["a","b\\u003cc"]');
    assert.equal(cell('string', '.spec.map'), '{"a":{"b":2},"z":1}');
    assert.equal(cell('string', '.spec.nul'), '<no value>');
    assert.equal(cell('string', '.spec.list[1]'), 'b<c');
  });
  it('uses the first result when a path gives several (kube tableconvertor)', () => {
    assert.equal(cell('string', '.spec.servers[0].hosts[0]'), 'foo');
    assert.equal(cell('string', '.spec.servers[0].hosts'), '["foo"]');
    assert.equal(cell('string', '.spec.servers[1].hosts'), '["bar","baz"]');
    assert.equal(cell('string', '.spec.servers[*].hosts'), '["foo"]');
    assert.equal(cell('integer', '.spec.servers[*].hosts'), null);
  });
  it('date: the age, <invalid> in the future or when malformed, <unknown> when empty', () => {
    assert.equal(cell('date', '.spec.past'), '12h');
    assert.equal(cell('date', '.spec.future'), '<invalid>');
    assert.equal(cell('date', '.spec.fractional'), '29s');
    assert.equal(cell('date', '.spec.offset'), '60m');
    assert.equal(cell('date', '.spec.empty'), '<unknown>');
    assert.equal(cell('date', '.spec.zero'), '<unknown>');
    assert.equal(cell('date', '.spec.notADate'), '<invalid>');
    assert.equal(cell('date', '.spec.badDay'), '<invalid>');
    assert.equal(cell('date', '.spec.int'), null);
    assert.equal(cell('date', '.metadata.creationTimestamp'), '60m');
  });
  it('null for missing values, failing paths and null values', () => {
    assert.equal(cell('integer', '.spec.missing'), null);
    assert.equal(cell('integer', '.nothing.at.all'), null);
    assert.equal(cell('string', '.spec.list[5]'), null); // out of bounds: an error, so no value
    assert.equal(cell('integer', '.spec.nul'), null);
    assert.equal(cell('unknown', '.spec.str'), null);
  });
  it('drops the column whose path does not parse, and the ones after it (kube tableconvertor.New)', () => {
    const cols: CustomResourceColumnDefinition[] = [
      { name: 'A', type: 'integer', jsonPath: '.spec.int' },
      { name: 'B', type: 'string', jsonPath: '.spec[' },
      { name: 'C', type: 'string', jsonPath: '.spec.str' },
    ];
    assert.deepEqual(
      customResourceColumns(cols).map((c) => c.name),
      ['Name', 'A'],
    );
    assert.deepEqual(customResourceRow(obj, cols, now), ['thing', 42]);
  });
  it('a printer parses once and prints many rows', () => {
    const printer = customResourcePrinter(cronTabColumns);
    assert.equal(printer.columns.length, 4);
    assert.deepEqual(printer.print(cronTab, now).cells, ['my-new-cron-object', '* * * * */5', 1, '7s']);
    assert.deepEqual(printer.print({ ...cronTab, metadata: { name: 'other' } }, now).cells, ['other', '* * * * */5', 1, null]);
  });
});
