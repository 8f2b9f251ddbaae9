import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenApiSchema } from '../openapi-schema.js';
import { pruneValue } from './pruning.js';

const pruned = (json: string, schema: OpenApiSchema | undefined, isResourceRoot = false) => {
  const value: unknown = JSON.parse(json);
  const paths = pruneValue(value, schema, { isResourceRoot });
  return { value, paths };
};

// kube's pruning TestPrune cases, plus the paths strict field validation reports.
describe('pruneValue', () => {
  test('empty, scalars and scalar arrays', () => {
    assert.deepEqual(pruned('null', undefined), { value: null, paths: [] });
    assert.deepEqual(pruned('4', {}), { value: 4, paths: [] });
    assert.deepEqual(pruned('[1,2]', { items: {} }), { value: [1, 2], paths: [] });
  });

  test('object arrays', () => {
    assert.deepEqual(pruned('[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]', { items: { properties: { a: {}, c: {} } } }), {
      value: [{ a: 1 }, {}, { a: 1, c: 3 }],
      paths: ['[1].b', '[2].b'],
    });
    assert.deepEqual(pruned('[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]', undefined).value, [{}, {}, {}]);
  });

  test('object array object', () => {
    const schema: OpenApiSchema = {
      properties: { array: { items: { properties: { a: {}, c: {} } } }, specified: { properties: { a: {}, c: {} } } },
    };
    assert.deepEqual(
      pruned('{"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3}}', schema),
      {
        value: { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } },
        paths: ['array[1].b', 'array[2].b', 'specified.b', 'unspecified'],
      },
    );
  });

  test('nested x-kubernetes-preserve-unknown-fields', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        alpha: { type: 'string' },
        beta: { type: 'number' },
        pruning: {
          type: 'object',
          properties: {
            preserving: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            pruning: { type: 'object' },
          },
        },
        preserving: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            preserving: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            pruning: { type: 'object' },
          },
        },
        preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          additionalProperties: { type: 'object', properties: { specified: { type: 'object' } } },
        },
        preservingAdditionalPropertiesKeyPruneValues: {
          type: 'object',
          additionalProperties: { type: 'object', properties: { specified: { type: 'object' } } },
        },
      },
    };
    const input = {
      unspecified: 'bar',
      alpha: 'abc',
      beta: 42.0,
      unspecifiedObject: { unspecified: 'bar' },
      pruning: {
        unspecified: 'bar',
        unspecifiedObject: { unspecified: 'bar' },
        pruning: { unspecified: 'bar' },
        preserving: { unspecified: 'bar' },
      },
      preserving: {
        unspecified: 'bar',
        unspecifiedObject: { unspecified: 'bar' },
        pruning: { unspecified: 'bar' },
        preserving: { unspecified: 'bar' },
      },
      preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' } },
      preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: { unspecified: 'bar' }, unspecified: 'bar' } },
    };
    const { value, paths } = pruned(JSON.stringify(input), schema);
    assert.deepEqual(value, {
      unspecified: 'bar',
      alpha: 'abc',
      beta: 42,
      unspecifiedObject: { unspecified: 'bar' },
      pruning: { pruning: {}, preserving: { unspecified: 'bar' } },
      preserving: { unspecified: 'bar', unspecifiedObject: { unspecified: 'bar' }, pruning: {}, preserving: { unspecified: 'bar' } },
      preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { foo: { specified: {} } },
      preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: {} } },
    });
    assert.deepEqual(paths, [
      'preserving.pruning.unspecified',
      'preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified',
      'preservingAdditionalPropertiesKeyPruneValues.foo.unspecified',
      'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified',
      'preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified',
      'pruning.pruning.unspecified',
      'pruning.unspecified',
      'pruning.unspecifiedObject',
    ]);
  });

  test('additionalProperties with a schema or a boolean', () => {
    const json = '{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1}}}';
    assert.deepEqual(pruned(json, { properties: { a: {}, c: { additionalProperties: { type: 'integer' } } } }).value, {
      a: 1,
      c: { a: 1, b: 2, c: {} },
    });
    assert.deepEqual(pruned(json, { properties: { a: {}, c: { additionalProperties: false } } }), {
      value: { a: 1, c: { a: 1, b: 2, c: {} } },
      paths: ['b', 'c.c.a'],
    });
  });

  const embeddedInput = {
    apiVersion: 'foo/v1',
    kind: 'Foo',
    metadata: { name: 'instance', unspecified: 'bar' },
    unspecified: 'bar',
    pruned: { apiVersion: 'foo/v1', kind: 'Foo', unspecified: 'bar', metadata: { name: 'instance', unspecified: 'bar' }, spec: { unspecified: 'bar' } },
    preserving: { apiVersion: 'foo/v1', kind: 'Foo', unspecified: 'bar', metadata: { name: 'instance', unspecified: 'bar' }, spec: { unspecified: 'bar' } },
  };
  const embeddedSchema: OpenApiSchema = {
    type: 'object',
    properties: {
      pruned: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
      preserving: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    },
  };
  const embeddedPruned = {
    pruned: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance', unspecified: 'bar' }, spec: {} },
    preserving: embeddedInput.preserving,
  };

  test('x-kubernetes-embedded-resource keeps apiVersion, kind and metadata', () => {
    assert.deepEqual(pruned(JSON.stringify(embeddedInput), embeddedSchema), {
      value: embeddedPruned,
      paths: ['pruned.spec.unspecified', 'pruned.unspecified', 'unspecified'],
    });
  });

  test('at the resource root, apiVersion, kind and metadata are kept too', () => {
    assert.deepEqual(pruned(JSON.stringify(embeddedInput), embeddedSchema, true), {
      value: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'instance', unspecified: 'bar' }, ...embeddedPruned },
      paths: ['pruned.spec.unspecified', 'pruned.unspecified', 'unspecified'],
    });
  });

  test('strict field validation paths of a custom resource', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
            labels: { type: 'object', additionalProperties: { type: 'string' } },
          },
        },
      },
    };
    const cr = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'a' },
      spec: { foo: 1, items: [{ name: 'a', x: 1 }, { name: 'b' }], labels: { 'a.b/c': 'd' } },
      extra: true,
    };
    const paths = pruneValue(cr, schema, { isResourceRoot: true });
    assert.deepEqual(paths, ['extra', 'spec.foo', 'spec.items[0].x']);
    assert.deepEqual(cr, { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: { items: [{ name: 'a' }, { name: 'b' }], labels: { 'a.b/c': 'd' } } });
  });
});
