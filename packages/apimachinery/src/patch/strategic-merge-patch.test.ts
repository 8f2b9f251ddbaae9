import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenApiSchema, SchemaResolver } from '../openapi-schema.js';
import { StatusError } from '../status.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

// ---------------------------------------------------------------------------------------
// Fixtures shaped like kube's published OpenAPI v3: references wrapped in allOf with
// sibling keys, patch metadata on the property that holds the list.

const ref = (name: string): OpenApiSchema => ({ $ref: `#/components/schemas/${name}` });
const wrapped = (name: string, extra: OpenApiSchema = {}): OpenApiSchema => ({ allOf: [ref(name)], ...extra });
const str: OpenApiSchema = { type: 'string' };
const stringMap: OpenApiSchema = { type: 'object', additionalProperties: { type: 'string', default: '' } };
const mergedBy = (key: string, items: OpenApiSchema, strategy = 'merge'): OpenApiSchema => ({
  type: 'array',
  items,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': [key],
  'x-kubernetes-patch-merge-key': key,
  'x-kubernetes-patch-strategy': strategy,
});

const schemas: Record<string, OpenApiSchema> = {
  Pod: {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: wrapped('ObjectMeta', { default: {}, description: 'Standard object metadata.' }),
      spec: wrapped('PodSpec', { default: {}, description: 'Specification of the desired behavior of the pod.' }),
    },
  },
  ObjectMeta: {
    type: 'object',
    properties: {
      name: str,
      labels: stringMap,
      annotations: stringMap,
      finalizers: {
        type: 'array',
        items: { type: 'string', default: '' },
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      ownerReferences: mergedBy('uid', wrapped('OwnerReference', { default: {} })),
    },
  },
  OwnerReference: { type: 'object', properties: { uid: str, name: str, kind: str } },
  PodSpec: {
    type: 'object',
    properties: {
      containers: mergedBy('name', wrapped('Container', { default: {} })),
      volumes: mergedBy('name', wrapped('Volume', { default: {} }), 'merge,retainKeys'),
      tolerations: { type: 'array', items: wrapped('Toleration', { default: {} }), 'x-kubernetes-list-type': 'atomic' },
      nodeSelector: { ...stringMap, 'x-kubernetes-map-type': 'atomic' },
      nodeName: str,
      securityContext: wrapped('PodSecurityContext'),
      config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  Container: {
    type: 'object',
    properties: {
      name: str,
      image: str,
      args: { type: 'array', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' },
      ports: {
        ...mergedBy('containerPort', wrapped('ContainerPort', { default: {} })),
        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      },
      env: mergedBy('name', wrapped('EnvVar', { default: {} })),
      resources: wrapped('ResourceRequirements', { default: {} }),
    },
  },
  ContainerPort: { type: 'object', properties: { containerPort: { type: 'integer' }, protocol: str, name: str } },
  EnvVar: { type: 'object', properties: { name: str, value: str, valueFrom: wrapped('EnvVarSource') } },
  EnvVarSource: { type: 'object', properties: { fieldRef: { type: 'object', properties: { fieldPath: str } } } },
  ResourceRequirements: { type: 'object', properties: { limits: stringMap, requests: stringMap } },
  Toleration: { type: 'object', properties: { key: str, operator: str, effect: str } },
  PodSecurityContext: { type: 'object', properties: { runAsUser: { type: 'integer' }, runAsNonRoot: { type: 'boolean' } } },
  Volume: {
    type: 'object',
    properties: {
      name: str,
      emptyDir: wrapped('EmptyDirVolumeSource'),
      configMap: wrapped('ConfigMapVolumeSource'),
      hostPath: wrapped('HostPathVolumeSource'),
    },
  },
  EmptyDirVolumeSource: { type: 'object', properties: { medium: str, sizeLimit: str } },
  ConfigMapVolumeSource: { type: 'object', properties: { name: str, defaultMode: { type: 'integer' } } },
  HostPathVolumeSource: { type: 'object', properties: { path: str, type: str } },

  // strategicpatch's own test type (patch_test.go MergeItem), described as OpenAPI.
  MergeItem: {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      mergingList: mergedBy('name', ref('MergeItem')),
      nonMergingList: { type: 'array', items: ref('MergeItem') },
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
      nonMergingIntList: { type: 'array', items: { type: 'integer' } },
      simpleMap: stringMap,
      retainKeysMap: wrapped('RetainKeysMergeItem', { 'x-kubernetes-patch-strategy': 'retainKeys' }),
      retainKeysMergingList: mergedBy('name', ref('MergeItem'), 'merge,retainKeys'),
    },
  },
  RetainKeysMergeItem: {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      simpleMap: stringMap,
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
      mergingList: mergedBy('name', ref('MergeItem')),
      nonMergingList: { type: 'array', items: ref('MergeItem') },
    },
  },
};

const resolve: SchemaResolver = (r) => schemas[r.replace('#/components/schemas/', '')];
type Obj = Record<string, unknown>;
const patchPod = (live: Obj, patch: unknown): Obj => applyStrategicMergePatch(live, patch, ref('Pod'), resolve);
const patchItem = (live: Obj, patch: unknown): Obj => applyStrategicMergePatch(live, patch, ref('MergeItem'), resolve);

/** Runs `fn`, which must throw a StatusError, and returns it. */
function statusError(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a StatusError');
}

/** kube passes most strategicpatch errors through unconverted: 500, no reason, the Go text. */
function assertUnconverted(fn: () => unknown, message: string | RegExp): void {
  const err = statusError(fn);
  assert.equal(err.code, 500);
  assert.equal(err.status.reason, undefined);
  assert.equal('reason' in err.status, false);
  if (typeof message === 'string') assert.equal(err.message, message);
  else assert.match(err.message, message);
}

function assertBadRequest(fn: () => unknown, message: string): void {
  const err = statusError(fn);
  assert.equal(err.code, 400);
  assert.equal(err.reason, 'BadRequest');
  assert.equal(err.message, message);
}

// ---------------------------------------------------------------------------------------

describe('applyStrategicMergePatch: what kubectl sends', () => {
  const lastApplied = (image: string) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web' },
      spec: { containers: [{ name: 'app', image }] },
    }) + '\n';

  function livePod(): Obj {
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied('nginx:1.25'), team: 'infra' },
        labels: { app: 'web' },
        finalizers: ['example.com/a', 'example.com/b', 'example.com/c'],
      },
      spec: {
        nodeName: 'node-1',
        containers: [
          {
            name: 'app',
            image: 'nginx:1.25',
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
          { name: 'log-agent', image: 'fluent-bit' },
        ],
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'cfg', configMap: { name: 'web-config' } },
        ],
        tolerations: [{ key: 'a', operator: 'Exists' }],
      },
    };
  }

  it("applies kubectl apply's three-way patch with $setElementOrder and last-applied-configuration", () => {
    const live = livePod();
    const out = patchPod(live, {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied('nginx:1.26') } },
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
        containers: [
          {
            name: 'app',
            image: 'nginx:1.26',
            '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 443 }],
            ports: [{ containerPort: 443, protocol: 'TCP' }],
          },
          { name: 'sidecar', image: 'busybox', args: ['sleep', 'infinity'] },
        ],
      },
    });
    assert.deepEqual(out, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied('nginx:1.26'), team: 'infra' },
        labels: { app: 'web' },
        finalizers: ['example.com/a', 'example.com/b', 'example.com/c'],
      },
      spec: {
        nodeName: 'node-1',
        containers: [
          {
            name: 'app',
            image: 'nginx:1.26',
            ports: [
              { containerPort: 80, protocol: 'TCP' },
              { containerPort: 443, protocol: 'TCP' },
            ],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
          },
          { name: 'sidecar', image: 'busybox', args: ['sleep', 'infinity'] },
          // The server-side container keeps its place after the applied ones.
          { name: 'log-agent', image: 'fluent-bit' },
        ],
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'cfg', configMap: { name: 'web-config' } },
        ],
        tolerations: [{ key: 'a', operator: 'Exists' }],
      },
    });
    assert.deepEqual(live, livePod(), 'the live object is not modified');
  });

  it('removes a container that left the applied configuration ($patch: delete)', () => {
    const out = patchPod(livePod(), {
      spec: {
        '$setElementOrder/containers': [{ name: 'log-agent' }],
        containers: [{ $patch: 'delete', name: 'app' }],
      },
    });
    assert.deepEqual((out.spec as Obj).containers, [{ name: 'log-agent', image: 'fluent-bit' }]);
  });

  it('removes a container with kubectl patch and $patch: delete', () => {
    const out = patchPod(livePod(), { spec: { containers: [{ name: 'log-agent', $patch: 'delete' }] } });
    assert.deepEqual(
      ((out.spec as Obj).containers as Obj[]).map((c) => c.name),
      ['app'],
    );
  });

  it('replaces a merged list with $patch: replace', () => {
    const out = patchPod(livePod(), {
      spec: { containers: [{ name: 'only', image: 'alpine' }, { $patch: 'replace' }] },
    });
    assert.deepEqual((out.spec as Obj).containers, [{ name: 'only', image: 'alpine' }]);
  });

  it('replaces a map with $patch: replace and empties one with $patch: delete', () => {
    const live = livePod();
    (live.spec as Obj).securityContext = { runAsUser: 1000 };
    const out = patchPod(live, {
      metadata: { labels: { $patch: 'replace', role: 'frontend' } },
      spec: { securityContext: { $patch: 'delete' } },
    });
    assert.deepEqual((out.metadata as Obj).labels, { role: 'frontend' });
    // kube's mergeMap answers $patch: delete with an empty map, not an absent field...
    assert.deepEqual((out.spec as Obj).securityContext, {});
    // ...but a directive map for a field the object lacks is dropped (removeDirectives).
    const out2 = patchPod(livePod(), { spec: { securityContext: { $patch: 'delete' } } });
    assert.equal('securityContext' in (out2.spec as Obj), false);
  });

  it('clears volume source fields not listed in $retainKeys', () => {
    const out = patchPod(livePod(), {
      spec: {
        '$setElementOrder/volumes': [{ name: 'data' }, { name: 'cfg' }],
        volumes: [{ $retainKeys: ['hostPath', 'name'], name: 'data', hostPath: { path: '/srv/data' }, emptyDir: null }],
      },
    });
    assert.deepEqual((out.spec as Obj).volumes, [
      { name: 'data', hostPath: { path: '/srv/data' } },
      { name: 'cfg', configMap: { name: 'web-config' } },
    ]);
  });

  it('rejects a $retainKeys list that omits a field the patch sets (400)', () => {
    assertBadRequest(
      () => patchPod(livePod(), { spec: { volumes: [{ $retainKeys: ['name'], name: 'data', hostPath: { path: '/x' } }] } }),
      'invalid patch format of retainKeys',
    );
    assertBadRequest(
      () => patchPod(livePod(), { spec: { volumes: [{ $retainKeys: 'name', name: 'data' }] } }),
      'invalid patch format of retainKeys',
    );
  });

  it('deletes finalizers with $deleteFromPrimitiveList', () => {
    const out = patchPod(livePod(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/b'] } });
    assert.deepEqual((out.metadata as Obj).finalizers, ['example.com/a', 'example.com/c']);
  });

  it('unions a merged primitive list in patch order, ahead of the rest (kube order without $setElementOrder)', () => {
    const out = patchPod(livePod(), { metadata: { finalizers: ['example.com/d', 'example.com/a'] } });
    assert.deepEqual((out.metadata as Obj).finalizers, ['example.com/d', 'example.com/a', 'example.com/b', 'example.com/c']);
    const out2 = patchPod(livePod(), { metadata: { finalizers: ['example.com/z'] } });
    assert.deepEqual((out2.metadata as Obj).finalizers, ['example.com/z', 'example.com/a', 'example.com/b', 'example.com/c']);
  });

  it('orders a primitive list by $setElementOrder, then deletes from it', () => {
    const out = patchPod(livePod(), {
      metadata: {
        '$setElementOrder/finalizers': ['example.com/a', 'example.com/c', 'example.com/d'],
        '$deleteFromPrimitiveList/finalizers': ['example.com/b'],
        finalizers: ['example.com/d'],
      },
    });
    assert.deepEqual((out.metadata as Obj).finalizers, ['example.com/a', 'example.com/c', 'example.com/d']);
  });

  it('deletes fields set to null', () => {
    const out = patchPod(livePod(), {
      metadata: { labels: { app: null, tier: 'web' } },
      spec: { nodeName: null, containers: [{ name: 'app', env: [{ name: 'A', value: null }] }] },
    });
    assert.deepEqual((out.metadata as Obj).labels, { tier: 'web' });
    assert.equal('nodeName' in (out.spec as Obj), false);
    assert.deepEqual(((out.spec as Obj).containers as Obj[])[0].env, [{ name: 'A' }, { name: 'B', value: '2' }]);
  });

  it('merges ports by containerPort and env by name inside a container', () => {
    const out = patchPod(livePod(), {
      spec: {
        containers: [
          {
            name: 'app',
            ports: [{ containerPort: 80, name: 'http' }],
            env: [{ name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
      },
    });
    const app = ((out.spec as Obj).containers as Obj[])[0];
    assert.deepEqual(app.ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
    // A server-only item that comes first in the live list stays ahead of the patched one.
    assert.deepEqual(app.env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '2', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ]);
  });

  it('replaces lists without a merge strategy (tolerations, args)', () => {
    const out = patchPod(livePod(), {
      spec: { tolerations: [{ key: 'b', operator: 'Exists' }], containers: [{ name: 'log-agent', args: ['-v'] }] },
    });
    assert.deepEqual((out.spec as Obj).tolerations, [{ key: 'b', operator: 'Exists' }]);
    assert.deepEqual(((out.spec as Obj).containers as Obj[])[1], { name: 'log-agent', image: 'fluent-bit', args: ['-v'] });
  });

  it('treats fields without schema information like a JSON merge patch', () => {
    const live = livePod();
    (live.spec as Obj).config = { tuning: { a: 1, b: 2 }, list: [{ name: 'x', v: 1 }] };
    (live.spec as Obj).unknownField = { keep: true, drop: true };
    const out = patchPod(live, {
      spec: {
        config: { tuning: { b: null, c: 3 }, list: [{ name: 'x', v: 2 }] },
        unknownField: { drop: null, added: [1] },
      },
    });
    assert.deepEqual((out.spec as Obj).config, { tuning: { a: 1, c: 3 }, list: [{ name: 'x', v: 2 }] });
    assert.deepEqual((out.spec as Obj).unknownField, { keep: true, added: [1] });
  });

  it('drops nulls and directive keys from values new to the object', () => {
    const live = livePod();
    delete (live.spec as Obj).volumes;
    const out = patchPod(live, {
      spec: {
        securityContext: { runAsUser: 1000, runAsNonRoot: null },
        volumes: [{ name: 'v', emptyDir: { medium: null } }, { name: 'gone', $patch: 'delete' }],
      },
    });
    assert.deepEqual((out.spec as Obj).securityContext, { runAsUser: 1000 });
    assert.deepEqual((out.spec as Obj).volumes, [{ name: 'v', emptyDir: {} }]);
  });

  it('answers an item without its merge key with kube’s 500 and message', () => {
    assertUnconverted(
      () => patchPod(livePod(), { spec: { containers: [{ image: 'nginx' }] } }),
      'map: map[image:nginx] does not contain declared merge key: name',
    );
    assertUnconverted(
      () => patchPod(livePod(), { spec: { containers: [{ $patch: 'delete', image: 'nginx' }] } }),
      'map: map[$patch:delete image:nginx] does not contain declared merge key: name',
    );
  });

  it('answers unknown directives with kube’s errors', () => {
    assertUnconverted(
      () => patchPod(livePod(), { metadata: { labels: { $patch: 'frob', a: 'b' } } }),
      'unknown patch type: frob in map: map[$patch:frob a:b]',
    );
    assertUnconverted(
      () => patchPod(livePod(), { metadata: { labels: { $patch: 'merge' } } }),
      'unknown patch type: merge in map: map[$patch:merge]',
    );
    assertUnconverted(
      () => patchPod(livePod(), { spec: { containers: [{ $patch: 'merge' }] } }),
      'merging lists cannot yet be specified in the patch',
    );
    assertBadRequest(() => patchPod(livePod(), { metadata: { $deleteFromPrimitiveList: ['a'] } }), 'invalid patch format of primitive list');
    assertBadRequest(
      () => patchPod(livePod(), { metadata: { '$setElementOrderX/finalizers': ['a'] } }),
      'invalid patch format of setElementOrder list',
    );
  });

  it('answers a list of lists with the generic 422', () => {
    const live = livePod();
    (live.metadata as Obj).finalizers = [['a']];
    const err = statusError(() => patchPod(live, { metadata: { finalizers: [['b']] } }));
    assert.equal(err.code, 422);
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.message, 'the server rejected our request due to an error in our request');
    assert.equal(err.cause, 'lists of lists are not supported');
  });

  it('answers a body that is not an object with 400, and treats null as an empty patch', () => {
    assertBadRequest(() => patchPod(livePod(), [{ op: 'add' }]), 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    assert.deepEqual(patchPod(livePod(), null), livePod());
  });
});

// ---------------------------------------------------------------------------------------
// Vectors from strategicpatch's patch_test.go (custom and raw test cases), applying the
// patch to the object the Go test applies it to.

describe('applyStrategicMergePatch: strategicpatch test vectors', () => {
  const cases: Array<{ name: string; live: Obj; patch: Obj; want: Obj }> = [
    {
      name: 'unique scalars when merging lists',
      live: { mergingIntList: [1, 2] },
      patch: { mergingIntList: [2, 3] },
      want: { mergingIntList: [1, 2, 3] },
    },
    {
      name: 'delete map from nested map',
      live: { simpleMap: { key1: '1', key2: '1' } },
      patch: { simpleMap: { $patch: 'delete' } },
      want: { simpleMap: {} },
    },
    {
      name: 'delete all items from merging list',
      live: { mergingList: [{ name: '1' }, { name: '2' }] },
      patch: { mergingList: [{ $patch: 'replace' }] },
      want: { mergingList: [] },
    },
    {
      name: 'merge empty merging lists',
      live: { mergingList: [] },
      patch: { mergingList: [] },
      want: { mergingList: [] },
    },
    { name: 'delete all keys from map', live: { name: '1', value: '1' }, patch: { $patch: 'replace' }, want: {} },
    {
      name: 'add key and delete all keys from map',
      live: { name: '1', value: '1' },
      patch: { other: 'a', $patch: 'replace' },
      want: { other: 'a' },
    },
    {
      name: 'delete all duplicate entries in a merging list',
      live: { mergingList: [{ name: '1' }, { name: '1' }, { name: '2', value: 'a' }, { name: '3' }, { name: '3' }] },
      patch: { mergingList: [{ name: '1', $patch: 'delete' }, { name: '3', $patch: 'delete' }] },
      want: { mergingList: [{ name: '2', value: 'a' }] },
    },
    {
      name: 'retainKeys map can delete a field when no retainKeys directive present',
      live: { retainKeysMap: { name: 'foo', value: 'a' } },
      patch: { retainKeysMap: { value: null } },
      want: { retainKeysMap: { name: 'foo' } },
    },
    {
      name: 'retainKeys map clears fields missing from $retainKeys',
      live: { retainKeysMap: { name: 'foo', value: 'a', other: 'b' } },
      patch: { retainKeysMap: { $retainKeys: ['name', 'other'], other: 'c' } },
      want: { retainKeysMap: { name: 'foo', other: 'c' } },
    },
    {
      name: 'retainKeys list can change a field when no retainKeys directive present',
      live: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
      patch: { retainKeysMergingList: [{ name: 'foo', value: 'b' }] },
      want: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'b' }] },
    },
    {
      name: 'preserve the order from the patch in a merging list',
      live: { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] },
      patch: { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', other: 'x' }] },
      want: { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', value: 'b', other: 'x' }] },
    },
    {
      name: 'preserve the order from the patch in a merging list 2',
      live: { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] },
      patch: { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }] },
      want: { mergingList: [{ name: '2', value: 'b' }, { name: '3', value: 'c' }, { name: '1', value: 'a' }] },
    },
    {
      name: 'preserve the order from the patch in a merging int list',
      live: { mergingIntList: [1, 2, 3] },
      patch: { mergingIntList: [3, 1, 2] },
      want: { mergingIntList: [3, 1, 2] },
    },
    {
      name: 'preserve the order from the patch in a merging int list 2',
      live: { mergingIntList: [1, 2, 3] },
      patch: { mergingIntList: [3, 1] },
      want: { mergingIntList: [2, 3, 1] },
    },
    {
      name: '$setElementOrder contains item that is not present in the list to be merged',
      live: { mergingList: [{ name: '1' }, { name: '3' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '3' }, { name: '2' }, { name: '1' }],
        mergingList: [
          { name: '3', value: '3' },
          { name: '1', value: '1' },
        ],
      },
      want: { mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] },
    },
    {
      name: '$setElementOrder contains item that is not present in the int list to be merged',
      live: { mergingIntList: [1, 3] },
      patch: { '$setElementOrder/mergingIntList': [3, 2, 1] },
      want: { mergingIntList: [3, 1] },
    },
    {
      name: '$deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list',
      live: { mergingIntList: [1, 2] },
      patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
      want: { mergingIntList: [1, 2] },
    },
    {
      name: '$deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list',
      live: { foo: ['bar'] },
      patch: { '$deleteFromPrimitiveList/mergingIntList': [3] },
      want: { foo: ['bar'] },
    },
    {
      name: '$deleteFromPrimitiveList should delete item from a list without merge patch strategy',
      live: { nonMergingIntList: [1, 2, 3] },
      patch: { '$deleteFromPrimitiveList/nonMergingIntList': [2] },
      want: { nonMergingIntList: [1, 3] },
    },
    {
      name: 'nested patch merge with empty list (two-way result)',
      live: { name: 'hi' },
      patch: { mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] },
      want: { name: 'hi', mergingList: [{ name: 'hello' }] },
    },
    {
      name: 'nested patch merge with empty list (three-way result)',
      live: { name: 'hi', mergingList: [{ name: 'hello2' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: 'hello' }, { name: 'doesntexist' }],
        mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }],
      },
      want: { name: 'hi', mergingList: [{ name: 'hello' }, { name: 'hello2' }] },
    },
    {
      name: 'delete items in lists of scalars',
      live: { mergingIntList: [1, 2, 3, 4] },
      patch: { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
      want: { mergingIntList: [1, 2, 4] },
    },
    {
      name: 'add and delete items in lists of scalars',
      live: { mergingIntList: [1, 2, 3] },
      patch: {
        '$setElementOrder/mergingIntList': [1, 2, 4],
        '$deleteFromPrimitiveList/mergingIntList': [3],
        mergingIntList: [4],
      },
      want: { mergingIntList: [1, 2, 4] },
    },
    {
      name: 'merge lists of maps',
      live: { mergingList: [{ name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '4' }, { name: '1' }, { name: '2' }, { name: '3' }],
        mergingList: [
          { name: '4', value: '4' },
          { name: '3', value: '3' },
        ],
      },
      want: {
        mergingList: [{ name: '4', value: '4' }, { name: '1', other: 'a' }, { name: '2', value: '2', other: 'b' }, { name: '3', value: '3' }],
      },
    },
    {
      name: 'add field to map in merging list with conflict',
      live: { mergingList: [{ name: '1', other: 'a' }, { name: '3', value: '2', other: 'b' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }],
        mergingList: [
          { name: '1', value: '1' },
          { name: '2', value: '2' },
        ],
      },
      want: {
        mergingList: [{ name: '1', value: '1', other: 'a' }, { name: '2', value: '2' }, { name: '3', value: '2', other: 'b' }],
      },
    },
    {
      name: 'delete map from merging list',
      live: { mergingList: [{ name: '1' }, { name: '2', other: 'b' }] },
      patch: { '$setElementOrder/mergingList': [{ name: '2' }], mergingList: [{ name: '1', $patch: 'delete' }] },
      want: { mergingList: [{ name: '2', other: 'b' }] },
    },
    {
      name: 'delete missing map from merging list with conflict',
      live: { mergingList: [{ name: '3', other: 'a' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '2' }],
        mergingList: [{ name: '2' }, { name: '1', $patch: 'delete' }],
      },
      want: { mergingList: [{ name: '2' }, { name: '3', other: 'a' }] },
    },
    {
      // The order here depends on Go's slices sharing storage (see mergeSlice).
      name: 'add map and delete map from merging list',
      live: { mergingList: [{ name: '1' }, { name: '2', other: 'b' }, { name: '4', other: 'c' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '2' }, { name: '3' }],
        mergingList: [{ name: '3' }, { name: '1', $patch: 'delete' }],
      },
      want: { mergingList: [{ name: '2', other: 'b' }, { name: '4', other: 'c' }, { name: '3' }] },
    },
    {
      name: 'add map and delete map from merging list with conflict',
      live: { mergingList: [{ name: '1', other: 'a' }, { name: '4', other: 'c' }] },
      patch: {
        '$setElementOrder/mergingList': [{ name: '2' }, { name: '3' }],
        mergingList: [{ name: '2' }, { name: '3' }, { name: '1', $patch: 'delete' }],
      },
      want: { mergingList: [{ name: '4', other: 'c' }, { name: '2' }, { name: '3' }] },
    },
    {
      name: 'replace non merging list nested in merging list',
      live: {
        mergingList: [
          { name: '1', other: 'a', nonMergingList: [{ name: '1' }, { name: '2', value: '2' }] },
          { name: '2', other: 'b' },
        ],
      },
      patch: {
        '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }],
        mergingList: [{ name: '1', nonMergingList: [{ name: '1', value: '1' }] }],
      },
      want: {
        mergingList: [
          { name: '1', other: 'a', nonMergingList: [{ name: '1', value: '1' }] },
          { name: '2', other: 'b' },
        ],
      },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(patchItem(c.live, c.patch), c.want));

  it('should check if order in $setElementOrder and patch list match', () => {
    assertUnconverted(
      () =>
        patchItem(
          { mergingList: [{ name: '1' }, { name: '3' }, { name: '2' }] },
          {
            '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }, { name: '3' }],
            mergingList: [
              { name: '3', value: '3' },
              { name: '1', value: '1' },
            ],
          },
        ),
      "The order in patch list:\n[map[name:3 value:3] map[name:1 value:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
    );
    assertUnconverted(
      () => patchItem({ mergingIntList: [1, 3, 2] }, { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3, 1] }),
      /doesn't match/,
    );
  });

  it('missing merge key should error out', () => {
    assertUnconverted(
      () => patchItem({ mergingList: [{ name: '1', value: 'a' }] }, { mergingList: [{ value: 'b' }] }),
      'map: map[value:b] does not contain declared merge key: name',
    );
  });
});
