import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorMessage } from '../field-errors.js';
import type { OpenApiSchema } from '../openapi-schema.js';
import { compileSchemaRules } from './compile.js';
import type { ValidationRule } from './decl-types.js';
import { escapeCelName } from './escaping.js';

const base = 'spec.versions[0].schema.openAPIV3Schema';

function specWith(rules: ValidationRule[], properties: Record<string, OpenApiSchema> = {}): OpenApiSchema {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { replicas: { type: 'integer' }, name: { type: 'string', maxLength: 63 }, ...properties },
        'x-kubernetes-validations': rules,
      },
    },
  };
}

function messages(schema: OpenApiSchema): string[] {
  return compileSchemaRules(schema, base).errors.map(fieldErrorMessage);
}

describe('compileSchemaRules', () => {
  it('accepts valid rules and counts them', () => {
    const r = compileSchemaRules(specWith([{ rule: 'self.replicas >= 0' }, { rule: 'self.name.startsWith("a")' }]), base);
    assert.deepEqual(r.errors, []);
    assert.equal(r.rules.ruleCount, 2);
    assert.equal(r.rules.empty, false);
    assert.equal(compileSchemaRules({ type: 'object' }, base).rules.empty, true);
  });

  it("reports an undefined field as kube does: undefined field 'z'", () => {
    assert.deepEqual(messages(specWith([{ rule: 'self.z == 1' }])), [
      `${base}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ` +
        'apiextensions.ValidationRule{Rule:"self.z == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ' +
        "compilation failed: ERROR: <input>:1:5: undefined field 'z'\n | self.z == 1\n | ....^",
    ]);
  });

  it('reports type errors, undeclared functions and syntax errors with positions', () => {
    const errs = messages(
      specWith([
        { rule: 'self.replicas == true' },
        { rule: 'frobnicate(self.replicas)' },
        { rule: 'self.replicas +' },
        { rule: 'self.replicas', message: 'not bool' },
        { rule: 'has(self.nope)' },
      ]),
    );
    assert.equal(errs.length, 5);
    assert.match(errs[0], /compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '\(int, bool\)'\n \| self.replicas == true\n \| \.{14}\^$/);
    assert.match(errs[1], /ERROR: <input>:1:11: undeclared reference to 'frobnicate' \(in container ''\)/);
    assert.match(errs[2], /ERROR: <input>:1:16: Syntax error: /);
    assert.match(errs[3], /Message:"not bool".*: cel expression must evaluate to a bool$/);
    assert.match(errs[4], /undefined field 'nope'/);
  });

  it('reports messageExpression errors at the messageExpression path', () => {
    const errs = messages(
      specWith([
        { rule: 'self.replicas > 0', messageExpression: 'self.replicas' },
        { rule: 'self.replicas > 0', messageExpression: "'x' + self.nope" },
      ]),
    );
    assert.equal(errs.length, 2);
    assert.match(errs[0], /x-kubernetes-validations\[0\]\.messageExpression: Invalid value: apiextensions\.ValidationRule\{.*\}: messageExpression must evaluate to a string$/);
    assert.match(errs[1], /x-kubernetes-validations\[1\]\.messageExpression: Invalid value: .*: messageExpression compilation failed: ERROR: <input>:1:11: undefined field 'nope'/);
    // A schema error on the node (here a blank messageExpression) skips compiling its rules, as kube does.
    assert.deepEqual(messages(specWith([{ rule: 'self.nope', messageExpression: '   ' }])), [
      `${base}.properties[spec].x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified`,
    ]);
  });

  it('checks rule entries: empty rule, messages, reason, fieldPath', () => {
    const errs = messages(
      specWith([
        { rule: '  ' },
        { rule: 'true', message: 'line\nbreak' },
        { rule: 'self.replicas > 0\n&& true' },
        { rule: 'true', reason: 'FieldValueBad' },
        { rule: 'true', fieldPath: '.nope' },
        { rule: 'true', fieldPath: '.replicas' },
      ]),
    );
    const at = `${base}.properties[spec].x-kubernetes-validations`;
    assert.deepEqual(errs, [
      `${at}[0].rule: Required value: rule is not specified`,
      `${at}[1].message: Invalid value: "line\\nbreak": message must not contain line breaks`,
      `${at}[2].message: Required value: message must be specified if rule contains line breaks`,
      `${at}[3].reason: Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${at}[4].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
    ]);
  });

  it('rejects oldSelf on the uncorrelatable portion of the schema, and a useless optionalOldSelf', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        list: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
        keyed: {
          type: 'array',
          maxItems: 10,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        },
        n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0', optionalOldSelf: true }] },
      },
    };
    assert.deepEqual(messages(schema), [
      `${base}.properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${base}.properties[list]`,
      `${base}.properties[n].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });

  it('rejects rules whose estimated cost exceeds the budget, and accepts them once sizes are bounded', () => {
    const unbounded: OpenApiSchema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { items: { type: 'array', items: { type: 'string' } } },
          'x-kubernetes-validations': [{ rule: "self.items.all(x, self.items.exists(y, x == y + 'a'))" }],
        },
      },
    };
    const errs = messages(unbounded);
    assert.ok(
      errs.includes(
        `${base}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ` +
          '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
      ),
      errs.join('\n'),
    );
    assert.ok(errs.some((e) => e.startsWith(`${base}: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget`)));

    const bounded = structuredClone(unbounded);
    const items = bounded.properties?.spec.properties?.items;
    assert.ok(items?.items);
    items.maxItems = 20;
    items.items.maxLength = 64;
    assert.deepEqual(messages(bounded), []);
  });

  it('multiplies the cost of a rule by how often it can run (items of an unbounded list)', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')" }] },
        },
      },
    };
    assert.match(messages(schema)[0], /properties\[list\]\.items\.x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of/);
    const ok = structuredClone(schema);
    const list = ok.properties?.list;
    assert.ok(list?.items);
    list.maxItems = 100;
    list.items.maxLength = 253;
    assert.deepEqual(messages(ok), []);
  });

  it('types the resource root: apiVersion, kind, metadata.name and generateName only', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: { metadata: { type: 'object' }, spec: { type: 'object', properties: { a: { type: 'string' } } } },
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('x') && self.kind == 'Foo' && self.apiVersion != ''" }, { rule: 'has(self.metadata.labels)' }],
    };
    const errs = messages(schema);
    assert.equal(errs.length, 1);
    assert.match(errs[0], /x-kubernetes-validations\[1\]\.rule: .*undefined field 'labels'/);
  });

  it('escapes property names as kube does', () => {
    assert.equal(escapeCelName('foo-bar'), 'foo__dash__bar');
    assert.equal(escapeCelName('a.b/c'), 'a__dot__b__slash__c');
    assert.equal(escapeCelName('x__y'), 'x__underscores__y');
    assert.equal(escapeCelName('namespace'), '__namespace__');
    assert.equal(escapeCelName('1abc'), undefined);
    assert.equal(escapeCelName('a b'), undefined);
    assert.deepEqual(messages(specWith([{ rule: 'self.foo__dash__bar > 0 && self.__namespace__ != ""' }], { 'foo-bar': { type: 'integer' }, namespace: { type: 'string' } })), []);
  });

  it('tolerates malformed rule entries', () => {
    const schema = specWith([{ rule: 5 } as unknown as ValidationRule, { rule: 'self.replicas > 0', message: ['x'] } as unknown as ValidationRule]);
    assert.deepEqual(messages(schema), [`${base}.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified`]);
  });

  it('reports rules on nodes CEL cannot see', () => {
    const schema: OpenApiSchema = {
      type: 'object',
      properties: { any: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } },
    };
    assert.deepEqual(messages(schema), [
      `${base}.properties[any].x-kubernetes-validations: Internal error: rule declared on schema that does not support validation rules type: '' x-kubernetes-preserve-unknown-fields: 'true'`,
    ]);
  });
});
