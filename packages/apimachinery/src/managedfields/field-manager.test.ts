import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../object.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { StatusError } from '../status.js';
import { FieldManager } from './field-manager.js';
import { FieldSet } from './field-set.js';
import { mergeTypeOf } from './merge-type.js';
import { parsePathElement, pathString, serializePathElement } from './path-element.js';
import { shareManagedFields } from './shared-fields.js';
import { mergeTyped, toFieldSet } from './typed.js';

const metaSchema: OpenApiSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
  },
};

/** A kind with every list and map type. */
const schema: OpenApiSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: metaSchema,
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        image: { type: 'string' },
        args: { type: 'array', items: { type: 'string' } },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: { type: 'string' } } },
        },
        containers: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, image: { type: 'string' } } },
        },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};
const type = mergeTypeOf(schema, () => undefined);

function manager(subresource = ''): FieldManager {
  return new FieldManager({ type, group: 'example.com', version: 'v1', kind: 'Widget', subresource, now: () => new Date('2026-01-02T03:04:05.678Z') });
}

function widget(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', ...meta }, spec };
}

describe('path elements', () => {
  it('serialize and print as structured-merge-diff does', () => {
    const pe = parsePathElement('k:{"protocol":"TCP","port":80}')!;
    assert.equal(serializePathElement(pe), 'k:{"port":80,"protocol":"TCP"}');
    assert.equal(pathString([{ field: 'spec' }, { field: 'ports' }, pe, { field: 'name' }]), '.spec.ports[port=80,protocol="TCP"].name');
    assert.equal(pathString([{ field: 'tags' }, { value: 'a<b' }]), '.tags[="a<b"]');
    assert.equal(serializePathElement({ value: 'a<b' }), 'v:"a\\u003cb"');
  });
});

describe('field sets', () => {
  it('encode FieldsV1 with "." for members that have children, in order', () => {
    const set = toFieldSet({ spec: { containers: [{ name: 'b', image: 'x' }, { name: 'a' }], tags: ['z', 'y'], replicas: 1, args: ['1'] } }, type);
    assert.deepEqual(set.toFieldsV1(), {
      'f:spec': {
        'f:args': {},
        'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:name': {} }, 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
        'f:replicas': {},
        'f:tags': { 'v:"y"': {}, 'v:"z"': {} },
      },
    });
    assert.ok(FieldSet.fromFieldsV1(set.toFieldsV1()).equals(set));
  });

  it('keep the paths under one field with onlyUnder, as filtering every path would', () => {
    const set = toFieldSet({ metadata: { labels: { a: '1' } }, spec: { containers: [{ name: 'a', image: 'x' }], replicas: 1 } }, type);
    set.insert([{ field: 'status' }]);
    const bySpec = FieldSet.of(...set.paths().filter((p) => 'field' in p[0]! && p[0].field === 'spec'));
    assert.ok(set.onlyUnder({ field: 'spec' }).equals(bySpec));
    assert.deepEqual(set.onlyUnder({ field: 'spec' }).toFieldsV1(), bySpec.toFieldsV1());
    assert.deepEqual(set.onlyUnder({ field: 'status' }).toFieldsV1(), { 'f:status': {} });
    assert.ok(set.onlyUnder({ field: 'absent' }).empty());
  });

  it('key list-map items by every key, with key defaults', () => {
    const set = toFieldSet({ spec: { ports: [{ port: 80 }, { port: 80, protocol: 'UDP', name: 'dns' }] } }, type);
    assert.deepEqual(Object.keys(set.toFieldsV1()['f:spec']!['f:ports']!), ['k:{"port":80,"protocol":"TCP"}', 'k:{"port":80,"protocol":"UDP"}']);
  });
});

describe('merge', () => {
  it('merges list-maps by key, sets by value, and replaces atomic lists and maps', () => {
    const live = { spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '2' }], tags: ['x'], args: ['1', '2'], selector: { a: '1', b: '2' } } };
    const config = { spec: { containers: [{ name: 'b', image: '3' }, { name: 'c' }], tags: ['y'], args: ['3'], selector: { c: '3' } } };
    assert.deepEqual(mergeTyped(live, config, type), {
      spec: { containers: [{ name: 'a', image: '1' }, { name: 'b', image: '3' }, { name: 'c' }], tags: ['x', 'y'], args: ['3'], selector: { c: '3' } },
    });
  });
});

describe('FieldManager', () => {
  it('records a create as an Update entry of its manager', () => {
    const obj = widget({ replicas: 1 }, { labels: { a: 'b' } });
    const entries = manager().update(undefined, obj, 'kubectl-create');
    assert.deepEqual(entries, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'example.com/v1',
        time: '2026-01-02T03:04:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { '.': {}, 'f:replicas': {} } },
      },
    ]);
  });

  it('records a status write whose object shares the live one’s spec as it records one with a copy', () => {
    const live = manager().update(undefined, widget({ replicas: 1, containers: [{ name: 'a', image: 'x' }] }), 'creator');
    const before = { ...widget({ replicas: 1, containers: [{ name: 'a', image: 'x' }] }), metadata: { name: 'w', namespace: 'default', uid: 'u1', managedFields: live } } as KubeObject;
    const shared = { ...before, metadata: { ...before.metadata }, status: { ready: 1 } } as KubeObject;
    const copied = { ...structuredClone(before), status: { ready: 1 } } as KubeObject;
    const status = manager('status');
    const entries = status.update(before, shared, 'kubelet');
    assert.deepEqual(entries, status.update(before, copied, 'kubelet'));
    assert.deepEqual(entries?.find((e) => e.manager === 'kubelet')?.fieldsV1, { 'f:status': { '.': {}, 'f:ready': {} } });
  });

  it('updates objects whose trees are stored shared and frozen as it updates plain ones', () => {
    const created = widget({ replicas: 1, image: 'a' }, { uid: 'u', managedFields: manager().update(undefined, widget({ replicas: 1, image: 'a' }), 'creator') });
    const shared = structuredClone(created);
    shareManagedFields(shared.metadata.managedFields);
    assert.ok(Object.isFrozen(shared.metadata.managedFields![0]!.fieldsV1));
    // Twice: the second decodes and encodes from what the first left behind.
    for (let i = 0; i < 2; i++) {
      const next = (live: KubeObject) => manager().update(live, widget({ replicas: 2, image: 'a', args: ['x'] }, { uid: 'u' }), 'scaler', live.metadata.managedFields);
      assert.deepEqual(next(shared), next(structuredClone(created)));
    }
    // The creator's untouched tree encodes as it was; the scaler's took replicas from it.
    const entries = manager().update(shared, widget({ replicas: 2, image: 'a' }, { uid: 'u' }), 'scaler', shared.metadata.managedFields)!;
    assert.deepEqual(entries.map((e) => [e.manager, e.fieldsV1]), [
      ['creator', { 'f:spec': { '.': {}, 'f:image': {} } }],
      ['scaler', { 'f:spec': { 'f:replicas': {} } }],
    ]);
    const untouched = manager().update(shared, widget({ replicas: 1, image: 'a', args: ['y'] }, { uid: 'u' }), 'other', shared.metadata.managedFields)!;
    assert.deepEqual(untouched[0]!.fieldsV1, shared.metadata.managedFields![0]!.fieldsV1);
  });

  it('leaves an untracked object untracked on update, and resets on [{}]', () => {
    const live = widget({ replicas: 1 }, { uid: 'u' });
    assert.equal(manager().update(live, widget({ replicas: 2 }, { uid: 'u' }), 'm'), undefined);
    const tracked = widget({ replicas: 1 }, { uid: 'u', managedFields: manager().update(undefined, live, 'a') });
    assert.equal(manager().update(tracked, widget({ replicas: 2 }, { uid: 'u' }), 'm', [{}]), undefined);
  });

  it('applies, prunes what a manager dropped, and keeps what another owns', () => {
    const fm = manager();
    const first = fm.apply(undefined, widget({ replicas: 1, image: 'a', tags: ['x'] }), 'one', false).object;
    assert.deepEqual(first.spec, { replicas: 1, image: 'a', tags: ['x'] });
    const second = fm.apply(first, widget({ image: 'a', tags: ['x', 'y'] }), 'two', false).object;
    const third = fm.apply(second, widget({ replicas: 1 }), 'one', false).object;
    // `one` dropped image and tag x: image stays (two owns it), tag x stays (two applied it too).
    assert.deepEqual(third.spec, { replicas: 1, image: 'a', tags: ['x', 'y'] });
    const fourth = fm.apply(third, widget({}), 'two', false).object;
    assert.deepEqual(fourth.spec, { replicas: 1 });
    assert.deepEqual(
      (fourth.metadata.managedFields as Array<{ manager: string }>).map((e) => e.manager),
      ['one', 'two'],
    );
  });

  it('answers conflicts with kube’s message, and force takes the fields', () => {
    const fm = manager();
    const created = widget({ replicas: 1, ports: [{ port: 80, name: 'a' }] }, { uid: 'u' });
    created.metadata.managedFields = fm.update(undefined, created, 'kubectl-client-side-apply');
    const err = (() => {
      try {
        fm.apply(created, widget({ replicas: 2 }), 'ssa', false);
      } catch (e) {
        return e as StatusError;
      }
      return undefined;
    })();
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 409);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using example.com/v1: .spec.replicas');
    assert.deepEqual(err.status.details, {
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using example.com/v1', field: '.spec.replicas' }],
    });
    assert.throws(() => fm.apply(created, widget({ replicas: 2, ports: [{ port: 80, name: 'b' }] }), 'ssa', false), {
      message: 'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using example.com/v1:\n- .spec.replicas\n- .spec.ports[port=80,protocol="TCP"].name',
    });
    const forced = fm.apply(created, widget({ replicas: 2 }), 'ssa', true).object;
    assert.equal((forced.spec as { replicas: number }).replicas, 2);
    const owners = Object.fromEntries((forced.metadata.managedFields as Array<{ manager: string; fieldsV1: object }>).map((e) => [e.manager, e.fieldsV1]));
    assert.deepEqual(owners.ssa, { 'f:spec': { 'f:replicas': {} } });
    assert.deepEqual(owners['kubectl-client-side-apply'], {
      'f:spec': { '.': {}, 'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } },
    });
  });

  it('refuses undeclared fields and other kinds in kube’s words', () => {
    assert.throws(() => manager().apply(undefined, widget({ nope: 1 }), 'm', false), {
      message: 'failed to create typed patch object (default/w; example.com/v1, Kind=Widget): .spec.nope: field not declared in schema',
    });
    assert.throws(() => manager().apply(undefined, { apiVersion: 'v1', kind: 'Widget', metadata: {} }, 'm', false), { message: 'invalid object type: /v1, Kind=Widget' });
    // Untyped subtrees accept anything.
    assert.deepEqual(manager().apply(undefined, widget({ extra: { any: [1] } }), 'm', false).object.spec, { extra: { any: [1] } });
  });
});

describe('creates', () => {
  it('record each created object’s own fields, by manager, the time of each create, whatever was created before', () => {
    let now = new Date('2026-01-02T03:04:05Z');
    const options = { type, group: 'example.com', version: 'v1', kind: 'Widget', now: () => now };
    const fm = new FieldManager(options);
    const fields = (entries: unknown) => (entries as Array<{ manager: string; time: string; fieldsV1: object }>).map((e) => [e.manager, e.time, e.fieldsV1]);
    const first = fm.update(undefined, widget({ replicas: 1 }, { generateName: 'w-' }), 'rs');
    assert.deepEqual(fields(first), [['rs', '2026-01-02T03:04:05Z', { 'f:metadata': { 'f:generateName': {} }, 'f:spec': { '.': {}, 'f:replicas': {} } }]]);
    now = new Date('2026-01-02T03:04:07Z');
    // Each create after it (the same object again, another value, another field, another manager, entries
    // the client sent) records what a FieldManager that saw no create before records.
    const sent = [{ manager: 'them', operation: 'Update', apiVersion: 'example.com/v1', time: '2020-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:image': {} } } }];
    const creates: Array<[KubeObject, string]> = [
      [widget({ replicas: 1 }, { generateName: 'w-' }), 'rs'],
      [widget({ replicas: 2 }, { generateName: 'w-' }), 'rs'],
      [widget({ image: 'x' }, { generateName: 'w-' }), 'rs'],
      [widget({ replicas: 1 }, { generateName: 'w-' }), 'other'],
      [widget({ replicas: 1 }, { generateName: 'w-', managedFields: sent }), 'rs'],
      [widget({ replicas: 1 }, { generateName: 'w-' }), 'rs'],
    ];
    for (const [obj, by] of creates) {
      const fresh = new FieldManager(options).update(undefined, structuredClone(obj), by);
      assert.deepEqual(fm.update(undefined, obj, by), fresh);
    }
    assert.deepEqual(fields(fm.update(undefined, widget({ replicas: 1 }, { generateName: 'w-' }), 'rs')), [['rs', '2026-01-02T03:04:07Z', fields(first)[0]![2]]]);
    assert.deepEqual(fields(fm.update(undefined, widget({ image: 'x' }, { generateName: 'w-' }), 'rs')), [['rs', '2026-01-02T03:04:07Z', { 'f:metadata': { 'f:generateName': {} }, 'f:spec': { '.': {}, 'f:image': {} } }]]);
    // An object too large to be remembered by is recorded all the same.
    const large = widget({ image: 'x'.repeat(5000) }, { generateName: 'w-' });
    assert.deepEqual(fm.update(undefined, large, 'rs'), new FieldManager(options).update(undefined, structuredClone(large), 'rs'));
    // A create that sets nothing a manager may own records nothing, the first time and the next.
    const statusOnly = new FieldManager({ ...options, filter: (s) => s.onlyUnder({ field: 'status' }) });
    assert.equal(statusOnly.update(undefined, widget({ replicas: 1 }), 'rs'), undefined);
    assert.equal(statusOnly.update(undefined, widget({ replicas: 1 }), 'rs'), undefined);
  });

  it('record, for objects that differ in values only, what each one sets against the zero object', () => {
    // A built-in kind's zero object holds some fields: a value equal to the zero one changes nothing there.
    const zero = { metadata: { creationTimestamp: null }, spec: { replicas: 0, image: '', extra: { name: '' } }, status: {} };
    const options = { type, group: 'example.com', version: 'v1', kind: 'Widget', now: () => new Date('2026-01-02T03:04:05Z'), emptyObject: () => structuredClone(zero) };
    const fm = new FieldManager(options);
    const creates: KubeObject[] = [
      widget({ replicas: 0, image: 'a' }),
      widget({ replicas: 3, image: 'b' }),
      widget({ replicas: 0, image: '' }),
      widget({ replicas: 0, image: 'c' }, { name: 'other', uid: 'u1', creationTimestamp: '2026-01-02T03:04:05Z', labels: { app: 'x' } }),
      widget({ replicas: 0, image: 'c' }, { name: 'again', uid: 'u2', creationTimestamp: '2026-01-02T03:04:06Z', labels: { app: 'y' } }),
      widget({ ports: [{ port: 80 }], tags: ['a'] }),
      widget({ ports: [{ port: 81 }], tags: ['b', 'c'] }),
      widget({ ports: [{ port: 81, protocol: 'UDP' }], tags: [] }),
      widget({ extra: { a: 1 } }),
      widget({ extra: { a: 'x' } }),
      widget({ extra: { a: { b: 1 } } }),
      widget({ extra: { a: null } }),
      widget({ extra: { a: [1, 2] } }),
      widget({ extra: { a: [] } }),
      widget({ extra: {} }),
      // A field named as a metadata field strip-meta takes out counts like any other elsewhere.
      widget({ extra: { name: '' } }),
      widget({ extra: { name: 'x' } }),
      widget({ replicas: null, image: null }),
    ];
    for (const obj of creates) assert.deepEqual(fm.update(undefined, obj, 'rs'), new FieldManager(options).update(undefined, structuredClone(obj), 'rs'), JSON.stringify(obj));
  });

  it('record for random objects what a FieldManager that saw no create before records', () => {
    // A small seeded generator: objects that often share fields and differ in values, some equal to the zero object's.
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rand(xs.length)]!;
    const scalar = (): unknown => pick(['', 'a', 'b', 0, 1, 2.5, true, false, null]);
    // Few fields each, so that objects of one shape come again while the manager remembers it.
    const maybe = (o: Record<string, unknown>, k: string, v: () => unknown): void => {
      if (rand(4) === 0) o[k] = v();
    };
    const zero = { metadata: { creationTimestamp: null, labels: null }, spec: { replicas: 0, image: '', extra: { a: 0, name: '' } }, status: {} };
    const options = { type, group: 'example.com', version: 'v1', kind: 'Widget', now: () => new Date('2026-01-02T03:04:05Z'), emptyObject: () => structuredClone(zero) };
    const fm = new FieldManager(options);
    for (let i = 0; i < 1000; i++) {
      const spec: Record<string, unknown> = {};
      maybe(spec, 'replicas', () => pick([0, 1, 2, null]));
      maybe(spec, 'image', () => pick(['', 'x', 'y']));
      maybe(spec, 'tags', () => pick([[], ['a'], ['b'], ['a', 'b']]));
      maybe(spec, 'ports', () => pick([[], [{ port: 80 }], [{ port: 81, name: 'n' }], [{ port: 80, protocol: 'UDP' }]]));
      maybe(spec, 'selector', () => pick([{}, { a: 'x' }, { a: 'y' }, { b: 'x' }]));
      maybe(spec, 'extra', () => pick([{}, { a: scalar() }, { a: { b: scalar() } }, { b: [scalar()] }, { a: 0 }, { name: pick(['', 'x']) }]));
      const meta: Record<string, unknown> = { name: pick(['a', 'b']), uid: pick(['u1', 'u2']) };
      maybe(meta, 'labels', () => pick([{}, { app: pick(['x', 'y']) }, { team: 'z' }, null]));
      maybe(meta, 'creationTimestamp', () => pick([null, '2026-01-02T03:04:05Z', '2026-01-02T03:04:06Z']));
      maybe(meta, 'generateName', () => pick(['w-', 'v-']));
      const obj = widget(spec, meta);
      const by = pick(['rs', 'other']);
      assert.deepEqual(fm.update(undefined, obj, by), new FieldManager(options).update(undefined, structuredClone(obj), by), JSON.stringify(obj));
    }
  });

  it('share one FieldsV1 among the objects a manager creates with the same fields, whatever their values', () => {
    const fm = manager();
    const a = fm.update(undefined, widget({ replicas: 1, image: 'a' }, { name: 'a', labels: { app: 'x' } }), 'rs')!;
    const b = fm.update(undefined, widget({ replicas: 2, image: 'b' }, { name: 'b', labels: { app: 'y' } }), 'rs')!;
    assert.equal(a[0]!.fieldsV1, b[0]!.fieldsV1);
    const c = fm.update(undefined, widget({ replicas: 2, image: 'b' }, { name: 'b', labels: { team: 'y' } }), 'rs')!;
    assert.notEqual(a[0]!.fieldsV1, c[0]!.fieldsV1);
  });

  it('share one FieldsV1 among the objects a manager creates alike', () => {
    const fm = manager();
    const a = fm.update(undefined, widget({ replicas: 1 }, { generateName: 'w-' }), 'rs')!;
    const b = fm.update(undefined, widget({ replicas: 1 }, { generateName: 'w-' }), 'rs')!;
    assert.notEqual(a[0], b[0]);
    assert.equal(a[0]!.fieldsV1, b[0]!.fieldsV1);
    assert.ok(Object.isFrozen(a[0]!.fieldsV1));
  });
});
