import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorMessage, type FieldError } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { compileSchemaRules, type CompiledRules } from './compile.js';
import type { ValidationRule } from './decl-types.js';
import { evaluateRules, type EvaluateOptions } from './evaluate.js';

function compile(schema: OpenApiSchema): CompiledRules {
  const r = compileSchemaRules(schema, 'spec.versions[0].schema.openAPIV3Schema');
  assert.deepEqual(r.errors.map(fieldErrorMessage), []);
  return r.rules;
}

function run(rules: CompiledRules, obj: unknown, old?: unknown, opts?: EvaluateOptions): string[] {
  return evaluateRules(rules, obj, old, '', opts).map(fieldErrorMessage);
}

function resource(spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'my-cron' }, spec };
}

function specSchema(properties: Record<string, OpenApiSchema>, rules: ValidationRule[] = []): OpenApiSchema {
  return {
    type: 'object',
    properties: { metadata: { type: 'object' }, spec: { type: 'object', properties, 'x-kubernetes-validations': rules } },
  };
}

describe('evaluateRules', () => {
  const replicas = specSchema(
    { replicas: { type: 'integer' }, minReplicas: { type: 'integer' }, maxReplicas: { type: 'integer' } },
    [
      { rule: 'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas', message: 'replicas should be in the range minReplicas..maxReplicas.' },
      { rule: 'self.replicas <= self.maxReplicas' },
    ],
  );

  it('passes valid objects and reports failures with the message or kube default', () => {
    const rules = compile(replicas);
    assert.deepEqual(run(rules, resource({ replicas: 5, minReplicas: 1, maxReplicas: 10 })), []);
    assert.deepEqual(run(rules, resource({ replicas: 20, minReplicas: 0, maxReplicas: 10 })), [
      'spec: Invalid value: "object": replicas should be in the range minReplicas..maxReplicas.',
      'spec: Invalid value: "object": failed rule: self.replicas <= self.maxReplicas',
    ]);
  });

  it('reports rules at the resource root at <nil>, and a missing field as kube does', () => {
    const rules = compile({
      type: 'object',
      properties: { metadata: { type: 'object' }, spec: { type: 'object', properties: { a: { type: 'string' } } } },
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('my-prefix')" }, { rule: "self.spec.a == 'x'", message: 'a must be x' }],
    });
    assert.deepEqual(run(rules, resource({})), [
      `<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('my-prefix')`,
      '<nil>: Invalid value: "object": no such key: a evaluating rule: a must be x',
    ]);
  });

  it('runs transition rules (oldSelf) only on update', () => {
    const rules = compile(specSchema({ replicas: { type: 'integer' } }, [{ rule: 'self.replicas >= oldSelf.replicas', message: 'cannot scale down' }]));
    assert.deepEqual(run(rules, resource({ replicas: 1 })), []);
    assert.deepEqual(run(rules, resource({ replicas: 3 }), resource({ replicas: 2 })), []);
    assert.deepEqual(run(rules, resource({ replicas: 1 }), resource({ replicas: 2 })), ['spec: Invalid value: "object": cannot scale down']);
  });

  it('skips transition rules where the old value is absent, unless optionalOldSelf', () => {
    const rules = compile(
      specSchema({
        name: {
          type: 'string',
          'x-kubernetes-validations': [
            { rule: 'self == oldSelf', message: 'name is immutable' },
            { rule: "oldSelf.hasValue() || self != 'reserved'", message: 'reserved on create', optionalOldSelf: true },
          ],
        },
      }),
    );
    assert.deepEqual(run(rules, resource({ name: 'a' }), resource({})), []);
    assert.deepEqual(run(rules, resource({ name: 'reserved' })), ['spec.name: Invalid value: "string": reserved on create']);
    assert.deepEqual(run(rules, resource({ name: 'b' }), resource({ name: 'a' })), ['spec.name: Invalid value: "string": name is immutable']);
  });

  it('evaluates messageExpression, falling back to message when it fails', () => {
    const rules = compile(
      specSchema({ replicas: { type: 'integer' }, maxReplicas: { type: 'integer' } }, [
        { rule: 'self.replicas <= self.maxReplicas', messageExpression: "'replicas ' + string(self.replicas) + ' exceeds ' + string(self.maxReplicas)" },
        { rule: 'self.replicas < 0', message: 'static message', messageExpression: "'x' + string(self.nope)".replace('self.nope', 'self.maxReplicas / 0') },
      ]),
    );
    assert.deepEqual(run(rules, resource({ replicas: 20, maxReplicas: 10 })), [
      'spec: Invalid value: "object": replicas 20 exceeds 10',
      'spec: Invalid value: "object": static message',
    ]);
  });

  it('honours reason and fieldPath', () => {
    const rules = compile(
      specSchema({ a: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } }, [
        { rule: "self.a != 'forbidden'", message: 'a is forbidden', reason: 'FieldValueForbidden', fieldPath: '.a' },
        { rule: "has(self.a) && self.a != ''", message: 'a is required', reason: 'FieldValueRequired' },
        { rule: "self.a != 'dup'", reason: 'FieldValueDuplicate', fieldPath: ".labels['x.y']" },
        { rule: "self.a != 'forbidden'", message: 'invalid a', reason: 'FieldValueInvalid' },
      ]),
    );
    assert.deepEqual(run(rules, resource({ a: 'forbidden' })), ['spec.a: Forbidden: a is forbidden', 'spec: Invalid value: "object": invalid a']);
    assert.deepEqual(run(rules, resource({ a: 'dup' })), ['spec.labels[x.y]: Duplicate value: "object"']);
    assert.deepEqual(run(rules, resource({ a: '' })), ['spec: Required value: a is required']);
    const errs: FieldError[] = evaluateRules(rules, resource({ a: 'forbidden' }), undefined, '');
    assert.equal(errs[0].type, 'FieldValueForbidden');
  });

  it('uses int64 integers: exact arithmetic, integer division, overflow is an error', () => {
    const rules = compile(
      specSchema({
        n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self / 2 * 2 == self || self % 2 == 1' }, { rule: 'self * self > 0', message: 'square' }] },
        ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.0' }] },
      }),
    );
    assert.deepEqual(run(rules, resource({ n: 3, ratio: 0.5 })), []);
    assert.deepEqual(run(rules, resource({ n: 4_000_000_000, ratio: 1 })), [
      'spec.n: Invalid value: "integer": integer overflow evaluating rule: square',
      'spec.ratio: Invalid value: "number": failed rule: self < 1.0',
    ]);
  });

  it('compares set and map lists regardless of order', () => {
    const rules = compile(
      specSchema({
        tags: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 20 }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'tags are immutable' }] },
        ordered: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'ordered is immutable' }] },
        ports: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 20 }, port: { type: 'integer' } } },
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'ports are immutable' }],
        },
      }),
    );
    const old = resource({ tags: ['a', 'b'], ordered: ['a', 'b'], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] });
    assert.deepEqual(run(rules, resource({ tags: ['b', 'a'], ordered: ['b', 'a'], ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] }), old), [
      'spec.ordered: Invalid value: "array": ordered is immutable',
    ]);
    assert.deepEqual(run(rules, resource({ tags: ['a', 'c'], ordered: ['a', 'b'], ports: [{ name: 'https', port: 8443 }, { name: 'http', port: 80 }] }), old), [
      'spec.tags: Invalid value: "array": tags are immutable',
      'spec.ports: Invalid value: "array": ports are immutable',
    ]);
  });

  it('runs rules at every list item and map value, with their paths', () => {
    const rules = compile(
      specSchema({
        items: { type: 'array', maxItems: 10, items: { type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'size must be positive' }] } },
        limits: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "isQuantity(self) && quantity(self).isLessThan(quantity('2Gi'))", message: 'limit too big' }] } },
      }),
    );
    assert.deepEqual(run(rules, resource({ items: [{ size: 1 }, { size: 0 }, { size: -1 }], limits: { memory: '1Gi', storage: '3Gi' } })), [
      'spec.items[1]: Invalid value: "object": size must be positive',
      'spec.items[2]: Invalid value: "object": size must be positive',
      'spec.limits[storage]: Invalid value: "string": limit too big',
    ]);
  });

  it('correlates map-list items by key for transition rules', () => {
    const rules = compile(
      specSchema({
        ports: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', maxLength: 20 }, port: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }],
          },
        },
      }),
    );
    const old = resource({ ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] });
    assert.deepEqual(run(rules, resource({ ports: [{ name: 'b', port: 2 }, { name: 'a', port: 1 }, { name: 'c', port: 9 }] }), old), []);
    assert.deepEqual(run(rules, resource({ ports: [{ name: 'b', port: 3 }] }), old), ['spec.ports[0]: Invalid value: "object": port is immutable']);
  });

  it('types timestamps, durations, int-or-string and bytes', () => {
    const rules = compile(
      specSchema(
        {
          start: { type: 'string', format: 'date-time' },
          end: { type: 'string', format: 'date-time' },
          timeout: { type: 'string', format: 'duration' },
          port: { 'x-kubernetes-int-or-string': true },
          data: { type: 'string', format: 'byte', maxLength: 100 },
        },
        [
          { rule: 'self.start < self.end', message: 'start before end' },
          { rule: "self.timeout <= duration('1h')", message: 'timeout too long' },
          { rule: "type(self.port) == int ? self.port > 0 : self.port.matches('^[a-z]+$')", message: 'bad port' },
          { rule: 'size(self.data) == 5', message: 'data is 5 bytes' },
        ],
      ),
    );
    const ok = resource({ start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z', timeout: '30m', port: 8080, data: 'aGVsbG8=' });
    assert.deepEqual(run(rules, ok), []);
    assert.deepEqual(run(rules, resource({ start: '2024-01-03T00:00:00Z', end: '2024-01-02T00:00:00Z', timeout: '2h', port: 'HTTP', data: 'aGk=' })), [
      'spec: Invalid value: "object": start before end',
      'spec: Invalid value: "object": timeout too long',
      'spec: Invalid value: "object": bad port',
      'spec: Invalid value: "object": data is 5 bytes',
    ]);
    assert.deepEqual(run(rules, { ...ok, spec: { ...(ok.spec as object), port: 'http' } }), []);
  });

  it('stops with kube messages when a rule exceeds the per-call limit or the budget runs out', () => {
    const schema = specSchema({
      items: { type: 'array', items: { type: 'string' } },
    }, [{ rule: 'self.items.all(x, self.items.all(y, x == y || x != y))', message: 'quadratic' }]);
    const r = compileSchemaRules(schema, 'spec.versions[0].schema.openAPIV3Schema');
    assert.ok(r.errors.length > 0, 'the static estimate rejects it when the CRD is written');
    const big = resource({ items: Array.from({ length: 2000 }, (_, i) => `item-${i}`) });
    assert.deepEqual(evaluateRules(r.rules, big, undefined, '').map(fieldErrorMessage), [
      "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: quadratic",
    ]);
    const perItem = compile(
      specSchema({ items: { type: 'array', maxItems: 100000, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "self.startsWith('item')" }] } } }),
    );
    const many = resource({ items: Array.from({ length: 5000 }, (_, i) => `item-${i}`) });
    assert.deepEqual(run(perItem, many), []);
    const errs = run(perItem, many, undefined, { costBudget: 5000 });
    assert.equal(errs.length, 1);
    assert.match(errs[0], /^spec\.items\[\d+\]: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run$/);
  });

  it('ratchets: on update an unchanged value that fails a rule is a warning, not an error', () => {
    const rules = compile(specSchema({ name: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "self.startsWith('v2-')", message: 'must start with v2-' }] }, other: { type: 'string' } }));
    const old = resource({ name: 'v1-old', other: 'a' });
    const warnings: string[] = [];
    assert.deepEqual(run(rules, resource({ name: 'v1-old', other: 'b' }), old, { warnings }), []);
    assert.deepEqual(warnings, ['spec.name: Invalid value: "string": must start with v2-']);
    assert.deepEqual(run(rules, resource({ name: 'v1-new', other: 'b' }), old), ['spec.name: Invalid value: "string": must start with v2-']);
    assert.deepEqual(run(rules, resource({ name: 'v1-old', other: 'b' }), old, { ratcheting: false }), ['spec.name: Invalid value: "string": must start with v2-']);
  });

  it('reports runtime type mismatches of dyn values as kube does', () => {
    const rules = compile(specSchema({ port: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self > 0' }] } }));
    assert.deepEqual(run(rules, resource({ port: 'http' })), [
      "spec.port: Invalid value: \"\": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 0",
    ]);
  });
});
