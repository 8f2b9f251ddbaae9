import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorMessage, type FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { validateValue } from './validate.js';
import { compileGoRegexp } from './go-regexp.js';
import { checkFormat } from './formats.js';

/** A CR schema whose spec has one field `f` with the given schema. */
const withField = (f: OpenApiSchema, extra: Partial<OpenApiSchema> = {}): OpenApiSchema => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: { f }, ...extra } },
});

const messages = (errs: FieldError[]) => errs.map(fieldErrorMessage);
const check = (f: OpenApiSchema, value: unknown) => messages(validateValue({ spec: { f: value } }, withField(f)));
const reasons = (f: OpenApiSchema, value: unknown) => validateValue({ spec: { f: value } }, withField(f)).map((e) => e.type);

describe('validateValue: one keyword at a time', () => {
  test('type', () => {
    assert.deepEqual(check({ type: 'integer' }, 3), []);
    assert.deepEqual(check({ type: 'integer' }, 'string'), [
      'spec.f: Invalid value: "string": spec.f in body must be of type integer: "string"',
    ]);
    assert.deepEqual(reasons({ type: 'integer' }, 'x'), ['FieldValueTypeInvalid']);
    assert.deepEqual(check({ type: 'integer' }, 1.5), ['spec.f: Invalid value: "number": spec.f in body must be of type integer: "number"']);
    assert.deepEqual(check({ type: 'number' }, 2), []);
    assert.deepEqual(check({ type: 'string' }, true), ['spec.f: Invalid value: "boolean": spec.f in body must be of type string: "boolean"']);
    assert.deepEqual(check({ type: 'object' }, []), ['spec.f: Invalid value: "array": spec.f in body must be of type object: "array"']);
    assert.deepEqual(check({ type: 'array', items: { type: 'string' } }, {}), [
      'spec.f: Invalid value: "object": spec.f in body must be of type array: "object"',
    ]);
  });

  test('the messages kube shows for spec.replicas', () => {
    const schema = withField({ type: 'integer', minimum: 1, maximum: 10 });
    const replicas = (v: unknown) => messages(validateValue({ spec: { replicas: v } }, {
      type: 'object',
      properties: { spec: { type: 'object', properties: { replicas: schema.properties!.spec!.properties!.f! } } },
    }));
    assert.deepEqual(replicas(15), ['spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10']);
    assert.deepEqual(replicas('string'), [
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
    assert.deepEqual(replicas(5), []);
  });

  test('minimum and maximum, inclusive and exclusive', () => {
    assert.deepEqual(check({ type: 'integer', minimum: 1 }, 1), []);
    assert.deepEqual(check({ type: 'integer', minimum: 1 }, 0), ['spec.f: Invalid value: 0: spec.f in body should be greater than or equal to 1']);
    assert.deepEqual(check({ type: 'integer', minimum: 1, exclusiveMinimum: true }, 1), [
      'spec.f: Invalid value: 1: spec.f in body should be greater than 1',
    ]);
    assert.deepEqual(check({ type: 'number', maximum: 1, exclusiveMaximum: true }, 0.5), []);
    assert.deepEqual(check({ type: 'number', maximum: 1, exclusiveMaximum: true }, 1), ['spec.f: Invalid value: 1: spec.f in body should be less than 1']);
    // Floats print as Go's %v does.
    assert.deepEqual(check({ type: 'number', maximum: 1000000 }, 1500000.5), [
      'spec.f: Invalid value: 1500000.5: spec.f in body should be less than or equal to 1e+06',
    ]);
    assert.deepEqual(check({ type: 'number', minimum: 0.5 }, 0.25), ['spec.f: Invalid value: 0.25: spec.f in body should be greater than or equal to 0.5']);
  });

  test('multipleOf', () => {
    assert.deepEqual(check({ type: 'integer', multipleOf: 5 }, 10), []);
    assert.deepEqual(check({ type: 'integer', multipleOf: 5 }, 7), ['spec.f: Invalid value: 7: spec.f in body should be a multiple of 5']);
    assert.deepEqual(check({ type: 'number', multipleOf: 0.5 }, 1.5), []);
    assert.deepEqual(check({ type: 'number', multipleOf: 0.5 }, 0.75), ['spec.f: Invalid value: 0.75: spec.f in body should be a multiple of 0.5']);
  });

  test('minLength and maxLength count characters', () => {
    assert.deepEqual(check({ type: 'string', maxLength: 5 }, 'héllo'), []);
    assert.deepEqual(check({ type: 'string', maxLength: 5 }, 'abcdef'), ['spec.f: Too long: may not be more than 5 bytes']);
    assert.deepEqual(reasons({ type: 'string', maxLength: 5 }, 'abcdef'), ['FieldValueTooLong']);
    assert.deepEqual(check({ type: 'string', maxLength: 1 }, 'ab'), ['spec.f: Too long: may not be more than 1 byte']);
    assert.deepEqual(check({ type: 'string', minLength: 2 }, 'ab'), []);
    assert.deepEqual(check({ type: 'string', minLength: 2 }, 'a'), ['spec.f: Invalid value: "a": spec.f in body should be at least 2 chars long']);
  });

  test('pattern (Go regular expressions)', () => {
    assert.deepEqual(check({ type: 'string', pattern: '^[a-z]+$' }, 'abc'), []);
    assert.deepEqual(check({ type: 'string', pattern: '^[a-z]+$' }, 'ABC'), [
      "spec.f: Invalid value: \"ABC\": spec.f in body should match '^[a-z]+$'",
    ]);
    assert.deepEqual(check({ type: 'string', pattern: '(?i)^[a-z]+\\z' }, 'ABC'), []);
    assert.deepEqual(check({ type: 'string', pattern: '^[[:digit:]]{3}$' }, '12a'), [
      "spec.f: Invalid value: \"12a\": spec.f in body should match '^[[:digit:]]{3}$'",
    ]);
    // Unanchored, as Go's MatchString.
    assert.deepEqual(check({ type: 'string', pattern: 'b' }, 'abc'), []);
  });

  test('enum', () => {
    assert.deepEqual(check({ type: 'string', enum: ['a', 'b'] }, 'a'), []);
    assert.deepEqual(check({ type: 'string', enum: ['a', 'b'] }, 'x'), ['spec.f: Unsupported value: "x": supported values: "a", "b"']);
    assert.deepEqual(reasons({ type: 'string', enum: ['a', 'b'] }, 'x'), ['FieldValueNotSupported']);
    assert.deepEqual(check({ type: 'integer', enum: [1, 2] }, 3), ['spec.f: Unsupported value: 3: supported values: "1", "2"']);
    assert.deepEqual(check({ type: 'object', enum: [{ a: 1 }] }, { a: 1 }), []);
  });

  test('minItems, maxItems and uniqueItems', () => {
    const list = { type: 'array' as const, items: { type: 'string' as const } };
    assert.deepEqual(check({ ...list, maxItems: 2 }, ['a', 'b']), []);
    assert.deepEqual(check({ ...list, maxItems: 2 }, ['a', 'b', 'c']), ['spec.f: Too many: 3: must have at most 2 items']);
    assert.deepEqual(reasons({ ...list, maxItems: 2 }, ['a', 'b', 'c']), ['FieldValueTooMany']);
    assert.deepEqual(check({ ...list, maxItems: 1 }, ['a', 'b']), ['spec.f: Too many: 2: must have at most 1 item']);
    assert.deepEqual(check({ ...list, minItems: 2 }, ['a']), ['spec.f: Invalid value: 1: spec.f in body should have at least 2 items']);
    assert.deepEqual(check({ ...list, uniqueItems: true }, ['a', 'b']), []);
    assert.deepEqual(check({ ...list, uniqueItems: true }, ['a', 'a']), ['spec.f: Invalid value: "": spec.f in body shouldn\'t contain duplicates']);
  });

  test('minProperties and maxProperties', () => {
    const map = { type: 'object' as const, additionalProperties: { type: 'string' as const } };
    assert.deepEqual(check({ ...map, maxProperties: 1 }, { a: 'x' }), []);
    assert.deepEqual(check({ ...map, maxProperties: 1 }, { a: 'x', b: 'y' }), ['spec.f: Too many: 2: must have at most 1 item']);
    assert.deepEqual(check({ ...map, minProperties: 2 }, { a: 'x' }), ['spec.f: Invalid value: 1: spec.f in body should have at least 2 properties']);
  });

  test('required', () => {
    const schema = withField({ type: 'string' }, { required: ['f', 'g'] });
    assert.deepEqual(messages(validateValue({ spec: { f: 'x', g: 'y' } }, schema)), []);
    assert.deepEqual(messages(validateValue({ spec: { f: 'x' } }, schema)), ['spec.g: Required value']);
    assert.deepEqual(validateValue({ spec: {} }, schema).map((e) => e.type), ['FieldValueRequired', 'FieldValueRequired']);
    const root: OpenApiSchema = { type: 'object', required: ['spec'], properties: { spec: { type: 'object' } } };
    assert.deepEqual(messages(validateValue({}, root)), ['spec: Required value']);
  });

  test('nullable', () => {
    assert.deepEqual(check({ type: 'string', nullable: true }, null), []);
    assert.deepEqual(check({ type: 'string' }, null), ['spec.f: Invalid value: "null": spec.f in body must be of type string: "null"']);
    assert.deepEqual(check({ type: 'array', items: { type: 'string' } }, [null]), [
      'spec.f[0]: Invalid value: "null": spec.f[0] in body must be of type string: "null"',
    ]);
  });

  test('additionalProperties: maps with a value schema, and false', () => {
    const map: OpenApiSchema = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } };
    assert.deepEqual(check(map, { a: 1, b: 2 }), []);
    assert.deepEqual(check(map, { a: 'x', b: -1 }), [
      'spec.f.a: Invalid value: "string": spec.f.a in body must be of type integer: "string"',
      'spec.f.b: Invalid value: -1: spec.f.b in body should be greater than or equal to 0',
    ]);
    assert.deepEqual(check({ type: 'object', additionalProperties: false }, { extra: 1 }), [
      'spec.f: Invalid value: "extra": spec.f.extra in body is a forbidden property',
    ]);
    assert.deepEqual(check({ type: 'object', additionalProperties: true }, { extra: 1 }), []);
  });

  test('allOf, anyOf, oneOf and not', () => {
    assert.deepEqual(check({ type: 'integer', allOf: [{ minimum: 1 }, { maximum: 3 }] }, 2), []);
    assert.deepEqual(check({ type: 'integer', allOf: [{ minimum: 1 }, { maximum: 3 }] }, 4), [
      'spec.f: Invalid value: 4: spec.f in body should be less than or equal to 3',
      '<nil>: Invalid value: "": "spec.f" must validate all the schemas (allOf)',
    ]);
    assert.deepEqual(check({ type: 'integer', allOf: [{ minimum: 5 }, { maximum: 3 }] }, 4), [
      'spec.f: Invalid value: 4: spec.f in body should be greater than or equal to 5',
      'spec.f: Invalid value: 4: spec.f in body should be less than or equal to 3',
      '<nil>: Invalid value: "": "spec.f" must validate all the schemas (allOf). None validated',
    ]);
    // kube's own "bad delta" case: the error of the best-matching branch is kept.
    const delta: OpenApiSchema = { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'number', minimum: 0 }] };
    assert.deepEqual(check(delta, 'hello'), []);
    assert.deepEqual(check(delta, 3), []);
    assert.deepEqual(check(delta, 'foobarbaz'), [
      '<nil>: Invalid value: "": "spec.f" must validate at least one schema (anyOf)',
      'spec.f: Too long: may not be more than 5 bytes',
    ]);
    const one: OpenApiSchema = { type: 'integer', oneOf: [{ minimum: 5 }, { maximum: 10 }] };
    assert.deepEqual(check(one, 2), []);
    assert.deepEqual(check(one, 7), ['<nil>: Invalid value: "": "spec.f" must validate one and only one schema (oneOf). Found 2 valid alternatives']);
    assert.deepEqual(check({ type: 'string', not: { enum: ['bad'] } }, 'good'), []);
    assert.deepEqual(check({ type: 'string', not: { enum: ['bad'] } }, 'bad'), ['<nil>: Invalid value: "": "spec.f" must not validate the schema (not)']);
  });

  test('x-kubernetes-int-or-string', () => {
    const ios: OpenApiSchema = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    assert.deepEqual(check(ios, 80), []);
    assert.deepEqual(check(ios, 'http'), []);
    assert.deepEqual(check(ios, true), [
      'spec.f: Invalid value: "boolean": spec.f in body must be of type integer,string: "boolean"',
      '<nil>: Invalid value: "": "spec.f" must validate at least one schema (anyOf)',
      'spec.f: Invalid value: "boolean": spec.f in body must be of type integer: "boolean"',
    ]);
  });

  test('x-kubernetes-preserve-unknown-fields accepts anything', () => {
    assert.deepEqual(check({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { any: { thing: [1] } }), []);
    assert.deepEqual(check({ 'x-kubernetes-preserve-unknown-fields': true }, 'scalar'), []);
  });

  test('x-kubernetes-embedded-resource: apiVersion, kind and metadata', () => {
    const embedded: OpenApiSchema = { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true };
    assert.deepEqual(check(embedded, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' } } }), []);
    assert.deepEqual(check(embedded, { metadata: {} }), ['spec.f.apiVersion: Required value', 'spec.f.kind: Required value']);
    assert.deepEqual(check(embedded, { apiVersion: 'a/b/c', kind: 'Pod_x', metadata: { name: 'a/b', labels: { 'bad key!': 'v' } } }), [
      'spec.f.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      'spec.f.kind: Invalid value: "Pod_x": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
      "spec.f.metadata.name: Invalid value: \"a/b\": may not contain '/'",
      "spec.f.metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    assert.deepEqual(check(embedded, { apiVersion: 1, kind: '', metadata: 'x' }), [
      'spec.f.apiVersion: Invalid value: 1: must be a string',
      'spec.f.kind: Required value',
      'spec.f.metadata: Invalid value: "x": json: cannot unmarshal string into Go value of type v1.ObjectMeta',
    ]);
  });

  test('x-kubernetes-list-type set and map', () => {
    const set: OpenApiSchema = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
    assert.deepEqual(check(set, ['a', 'b']), []);
    assert.deepEqual(check(set, ['a', 'a', 'b', 'c', 'd', 'c']), ['spec.f[1]: Duplicate value: "a"', 'spec.f[5]: Duplicate value: "c"']);
    assert.deepEqual(reasons(set, ['a', 'a']), ['FieldValueDuplicate']);
    const map: OpenApiSchema = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
    };
    assert.deepEqual(check(map, [{ name: 'a', port: 1 }, { name: 'b', port: 1 }]), []);
    assert.deepEqual(check(map, [{ name: 'a', port: 1 }, { name: 'a', port: 2 }]), ['spec.f[1]: Duplicate value: map[string]interface {}{"name":"a"}']);
    const twoKeys: OpenApiSchema = { ...map, 'x-kubernetes-list-map-keys': ['name', 'port'] };
    assert.deepEqual(check(twoKeys, [{ name: 'a', port: 1 }, { name: 'a', port: 2 }]), []);
    assert.deepEqual(check(twoKeys, [{ name: 'a', port: 1 }, { port: 1, name: 'a' }]), ['spec.f[1]: Duplicate value: map[string]interface {}{"name":"a", "port":1}']);
    // Sets nested in a map use kube's key paths.
    const inMap: OpenApiSchema = { type: 'object', additionalProperties: set };
    assert.deepEqual(check(inMap, { k: ['x', 'x'] }), ['spec.f[k][1]: Duplicate value: "x"']);
  });
});

describe('validateValue: formats', () => {
  const fmt = (format: string, good: string, bad: string) => {
    assert.deepEqual(check({ type: 'string', format }, good), [], `${format}: ${good}`);
    assert.deepEqual(check({ type: 'string', format }, bad), [
      `spec.f: Invalid value: ${JSON.stringify(bad)}: spec.f in body must be of type ${format}: ${JSON.stringify(bad)}`,
    ]);
  };

  test('date, date-time, duration', () => {
    fmt('date', '2024-02-29', '2023-02-29');
    fmt('date-time', '2024-01-02T03:04:05Z', '2024-01-02 03:04:05');
    fmt('date-time', '2024-01-02T03:04:05.123+01:00', '2024-01-02T25:04:05Z');
    fmt('duration', '1h30m', 'soon');
    assert.ok(checkFormat('duration', '3 days'));
  });

  test('byte, uuid, email, hostname, uri', () => {
    fmt('byte', 'aGVsbG8=', 'not base64!');
    fmt('uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567');
    fmt('uuid4', '123e4567-e89b-42d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000');
    fmt('email', 'jane@example.com', 'jane');
    fmt('hostname', 'my-host.example.com', '-bad-.com');
    fmt('uri', 'https://example.com/x?y=1', 'relative/path');
  });

  test('ipv4, ipv6, cidr, mac', () => {
    fmt('ipv4', '10.0.0.1', '10.0.0.256');
    fmt('ipv6', '2001:db8::1', '10.0.0.1');
    fmt('cidr', '10.0.0.0/8', '10.0.0.0/33');
    fmt('mac', '00:00:5e:00:53:01', '00:00:5e');
  });

  test('int32, int64 and unknown formats are not checked, as in kube', () => {
    assert.deepEqual(check({ type: 'integer', format: 'int32' }, 2 ** 40), []);
    assert.deepEqual(check({ type: 'string', format: 'quantity' }, 'anything'), []);
    assert.deepEqual(check({ type: 'string', format: 'password' }, 'anything'), []);
  });
});

describe('validateValue: several errors at once', () => {
  test('the CronTab of the Kubernetes documentation, with its documented errors', () => {
    const cronTab: OpenApiSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
            image: { type: 'string' },
            replicas: { type: 'integer', minimum: 1, maximum: 10 },
          },
        },
      },
    };
    const ok = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c' }, spec: { cronSpec: '* * * * */5', image: 'img', replicas: 1 } };
    assert.deepEqual(validateValue(ok, cronTab), []);
    const bad = { ...ok, spec: { cronSpec: '* * * *', image: 'my-awesome-cron-image', replicas: 15 } };
    assert.deepEqual(messages(validateValue(bad, cronTab)), [
      "spec.cronSpec: Invalid value: \"* * * *\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      'spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10',
    ]);
  });

  test('a CR wrong in many places gets every error, in kube order', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          required: ['image'],
          properties: {
            replicas: { type: 'integer', minimum: 1, maximum: 10 },
            image: { type: 'string' },
            mode: { type: 'string', enum: ['Fast', 'Slow'] },
            ports: {
              type: 'array',
              maxItems: 2,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^[a-z]+$' } } },
            },
          },
        },
      },
    };
    const cr = { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x' }, spec: { replicas: 15, mode: 'Medium', ports: [{ name: 'A' }, { name: 'A' }, { name: 'b' }] } };
    assert.deepEqual(messages(validateValue(cr, schema)), [
      'spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10',
      'spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow"',
      "spec.ports[0].name: Invalid value: \"A\": spec.ports[0].name in body should match '^[a-z]+$'",
      "spec.ports[1].name: Invalid value: \"A\": spec.ports[1].name in body should match '^[a-z]+$'",
      'spec.ports: Too many: 3: must have at most 2 items',
      'spec.image: Required value',
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"A"}',
    ]);
  });

  test('a path prefix moves the fields, not the names in the messages', () => {
    assert.deepEqual(messages(validateValue(15, { type: 'integer', maximum: 10 }, 'spec.x.default')), [
      'spec.x.default: Invalid value: 15:  in body should be less than or equal to 10',
    ]);
  });
});

describe('validateValue on update: ratcheting', () => {
  const schema: OpenApiSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'string', enum: ['S', 'M'] },
          color: { type: 'string', maxLength: 2 },
          tags: { type: 'array', maxItems: 2, items: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } } },
          },
          roles: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        },
      },
    },
  };
  const update = (now: object, old: object) => messages(validateValue({ spec: now }, schema, '', { old: { spec: old } }));

  test('unchanged invalid values pass; changed ones are reported', () => {
    const old = { size: 'XL', color: 'red', tags: ['a', 'b', 'c'] };
    assert.deepEqual(update(old, old), []);
    assert.deepEqual(update({ ...old, color: 'rd' }, old), []);
    assert.deepEqual(update({ ...old, size: 'XXL' }, old), ['spec.size: Unsupported value: "XXL": supported values: "S", "M"']);
    // A list that is not a map list is one value: any change re-checks it whole.
    assert.deepEqual(update({ ...old, tags: ['c', 'b', 'a'] }, old), ['spec.tags: Too many: 3: must have at most 2 items']);
    // Without an old object (create), everything is checked.
    assert.equal(messages(validateValue({ spec: old }, schema)).length, 3);
  });

  test('items of a map list correlate by key, whatever their order', () => {
    const old = { ports: [{ name: 'a', port: 500 }, { name: 'b', port: 1 }] };
    assert.deepEqual(update({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 500 }] }, old), []);
    assert.deepEqual(update({ ports: [{ name: 'c', port: 500 }] }, old), [
      'spec.ports[0].port: Invalid value: 500: spec.ports[0].port in body should be less than or equal to 100',
    ]);
  });

  test('list uniqueness is only checked when the old object had unique lists', () => {
    assert.deepEqual(update({ roles: ['a', 'a', 'b'] }, { roles: ['a', 'a'] }), []);
    assert.deepEqual(update({ roles: ['a', 'a'] }, { roles: ['a'] }), ['spec.roles[1]: Duplicate value: "a"']);
  });
});

describe('compileGoRegexp', () => {
  test('translates RE2 and reports Go errors', () => {
    const named = compileGoRegexp('^(?P<x>a)\\z');
    assert.ok(typeof named !== 'string' && named.test('a') && !named.test('ab'));
    assert.equal(compileGoRegexp('+'), 'error parsing regexp: missing argument to repetition operator: `+`');
    assert.equal(compileGoRegexp('(abc'), 'error parsing regexp: missing closing ): `(abc`');
    assert.equal(compileGoRegexp('abc)'), 'error parsing regexp: unexpected ): `abc)`');
    assert.equal(compileGoRegexp('[a-z'), 'error parsing regexp: missing closing ]: `[a-z`');
    assert.equal(compileGoRegexp('a**'), 'error parsing regexp: invalid nested repetition operator: `**`');
    assert.equal(compileGoRegexp('(?=a)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    assert.equal(compileGoRegexp('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
  });
});
