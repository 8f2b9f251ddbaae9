import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OpenApiSchema } from '../openapi-schema.js';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaulting.js';

const defaulted = (json: string, schema: OpenApiSchema | undefined): unknown => {
  const value: unknown = JSON.parse(json);
  applyDefaults(value, schema);
  return value;
};

// kube's defaulting TestDefault cases.
describe('applyDefaults', () => {
  test('empty and scalars are left alone', () => {
    assert.equal(defaulted('null', undefined), null);
    assert.equal(defaulted('4', { default: 'foo' }), 4);
    assert.deepEqual(defaulted('[1,2]', { items: { default: 'foo' } }), [1, 2]);
  });

  test('object array', () => {
    const schema: OpenApiSchema = {
      items: { properties: { a: { default: 'A' }, b: { default: 'B' }, c: { default: 'C' } } },
    };
    assert.deepEqual(defaulted('[{"a":1},{"b":1},{"c":1}]', schema), [
      { a: 1, b: 'B', c: 'C' },
      { a: 'A', b: 1, c: 'C' },
      { a: 'A', b: 'B', c: 1 },
    ]);
  });

  test('object array object, with additionalProperties', () => {
    const schema: OpenApiSchema = {
      properties: {
        array: { items: { properties: { a: { default: 'A' }, b: { default: 'B' } } } },
        object: { properties: { a: { default: 'N' }, b: { default: 'O' } } },
        additionalProperties: { additionalProperties: { properties: { a: { default: 'alpha' }, b: { default: 'beta' } } } },
        foo: { default: 'bar' },
      },
    };
    assert.deepEqual(defaulted('{"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}}', schema), {
      array: [
        { a: 1, b: 'B' },
        { a: 'A', b: 2 },
      ],
      object: { a: 1, b: 'O' },
      additionalProperties: { x: { a: 1, b: 'beta' }, y: { a: 'alpha', b: 2 } },
      foo: 'bar',
    });
  });

  test('empty and null values', () => {
    const schema: OpenApiSchema = { items: { properties: { a: { default: 'A' } } } };
    assert.deepEqual(defaulted('[{},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":null},{"a":[]},{"a":{}}]', schema), [
      { a: 'A' },
      { a: 1 },
      { a: 0 },
      { a: 0 },
      { a: '' },
      { a: 'A' },
      { a: [] },
      { a: {} },
    ]);
  });

  test('null in nullable and non-nullable places', () => {
    assert.deepEqual(defaulted('[null]', { nullable: true, items: { properties: { a: { default: 'A' } } } }), [null]);
    assert.deepEqual(defaulted('[null]', { items: { default: 'A' } }), ['A']);
    assert.deepEqual(defaulted('{"a": null}', { properties: { a: { nullable: true, default: 'A' } } }), { a: null });
    assert.deepEqual(defaulted('{"a": null}', { properties: { a: { default: 'A' } } }), { a: 'A' });
    assert.deepEqual(defaulted('{"a": null}', { additionalProperties: { nullable: true, default: 'A' } }), { a: null });
    assert.deepEqual(defaulted('{"a": null}', { additionalProperties: { default: 'A' } }), { a: 'A' });
    assert.deepEqual(defaulted('{"a": null}', { additionalProperties: true }), { a: null });
  });

  test('defaults are deep copies, and defaults inside a default apply', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          default: {},
          properties: { replicas: { type: 'integer', default: 1 }, tags: { type: 'array', items: { type: 'string' }, default: ['a'] } },
        },
      },
    };
    const one = defaulted('{}', schema) as { spec: { tags: string[] } };
    assert.deepEqual(one, { spec: { replicas: 1, tags: ['a'] } });
    one.spec.tags.push('b');
    assert.deepEqual(defaulted('{}', schema), { spec: { replicas: 1, tags: ['a'] } });
    assert.deepEqual(schema.properties!.spec!.default, {});
  });
});

describe('pruneNonNullableNullsWithoutDefaults', () => {
  test('drops nulls of fields that are neither nullable nor defaulted', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'string', nullable: true },
        c: { type: 'string', default: 'C' },
        m: { type: 'object', additionalProperties: { type: 'string' } },
        l: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } } } },
      },
    };
    const value = { a: null, b: null, c: null, unknown: null, m: { k: null }, l: [{ x: null }, null] };
    pruneNonNullableNullsWithoutDefaults(value, schema);
    assert.deepEqual(value, { b: null, c: null, unknown: null, m: {}, l: [{}, null] });
    applyDefaults(value, schema);
    assert.deepEqual(value, { b: null, c: 'C', unknown: null, m: {}, l: [{}, null] });
  });
});
