import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { OpenApiSchema } from '@operant/apimachinery';
import { builtinSchema, resolveBuiltinSchema, schemaRef } from './builtin-schemas.js';
import {
  cannotBeHandledMessage,
  findUnknownFields,
  pruneUnknownFields,
  strictDecodingError,
  unknownFieldWarning,
} from './unknown-fields.js';

const pod: OpenApiSchema = { $ref: schemaRef('io.k8s.api.core.v1.Pod') };
const deployment: OpenApiSchema = { $ref: schemaRef('io.k8s.api.apps.v1.Deployment') };
const crd: OpenApiSchema = {
  $ref: schemaRef('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'),
};

function samplePod(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      labels: { 'app.kubernetes.io/name': 'web', anything: 'goes' },
      annotations: { 'x/y': 'z' },
      bogus: 1,
      managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:metadata': { 'f:labels': {} } } }],
    },
    spec: {
      x: true,
      containers: [
        {
          name: 'web',
          image: 'nginx',
          foo: 'bar',
          ports: [{ containerPort: 80, protocl: 'TCP' }],
          resources: { limits: { cpu: 0.5, memory: '128Mi', 'example.com/gpu': 1 } },
          livenessProbe: { httpGet: { port: 'http', path: '/' } },
        },
        { name: 'side', image: 'busybox' },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    },
    extra: {},
  };
}

describe('findUnknownFields', () => {
  it('reports unknown fields of a built-in kind in kube’s path format, in document order', () => {
    assert.deepEqual(findUnknownFields(samplePod(), pod, resolveBuiltinSchema), [
      'metadata.bogus',
      'spec.x',
      'spec.containers[0].foo',
      'spec.containers[0].ports[0].protocl',
      'extra',
    ]);
  });

  it('accepts maps, quantities, int-or-strings, RawExtension and FieldsV1 contents', () => {
    const obj = samplePod();
    pruneUnknownFields(obj, pod, resolveBuiltinSchema);
    assert.deepEqual(findUnknownFields(obj, pod, resolveBuiltinSchema), []);
    const revision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: { name: 'r' },
      revision: 1,
      data: { spec: { template: { whatever: [1, 2, { deep: true }] } } },
    };
    assert.deepEqual(
      findUnknownFields(revision, { $ref: schemaRef('io.k8s.api.apps.v1.ControllerRevision') }, resolveBuiltinSchema),
      [],
    );
  });

  it('follows nested definitions through allOf-wrapped refs', () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'd' }, matchExpression: [] },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0, max: 1 } },
        template: { metadata: { labels: { app: 'd' }, label: {} }, spec: { containers: [{ name: 'c', imag: 'x' }] } },
      },
      status: { replicas: 1, conditions: [{ type: 'Available', status: 'True', why: 'x' }] },
    };
    assert.deepEqual(findUnknownFields(deploy, deployment, resolveBuiltinSchema), [
      'spec.selector.matchExpression',
      'spec.strategy.rollingUpdate.max',
      'spec.template.metadata.label',
      'spec.template.spec.containers[0].imag',
      'status.conditions[0].why',
    ]);
  });

  it('knows CRD schemas, including the x-kubernetes-* keys of JSONSchemaProps', () => {
    const obj = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'foos.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'foos', kind: 'Foo' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                'x-kubernetes-preserve-unknown-fields': true,
                properties: {
                  spec: {
                    type: 'object',
                    'x-kubernetes-validations': [{ rule: 'self.a > 0', message: 'a' }],
                    properties: { a: { type: 'integer', default: 1, typo: true } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    assert.deepEqual(findUnknownFields(obj, crd, resolveBuiltinSchema), [
      'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.a.typo',
    ]);
  });

  it('honours preserve-unknown-fields, additionalProperties and embedded resources in inline schemas', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { type: 'object', properties: {} } } },
        closed: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
        anyMap: { type: 'object', additionalProperties: true },
        empty: { type: 'object' },
        untyped: {},
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: {} } },
        },
      },
    };
    const obj = {
      open: { kept: 1, n: { inner: 1 } },
      closed: { a: 'x', b: 'y' },
      map: { k1: { v: 'ok' }, k2: { w: 'no' } },
      anyMap: { z: { deep: 1 } },
      empty: { gone: 1 },
      untyped: { whatever: 1 },
      embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', nope: 1 }, spec: { s: 1 }, other: 1 },
    };
    const resolve = (ref: string): OpenApiSchema | undefined =>
      builtinSchema(ref.replace('#/components/schemas/', ''));
    assert.deepEqual(findUnknownFields(obj, schema, resolve), [
      'open.n.inner',
      'closed.b',
      'map.k2.w',
      'empty.gone',
      'embedded.metadata.nope',
      'embedded.spec.s',
      'embedded.other',
    ]);
  });

  it('treats the root as a Kubernetes object even when a CRD schema leaves metadata open', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } }, spec: { type: 'object', properties: {} } },
    };
    const cr = { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', namespace: 'n', labels: { x: 'y' }, nope: 1 }, spec: { s: 1 } };
    assert.deepEqual(findUnknownFields(cr, schema, resolveBuiltinSchema), ['metadata.nope', 'spec.s']);
  });

  it('ignores scalars and mismatched shapes (type errors are not unknown fields)', () => {
    assert.deepEqual(findUnknownFields('x', pod, resolveBuiltinSchema), []);
    assert.deepEqual(findUnknownFields({ spec: 'nope', metadata: null }, pod, resolveBuiltinSchema), []);
    assert.deepEqual(findUnknownFields({ spec: { containers: { name: 'x', y: 1 } } }, pod, resolveBuiltinSchema), []);
  });
});

describe('pruneUnknownFields', () => {
  it('drops unknown fields in place and returns their paths', () => {
    const obj = samplePod();
    const pruned = pruneUnknownFields(obj, pod, resolveBuiltinSchema);
    assert.deepEqual(pruned, [
      'metadata.bogus',
      'spec.x',
      'spec.containers[0].foo',
      'spec.containers[0].ports[0].protocl',
      'extra',
    ]);
    const spec = obj.spec as { containers: Array<Record<string, unknown>> };
    assert.equal(spec.containers.length, 2);
    assert.deepEqual(Object.keys(spec.containers[0]), ['name', 'image', 'ports', 'resources', 'livenessProbe']);
    assert.deepEqual(spec.containers[0].ports, [{ containerPort: 80 }]);
    assert.ok(!('extra' in obj));
    assert.deepEqual((obj.metadata as Record<string, unknown>).labels, { 'app.kubernetes.io/name': 'web', anything: 'goes' });
    assert.deepEqual(pruneUnknownFields(obj, pod, resolveBuiltinSchema), []);
  });
});

describe('messages', () => {
  it('formats warnings and strict decoding errors like kube', () => {
    assert.equal(unknownFieldWarning('spec.x'), 'unknown field "spec.x"');
    const err = strictDecodingError(['spec.x', 'spec.containers[0].foo']);
    assert.equal(err, 'strict decoding error: unknown field "spec.x", unknown field "spec.containers[0].foo"');
    assert.equal(
      cannotBeHandledMessage('Pod', 'v1', err),
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.x", unknown field "spec.containers[0].foo"',
    );
  });
});
