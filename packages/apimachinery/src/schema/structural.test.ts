import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorMessage } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { validateStructuralSchema, type StructuralSchemaOptions } from './structural.js';

const root = 'spec.versions[0].schema.openAPIV3Schema';
const errors = (schema: unknown, opts?: StructuralSchemaOptions) =>
  validateStructuralSchema(schema as OpenApiSchema, root, opts).map(fieldErrorMessage);
const p = (suffix: string) => `${root}${suffix}`;

/** Asserts that every expected message is present (kube's own tests check containment). */
function includesAll(actual: string[], expected: string[]) {
  for (const e of expected) assert.ok(actual.includes(e), `missing: ${e}\ngot:\n${actual.join('\n')}`);
}

describe('validateStructuralSchema: structural rules', () => {
  test('a good schema has no errors', () => {
    assert.deepEqual(
      errors({
        type: 'object',
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } } },
          spec: {
            type: 'object',
            required: ['replicas'],
            properties: {
              replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
              port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
              labels: { type: 'object', additionalProperties: { type: 'string' } },
              raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
              ports: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name'],
                items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
              },
            },
          },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      }),
      [],
    );
  });

  test('types are required: kube NonStructuralSchema messages', () => {
    assert.deepEqual(errors({ type: 'object', properties: { a: {} } }), [
      p('.properties[a].type: Required value: must not be empty for specified object fields'),
    ]);
    assert.deepEqual(errors({}), [p('.type: Required value: must not be empty at the root')]);
    assert.deepEqual(errors({ type: 'integer' }), [p('.type: Invalid value: "integer": must be object at the root')]);
    assert.deepEqual(errors({ type: 'object', properties: { slice: { type: 'array' } } }), [
      p('.properties[slice].items: Required value: must be specified'),
    ]);
  });

  test('missing types without extensions (kube case), sorted as kube sorts them', () => {
    const schema = {
      properties: {
        foo: { properties: { a: {} } },
        bar: { items: { additionalProperties: { properties: { a: {} }, items: {} } } },
        abc: { additionalProperties: { properties: { a: { items: { additionalProperties: { items: null } } } } } },
      },
    };
    assert.deepEqual(errors(schema), [
      p('.properties[abc].additionalProperties.properties[a].items.additionalProperties.type: Required value: must not be empty for specified object fields'),
      p('.properties[abc].additionalProperties.properties[a].items.type: Required value: must not be empty for specified array items'),
      p('.properties[abc].additionalProperties.properties[a].type: Required value: must not be empty for specified object fields'),
      p('.properties[abc].additionalProperties.type: Required value: must not be empty for specified object fields'),
      p('.properties[abc].type: Required value: must not be empty for specified object fields'),
      p('.properties[bar].items.additionalProperties.items.type: Required value: must not be empty for specified array items'),
      p('.properties[bar].items.additionalProperties.properties[a].type: Required value: must not be empty for specified object fields'),
      p('.properties[bar].items.additionalProperties.type: Required value: must not be empty for specified object fields'),
      p('.properties[bar].items.type: Required value: must not be empty for specified array items'),
      p('.properties[bar].type: Required value: must not be empty for specified object fields'),
      p('.properties[foo].properties[a].type: Required value: must not be empty for specified object fields'),
      p('.properties[foo].type: Required value: must not be empty for specified object fields'),
      p('.type: Required value: must not be empty at the root'),
    ]);
  });

  test('forbidden in nested value validation (kube case)', () => {
    const bad = { type: 'string', additionalProperties: true, title: 'hello', description: 'world', nullable: true };
    const got = errors({
      type: 'object',
      properties: { foo: { type: 'string' } },
      not: bad,
      allOf: [{ properties: { foo: bad } }],
      anyOf: [{ items: bad }],
      oneOf: [{ properties: { foo: bad } }],
    });
    includesAll(got, [
      p('.anyOf[0].items.type: Forbidden: must be empty to be structural'),
      p('.anyOf[0].items.additionalProperties: Forbidden: must be undefined to be structural'),
      p('.anyOf[0].items.title: Forbidden: must be empty to be structural'),
      p('.anyOf[0].items.description: Forbidden: must be empty to be structural'),
      p('.anyOf[0].items.nullable: Forbidden: must be false to be structural'),
      p('.allOf[0].properties[foo].type: Forbidden: must be empty to be structural'),
      p('.oneOf[0].properties[foo].nullable: Forbidden: must be false to be structural'),
      p('.not.type: Forbidden: must be empty to be structural'),
      p('.not.additionalProperties: Forbidden: must be undefined to be structural'),
      p('.items: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.anyOf[0].items'),
    ]);
    assert.ok(!got.some((m) => m.includes('.not.default')));
  });

  test('int-or-string variants (kube case)', () => {
    const got = errors({
      type: 'object',
      properties: {
        a: { 'x-kubernetes-int-or-string': true },
        b: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], allOf: [{ pattern: 'abc' }] },
        c: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: 'abc' }] },
        d: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string', pattern: 'abc' }] },
        f: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }, { pattern: 'abc' }] },
        g: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] },
      },
    });
    assert.deepEqual(got, [
      p('.properties[d].anyOf[0].type: Forbidden: must be empty to be structural'),
      p('.properties[d].anyOf[1].type: Forbidden: must be empty to be structural'),
      p('.properties[f].anyOf[0].type: Forbidden: must be empty to be structural'),
      p('.properties[f].anyOf[1].type: Forbidden: must be empty to be structural'),
      p('.properties[g].anyOf[0].type: Forbidden: must be empty to be structural'),
      p('.properties[g].anyOf[1].type: Forbidden: must be empty to be structural'),
    ]);
  });

  test('structural incompleteness (kube case)', () => {
    const got = errors({
      type: 'object',
      properties: {
        b: { type: 'object', properties: { b: { type: 'array' } } },
        c: { type: 'array', items: { type: 'object' } },
        d: { type: 'array' },
      },
      not: {
        properties: {
          a: {},
          b: { not: { properties: { a: {}, b: { items: {} } } } },
          c: { items: { not: { items: { properties: { a: {} } } } } },
          d: { items: {} },
        },
      },
      allOf: [{ properties: { e: {} } }],
      anyOf: [{ properties: { f: {} } }],
      oneOf: [{ properties: { g: {} } }],
    });
    includesAll(got, [
      p('.properties[d].items: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.not.properties[d].items'),
      p('.properties[a]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.not.properties[a]'),
      p('.properties[b].properties[a]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.not.properties[b].not.properties[a]'),
      p('.properties[b].properties[b].items: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.not.properties[b].not.properties[b].items'),
      p('.properties[c].items.items: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.not.properties[c].items.not.items'),
      p('.properties[e]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.allOf[0].properties[e]'),
      p('.properties[f]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.anyOf[0].properties[f]'),
      p('.properties[g]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.oneOf[0].properties[g]'),
    ]);
  });

  test('metadata at the root: only name and generateName', () => {
    assert.deepEqual(errors({ type: 'object', properties: { metadata: { type: 'object', properties: { generateName: { type: 'string' } } } } }), []);
    assert.deepEqual(errors({ type: 'object', properties: { metadata: { minimum: 42 } } }), [
      p('.properties[metadata].type: Invalid value: "": must be object'),
      p('.properties[metadata].type: Required value: must not be empty for specified object fields'),
      p('.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified'),
    ]);
    includesAll(
      errors({
        type: 'object',
        properties: { metadata: { properties: { name: { pattern: '^[a-z]+$' }, labels: { type: 'object', maxLength: 4 } } } },
      }),
      [
        p('.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified'),
        p('.properties[metadata].type: Required value: must not be empty for specified object fields'),
        p('.properties[metadata].properties[name].type: Required value: must not be empty for specified object fields'),
      ],
    );
    assert.deepEqual(
      errors({ type: 'object', properties: { metadata: { type: 'object' } }, allOf: [{ properties: { metadata: {} } }] }),
      [p('.allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context')],
    );
  });

  test('additionalProperties at the root, kind and apiVersion types', () => {
    assert.deepEqual(errors({ type: 'object', additionalProperties: false }), [
      p('.additionalProperties: Forbidden: must not be used at the root'),
    ]);
    assert.deepEqual(errors({ type: 'object', properties: { kind: { type: 'integer' } } }), [
      p('.properties[kind].type: Invalid value: "integer": must be string'),
    ]);
  });

  test('x-kubernetes-embedded-resource and int-or-string consistency (kube cases)', () => {
    assert.deepEqual(errors({ type: 'object', properties: { e: { type: 'object', 'x-kubernetes-embedded-resource': true } } }), [
      p('.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    ]);
    assert.deepEqual(
      errors({ type: 'object', properties: { e: { type: 'array', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } }),
      [
        p('.properties[e].items: Required value: must be specified'),
        p('.properties[e].type: Invalid value: "array": must be object if x-kubernetes-embedded-resource is true'),
      ],
    );
    assert.deepEqual(
      errors({ type: 'object', properties: { e: { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } }),
      [p('.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true')],
    );
    assert.deepEqual(
      errors({ type: 'object', properties: { e: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } }),
      [p('.properties[e].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true')],
    );
  });

  test('invalid regular expression (kube case)', () => {
    assert.deepEqual(errors({ type: 'object', properties: { foo: { type: 'string', pattern: '+' } } }), [
      p(".properties[foo].pattern: Invalid value: \"+\": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: `+`"),
    ]);
  });
});

describe('validateStructuralSchema: CRD keyword rules', () => {
  test('forbidden keywords', () => {
    const props = (x: Record<string, unknown>) => ({ type: 'object', properties: { f: { type: 'string', ...x } } });
    assert.deepEqual(errors(props({ $ref: '#/definitions/x' })), [p('.properties[f].$ref: Forbidden: $ref is not supported')]);
    assert.deepEqual(errors(props({ additionalItems: false })), [p('.properties[f].additionalItems: Forbidden: additionalItems is not supported')]);
    assert.deepEqual(errors(props({ patternProperties: { '^a': { type: 'string' } } })), [
      p('.properties[f].patternProperties: Forbidden: patternProperties is not supported'),
    ]);
    assert.deepEqual(errors(props({ dependencies: { a: ['b'] } })), [p('.properties[f].dependencies: Forbidden: dependencies is not supported')]);
    assert.deepEqual(errors(props({ definitions: { a: { type: 'string' } } })), [p('.properties[f].definitions: Forbidden: definitions is not supported')]);
    assert.deepEqual(errors(props({ id: 'x' })), [p('.properties[f].id: Forbidden: id is not supported')]);
    assert.deepEqual(errors(props({ $schema: 'http://json-schema.org/schema#' })), [
      p(': Invalid value: "": OpenAPIV3Schema \'schema\' is not supported'),
    ]);
    assert.deepEqual(errors({ type: 'object', properties: { zeta: { type: 'array', items: { type: 'string' }, uniqueItems: true } } }), [
      p('.properties[zeta].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic'),
    ]);
    assert.deepEqual(errors({ type: 'object', properties: { s: { type: 'array', items: [{ type: 'string' }] } } }), [
      p('.properties[s].items: Forbidden: items must be a schema object and not an array'),
    ]);
    assert.deepEqual(errors(props({ type: 'int' })), [
      p('.properties[f].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"'),
    ]);
    assert.deepEqual(errors({ type: 'object', nullable: true }), [p('.nullable: Forbidden: nullable cannot be true at the root')]);
    assert.deepEqual(errors(props({ 'x-kubernetes-preserve-unknown-fields': false })), [
      p('.properties[f].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined'),
    ]);
  });

  test('properties and additionalProperties are mutually exclusive', () => {
    assert.deepEqual(
      errors({ type: 'object', properties: { m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } } }),
      [p('.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive')],
    );
  });

  test('defaults: forbidden in metadata, pruned, valid', () => {
    assert.deepEqual(errors({ type: 'object', properties: { metadata: { type: 'object', default: {} } } }), [
      p('.properties[metadata].default: Forbidden: must not be set in top-level metadata'),
    ]);
    const spec = (s: Record<string, unknown>) => ({ type: 'object', properties: { spec: s } });
    assert.deepEqual(errors(spec({ type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 1 } })), [
      p('.properties[spec].default: Invalid value: {"a":"x","b":1}: must not have unknown fields'),
    ]);
    assert.deepEqual(errors(spec({ type: 'object', properties: { replicas: { type: 'integer', maximum: 10, default: 15 } } })), [
      p('.properties[spec].properties[replicas].default: Invalid value: 15:  in body should be less than or equal to 10'),
    ]);
    assert.deepEqual(errors(spec({ type: 'object', properties: { r: { type: 'object', required: ['x'], properties: { x: { type: 'string' } }, default: {} } } })), [
      p('.properties[spec].properties[r].default.x: Required value'),
    ]);
    assert.deepEqual(errors(spec({ type: 'object', properties: { n: { type: 'string', nullable: true, default: 'a' } } })), []);
    const template = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
    assert.deepEqual(errors(spec({ type: 'object', properties: { t: { ...template, default: { apiVersion: 'v1', kind: 'Pod' } } } })), []);
    assert.deepEqual(errors(spec({ type: 'object', properties: { t: { ...template, default: { apiVersion: 'v1' } } } })), [
      p('.properties[spec].properties[t].default.kind: Required value'),
    ]);
    // Defaults are only checked once the schema is structural.
    assert.deepEqual(errors(spec({ properties: { replicas: { type: 'integer', maximum: 10, default: 15 } } })), [
      p('.properties[spec].type: Required value: must not be empty for specified object fields'),
    ]);
  });

  test('x-kubernetes-list-type and list-map-keys', () => {
    const list = (x: Record<string, unknown>) => ({ type: 'object', properties: { l: x } });
    const item = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'object' } } };
    assert.deepEqual(errors(list({ type: 'string', 'x-kubernetes-list-type': 'set' })), [
      p('.properties[l].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified'),
    ]);
    assert.deepEqual(errors(list({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' })), [
      p('.properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"'),
    ]);
    assert.deepEqual(errors(list({ type: 'array', items: item, 'x-kubernetes-list-map-keys': ['name'] })), [
      p('.properties[l].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty'),
    ]);
    assert.deepEqual(errors(list({ type: 'array', items: item, 'x-kubernetes-list-type': 'map' })), [
      p('.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map'),
    ]);
    assert.deepEqual(errors(list({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })), [
      p('.properties[l].items.type: Invalid value: "string": must be object if parent array\'s x-kubernetes-list-type is map'),
    ]);
    assert.deepEqual(errors(list({ type: 'array', items: item, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['nope'] })), [
      p('.properties[l].x-kubernetes-list-map-keys: Invalid value: ["nope"]: entries must all be names of item properties'),
    ]);
    assert.deepEqual(errors(list({ type: 'array', items: item, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['v'] })), [
      p('.properties[l].items.properties[v].type: Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map'),
      p('.properties[l].items.properties[v].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'),
    ]);
    assert.deepEqual(
      errors(list({ type: 'array', items: { ...item, nullable: true }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })),
      [p('.properties[l].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map')],
    );
    assert.deepEqual(errors(list({ type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } }, 'x-kubernetes-list-type': 'set' })), [
      p('.properties[l].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set'),
    ]);
    assert.deepEqual(errors({ type: 'object', properties: { m: { type: 'string', 'x-kubernetes-map-type': 'atomic' } } }), [
      p('.properties[m].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified'),
    ]);
  });

  test('x-kubernetes-validations static checks', () => {
    const withRules = (rules: unknown[]) => ({ type: 'object', properties: { s: { type: 'object', 'x-kubernetes-validations': rules } } });
    assert.deepEqual(errors(withRules([{ rule: 'self.a > 0' }])), []);
    assert.deepEqual(errors(withRules([{ rule: ' ' }, { rule: 'x', message: ' ' }, { rule: 'a\n|| b' }, { rule: 'x', reason: 'Bad' }])), [
      p('.properties[s].x-kubernetes-validations[0].rule: Required value: rule is not specified'),
      p('.properties[s].x-kubernetes-validations[1].message: Invalid value: " ": message must be non-empty if specified'),
      p('.properties[s].x-kubernetes-validations[2].message: Required value: message must be specified if rule contains line breaks'),
      p('.properties[s].x-kubernetes-validations[3].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"'),
    ]);
    assert.deepEqual(errors({ type: 'object', properties: { s: { type: 'string' } }, anyOf: [{ 'x-kubernetes-validations': [{ rule: 'true' }] }] }), [
      p('.anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural'),
    ]);
  });

  test('status subresource restricts the root', () => {
    assert.deepEqual(errors({ type: 'object', properties: { status: { type: 'object' } } }, { statusSubresource: true }), []);
    assert.deepEqual(errors({ type: 'object', properties: {}, anyOf: [{ required: ['x'] }] }, { statusSubresource: true }), [
      p(': Invalid value: {"type":"object","properties":{},"anyOf":[{"required":["x"]}]}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled'),
    ]);
  });
});
