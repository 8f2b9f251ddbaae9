import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorMessage, type FieldError } from '../field-errors.js';
import type { ObjectMeta } from '../object.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaValidationOptions } from './object-meta.js';

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const namespaced: ObjectMetaValidationOptions = { namespaced: true };
const messages = (errs: FieldError[]) => errs.map(fieldErrorMessage);
const create = (meta: ObjectMeta, opts: ObjectMetaValidationOptions = namespaced) => messages(validateObjectMeta(meta, opts));

describe('validateObjectMeta', () => {
  test('valid metadata has no errors', () => {
    assert.deepEqual(
      create({
        name: 'web.example',
        namespace: 'default',
        generateName: 'web-',
        labels: { app: 'web', 'example.com/tier': '', 'x_y.z': 'A-b_c.1' },
        annotations: { 'Example.com/Note': 'anything at all: {"json": true}' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', uid: 'u2', controller: false },
        ],
        finalizers: ['example.com/cleanup', 'foregroundDeletion'],
        generation: 1,
        managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1' }],
      }),
      [],
    );
    assert.deepEqual(create({ name: 'node-1' }, { namespaced: false }), []);
  });

  test('name and namespace required', () => {
    assert.deepEqual(create({}), [
      'metadata.name: Required value: name or generateName is required',
      'metadata.namespace: Required value',
    ]);
    assert.deepEqual(messages(validateObjectMeta(undefined, { namespaced: false })), [
      'metadata.name: Required value: name or generateName is required',
    ]);
  });

  test('namespace forbidden on cluster-scoped kinds, and a DNS label on namespaced ones', () => {
    assert.deepEqual(create({ name: 'a', namespace: 'ns' }, { namespaced: false }), [
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
    assert.deepEqual(create({ name: 'a', namespace: 'Bad' }), [`metadata.namespace: Invalid value: "Bad": ${labelMsg}`]);
    assert.deepEqual(create({ name: 'a', namespace: 'a.b' }), ['metadata.namespace: Invalid value: "a.b": must not contain dots']);
  });

  test('name formats', () => {
    assert.deepEqual(create({ name: 'Bad_Name', namespace: 'ns' }), [`metadata.name: Invalid value: "Bad_Name": ${subdomainMsg}`]);
    assert.deepEqual(create({ name: 'a'.repeat(254), namespace: 'ns' }), [
      `metadata.name: Invalid value: "${'a'.repeat(254)}": must be no more than 253 characters`,
    ]);
    assert.deepEqual(create({ name: 'a.b' }, { namespaced: false, nameValidator: 'label' }), [
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
    assert.deepEqual(create({ name: '1svc', namespace: 'ns' }, { namespaced: true, nameValidator: 'dns1035-label' }).length, 1);
    assert.deepEqual(create({ name: 'system:admin' }, { namespaced: false, nameValidator: 'path-segment' }), []);
    assert.deepEqual(create({ name: 'a/b' }, { namespaced: false, nameValidator: 'path-segment' }), [
      `metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
    assert.deepEqual(create({ name: 'x' }, { namespaced: false, nameValidator: (n) => (n === 'x' ? ['no x'] : []) }), [
      'metadata.name: Invalid value: "x": no x',
    ]);
  });

  test('generateName is checked as a prefix', () => {
    assert.deepEqual(create({ generateName: 'web-', name: 'web-abcde', namespace: 'ns' }), []);
    assert.deepEqual(create({ generateName: 'Web-', name: 'web-abcde', namespace: 'ns' }), [
      `metadata.generateName: Invalid value: "Web-": ${subdomainMsg}`,
    ]);
    // Only a generateName, not yet turned into a name: kube generates before validating.
    assert.deepEqual(create({ generateName: 'web-', namespace: 'ns' }), [
      'metadata.name: Required value: name or generateName is required',
    ]);
  });

  test('labels', () => {
    assert.deepEqual(create({ name: 'a', namespace: 'ns', labels: { 'bad key': 'v', ok: '-v' } }), [
      `metadata.labels: Invalid value: "bad key": ${namePartMsg}`,
      `metadata.labels: Invalid value: "-v": ${labelValueMsg}`,
    ]);
    assert.deepEqual(create({ name: 'a', namespace: 'ns', labels: { a: 'x'.repeat(64) } }), [
      `metadata.labels: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
    ]);
  });

  test('annotations: qualified keys (case-insensitive) and at most 256 KiB', () => {
    assert.deepEqual(create({ name: 'a', namespace: 'ns', annotations: { 'bad key': 'v' } }), [
      `metadata.annotations: Invalid value: "bad key": ${namePartMsg}`,
    ]);
    assert.deepEqual(create({ name: 'a', namespace: 'ns', annotations: { a: 'x'.repeat(262143) } }), []);
    assert.deepEqual(create({ name: 'a', namespace: 'ns', annotations: { a: 'x'.repeat(262144) } }), [
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
    // Bytes, not characters: é is two bytes in UTF-8.
    assert.deepEqual(create({ name: 'a', namespace: 'ns', annotations: { a: 'é'.repeat(131072) } }), [
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  test('ownerReferences', () => {
    assert.deepEqual(
      create({ name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] }),
      [
        'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
        'metadata.ownerReferences.kind: Invalid value: "": must not be empty',
        'metadata.ownerReferences.name: Invalid value: "": must not be empty',
        'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
      ],
    );
    assert.deepEqual(
      create({ name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: 'apps/', kind: 'K', name: 'n', uid: 'u' }] }),
      ['metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty'],
    );
    assert.deepEqual(
      create({ name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: 'a/b/c', kind: 'K', name: 'n', uid: 'u' }] }),
      ['metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty'],
    );
    const event = validateObjectMeta(
      { name: 'a', namespace: 'ns', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
      namespaced,
    );
    assert.equal(event.length, 1);
    assert.equal(event[0]!.field, 'metadata.ownerReferences');
    assert.equal(event[0]!.detail, '/v1, Kind=Event is disallowed from being an owner');
  });

  test('at most one controller reference', () => {
    const refs = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'c', uid: '3', controller: true },
    ];
    const errs = validateObjectMeta({ name: 'a', namespace: 'ns', ownerReferences: refs }, namespaced);
    assert.deepEqual(
      errs.map((e) => [e.type, e.field, e.detail]),
      [
        [
          'FieldValueInvalid',
          'metadata.ownerReferences',
          'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
        ],
        [
          'FieldValueInvalid',
          'metadata.ownerReferences',
          'Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and Deployment/c',
        ],
      ],
    );
    assert.deepEqual(errs[0]!.value, refs);
  });

  test('finalizers', () => {
    assert.deepEqual(create({ name: 'a', namespace: 'ns', finalizers: ['example.com/ok', 'bad finalizer'] }), [
      `metadata.finalizers: Invalid value: "bad finalizer": ${namePartMsg}`,
    ]);
    assert.deepEqual(create({ name: 'a', namespace: 'ns', finalizers: ['orphan', 'foregroundDeletion'] }), [
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });

  test('generation and managedFields', () => {
    assert.deepEqual(create({ name: 'a', namespace: 'ns', generation: -1 }), [
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
    assert.deepEqual(
      create({
        name: 'a',
        namespace: 'ns',
        managedFields: [{ operation: 'Patch', fieldsType: 'FieldsV2', manager: 'ab\u0007', subresource: 's'.repeat(257) }],
      }),
      [
        'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
        'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
        'metadata.managedFields[0].manager: Invalid value: "ab\\u0007": invalid character U+0007 (at position 2)',
        'metadata.managedFields[0].subresource: Too long: may not be more than 256 bytes',
      ],
    );
  });

  test('a path other than metadata', () => {
    assert.deepEqual(create({ labels: { a: '-' } }, { namespaced: false, path: 'spec.template.metadata' }), [
      'spec.template.metadata.name: Required value: name or generateName is required',
      `spec.template.metadata.labels: Invalid value: "-": ${labelValueMsg}`,
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '5',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
    labels: { app: 'web' },
  };
  const update = (changes: Partial<ObjectMeta>, from: ObjectMeta = old) =>
    messages(validateObjectMetaUpdate({ ...from, ...changes }, from));

  test('an unchanged or label-only change is fine', () => {
    assert.deepEqual(update({}), []);
    assert.deepEqual(update({ labels: { app: 'api' }, annotations: { note: 'x' }, generation: 3 }), []);
    assert.deepEqual(update({ creationTimestamp: '2024-01-01T00:00:00.000+00:00' }), []);
  });

  test('immutable fields', () => {
    assert.deepEqual(update({ name: 'b' }), ['metadata.name: Invalid value: "b": field is immutable']);
    assert.deepEqual(update({ namespace: 'other' }), ['metadata.namespace: Invalid value: "other": field is immutable']);
    assert.deepEqual(update({ uid: 'u2' }), ['metadata.uid: Invalid value: "u2": field is immutable']);
    assert.deepEqual(update({ creationTimestamp: '2024-01-02T00:00:00Z' }), [
      'metadata.creationTimestamp: Invalid value: "2024-01-02T00:00:00Z": field is immutable',
    ]);
    assert.deepEqual(update({ deletionTimestamp: '2024-01-02T00:00:00Z' }), [
      'metadata.deletionTimestamp: Invalid value: "2024-01-02T00:00:00Z": field is immutable',
    ]);
    assert.deepEqual(update({ deletionGracePeriodSeconds: 30 }), [
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  test('resourceVersion required, generation not decremented', () => {
    assert.deepEqual(update({ resourceVersion: '' }), [
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    ]);
    assert.deepEqual(update({ generation: 1 }), ['metadata.generation: Invalid value: 1: must not be decremented']);
  });

  test('no new finalizers while deleting', () => {
    const deleting: ObjectMeta = { ...old, deletionTimestamp: '2024-01-03T00:00:00Z', finalizers: ['example.com/a'] };
    assert.deepEqual(update({ finalizers: [] }, deleting), []);
    assert.deepEqual(update({ finalizers: ['example.com/c', 'example.com/a', 'example.com/b'] }, deleting), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
    ]);
    assert.deepEqual(update({ finalizers: ['example.com/b'] }), []);
  });

  test('labels, annotations, ownerReferences and finalizers are checked as on create', () => {
    assert.deepEqual(update({ labels: { app: '-' } }), [`metadata.labels: Invalid value: "-": ${labelValueMsg}`]);
    assert.deepEqual(update({ annotations: { 'a b': '' } }), [`metadata.annotations: Invalid value: "a b": ${namePartMsg}`]);
    assert.deepEqual(update({ ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: '' }] }), [
      'metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    ]);
    assert.deepEqual(update({ finalizers: ['a b'] }), [`metadata.finalizers: Invalid value: "a b": ${namePartMsg}`]);
  });
});
