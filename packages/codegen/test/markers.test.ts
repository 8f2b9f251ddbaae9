/**
 * One golden per marker: the exact schema controller-gen writes for it
 * (controller-tools pkg/crd/markers and its testdata), and the CRD-level
 * markers' effect on the CustomResourceDefinition.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_INFO, generatedCrds, specSchema, writeProject } from './project.js';

/** A field `f` with the given markers and type, and the schema it must get. */
const fieldCases: Array<[string, string, string, Record<string, unknown>]> = [
  ['Minimum/Maximum on int32', '+kubebuilder:validation:Minimum=1\n  // +kubebuilder:validation:Maximum=10', 'int32', { format: 'int32', maximum: 10, minimum: 1, type: 'integer' }],
  ['negative and float bounds on number', '+kubebuilder:validation:Minimum=-1.5\n  // +kubebuilder:validation:ExclusiveMinimum=true', 'number', { exclusiveMinimum: true, minimum: -1.5, type: 'number' }],
  ['ExclusiveMaximum', '+kubebuilder:validation:Maximum=5\n  // +kubebuilder:validation:ExclusiveMaximum=true', 'int64', { exclusiveMaximum: true, format: 'int64', maximum: 5, type: 'integer' }],
  ['MultipleOf', '+kubebuilder:validation:MultipleOf=3', 'int32', { format: 'int32', multipleOf: 3, type: 'integer' }],
  ['MinLength/MaxLength', '+kubebuilder:validation:MinLength=1\n  // +kubebuilder:validation:MaxLength=63', 'string', { maxLength: 63, minLength: 1, type: 'string' }],
  ['Pattern', '+kubebuilder:validation:Pattern=`^[a-z]+$`', 'string', { pattern: '^[a-z]+$', type: 'string' }],
  ['Pattern, quoted', '+kubebuilder:validation:Pattern="^\\\\d+$"', 'string', { pattern: '^\\d+$', type: 'string' }],
  ['MinItems/MaxItems/UniqueItems', '+kubebuilder:validation:MinItems=1\n  // +kubebuilder:validation:MaxItems=3\n  // +kubebuilder:validation:UniqueItems=true', 'string[]', { items: { type: 'string' }, maxItems: 3, minItems: 1, type: 'array', uniqueItems: true }],
  ['MinProperties/MaxProperties', '+kubebuilder:validation:MinProperties=1\n  // +kubebuilder:validation:MaxProperties=2', 'Record<string, string>', { additionalProperties: { type: 'string' }, maxProperties: 2, minProperties: 1, type: 'object' }],
  ['Enum', '+kubebuilder:validation:Enum=a;b;c', 'string', { enum: ['a', 'b', 'c'], type: 'string' }],
  ['Enum of numbers', '+kubebuilder:validation:Enum={1,2,3}', 'int32', { enum: [1, 2, 3], format: 'int32', type: 'integer' }],
  ['string-literal union', '', "'Always' | 'Never'", { enum: ['Always', 'Never'], type: 'string' }],
  ['Format', '+kubebuilder:validation:Format=email', 'string', { format: 'email', type: 'string' }],
  ['Type', '+kubebuilder:validation:Type=string', 'int32', { format: 'int32', type: 'string' }],
  ['XIntOrString', '+kubebuilder:validation:XIntOrString', 'IntOrString', { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true }],
  ['Quantity', '', 'Quantity', { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$', 'x-kubernetes-int-or-string': true }],
  ['Time and Duration', '', 'Time', { format: 'date-time', type: 'string' }],
  ['RawExtension', '', 'RawExtension', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
  ['XPreserveUnknownFields + Type=object on Schemaless', '+kubebuilder:validation:Schemaless\n  // +kubebuilder:validation:Type=object\n  // +kubebuilder:pruning:PreserveUnknownFields', 'unknown', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
  ['XEmbeddedResource', '+kubebuilder:validation:XEmbeddedResource', 'RawExtension', { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true }],
  ['XValidation', '+kubebuilder:validation:XValidation:rule="self.size() > 0",message="must not be empty",reason=FieldValueForbidden', 'string', { type: 'string', 'x-kubernetes-validations': [{ message: 'must not be empty', reason: 'FieldValueForbidden', rule: 'self.size() > 0' }] }],
  ['kubebuilder:default, bare string', '+kubebuilder:default=Allow', 'string', { default: 'Allow', type: 'string' }],
  ['kubebuilder:default:=, number', '+kubebuilder:default:=5', 'int32', { default: 5, format: 'int32', type: 'integer' }],
  ['kubebuilder:default, object', '+kubebuilder:default={a: "b"}', 'Record<string, string>', { additionalProperties: { type: 'string' }, default: { a: 'b' }, type: 'object' }],
  ['kubebuilder:default={} on a list', '+kubebuilder:default={}', 'string[]', { default: [], items: { type: 'string' }, type: 'array' }],
  ['+default, JSON', '+default="x"', 'string', { default: 'x', type: 'string' }],
  ['+default=ref(...) is ignored', '+default=ref(Foo)', 'string', { type: 'string' }],
  ['kubebuilder:example', '+kubebuilder:example=3', 'int32', { example: 3, format: 'int32', type: 'integer' }],
  ['kubebuilder:title', '+kubebuilder:title="The name"', 'string', { title: 'The name', type: 'string' }],
  ['nullable', '+nullable', 'string', { nullable: true, type: 'string' }],
  ['T | null', '', 'string | null', { nullable: true, type: 'string' }],
  ['listType=set', '+listType=set', 'string[]', { items: { type: 'string' }, type: 'array', 'x-kubernetes-list-type': 'set' }],
  ['listType=map + listMapKey', '+listType=map\n  // +listMapKey=name\n  // +listMapKey=port', 'Array<{ name: string; port: int32 }>', {
    items: { properties: { name: { type: 'string' }, port: { format: 'int32', type: 'integer' } }, required: ['name', 'port'], type: 'object' },
    type: 'array',
    'x-kubernetes-list-map-keys': ['name', 'port'],
    'x-kubernetes-list-type': 'map',
  }],
  ['mapType', '+mapType=atomic', 'Record<string, string>', { additionalProperties: { type: 'string' }, type: 'object', 'x-kubernetes-map-type': 'atomic' }],
  ['structType', '+structType=atomic', '{ a?: string }', { properties: { a: { type: 'string' } }, type: 'object', 'x-kubernetes-map-type': 'atomic' }],
  ['items:Maximum and items:Pattern', '+kubebuilder:validation:items:Maximum=9\n  // +kubebuilder:validation:items:Minimum=1', 'int32[]', { items: { format: 'int32', maximum: 9, minimum: 1, type: 'integer' }, type: 'array' }],
  ['k8s:immutable', '+k8s:immutable', 'string', { type: 'string', 'x-kubernetes-validations': [{ message: 'field is immutable', rule: 'self == oldSelf' }] }],
  ['Bytes', '', 'Bytes', { format: 'byte', type: 'string' }],
];

describe('field markers', () => {
  for (const [name, markers, type, want] of fieldCases) {
    it(name, () => {
      const source = `import type { Bytes } from '@operant/runtime';\nexport interface WidgetSpec {\n  ${markers ? `// ${markers}\n  ` : ''}f?: ${type};\n}`;
      assert.deepEqual(specSchema(source).properties.f, want);
    });
  }
});

describe('presence', () => {
  it('required unless ? or +optional; +required and +kubebuilder:validation:Required force it; the list is sorted', () => {
    const spec = specSchema(`export interface WidgetSpec {
  zeta: string;
  alpha?: string;
  // +optional
  beta: string;
  // +required
  gamma?: string;
  // +kubebuilder:validation:Required
  delta?: string;
  // +kubebuilder:validation:Optional
  epsilon: string;
}`);
    assert.deepEqual(spec.required, ['delta', 'gamma', 'zeta']);
  });

  it('+kubebuilder:validation:Optional on the package makes fields optional by default', () => {
    const dir = writeProject({
      'api/v1/groupversion-info.ts': '// +groupName=example.com\n// +kubebuilder:validation:Optional\nexport {};\n',
      'api/v1/t.ts': `import type { ObjectMeta } from '@operant/runtime';
export interface WidgetSpec { a: string; // +required
b: string }
// +kubebuilder:object:root=true
export interface Widget { metadata?: ObjectMeta; spec: WidgetSpec }`,
    });
    const schema = generatedCrds(dir)[0].spec.versions[0].schema.openAPIV3Schema;
    assert.equal(schema.required, undefined);
  });
});

describe('types and descriptions', () => {
  it('a marker on a type alias applies wherever it is used, and the doc becomes the description', () => {
    const spec = specSchema(`/**
 * Policy says what happens.
 * TODO: not for users
 * +kubebuilder:validation:Enum=A;B
 */
export type Policy = string;
export interface WidgetSpec {
  /** The first policy. */
  first?: Policy;
  second?: Policy;
}`);
    assert.deepEqual(spec.properties.first, { description: 'The first policy.', enum: ['A', 'B'], type: 'string' });
    assert.deepEqual(spec.properties.second, { description: 'Policy says what happens.', enum: ['A', 'B'], type: 'string' });
  });

  it('interfaces extending others inline their fields (Go\'s embedded structs)', () => {
    const spec = specSchema(`interface Base { name: string; labels?: Record<string, string> }
export interface WidgetSpec extends Base { size?: int32 }`);
    assert.deepEqual(Object.keys(spec.properties).sort(), ['labels', 'name', 'size']);
    assert.deepEqual(spec.required, ['name']);
  });

  it('descriptions keep paragraphs, drop markers and stop at ---', () => {
    const spec = specSchema(`export interface WidgetSpec {
  // First line
  // second line.
  //
  // Second paragraph.
  // ---
  // For developers only.
  // +optional
  f?: string;
}`);
    assert.equal(spec.properties.f.description, 'First line\nsecond line.\n\nSecond paragraph.');
  });

  it('--max-description-length cuts at a sentence boundary', () => {
    const spec = specSchema('export interface WidgetSpec {\n  // One sentence here. Another that is long.\n  f?: string;\n}', 25);
    assert.equal(spec.properties.f.description, 'One sentence here.');
  });
});

describe('CRD markers', () => {
  const crdOf = (markers: string, extra = ''): Record<string, any> => {
    const dir = writeProject({
      'api/v1/groupversion-info.ts': GROUP_INFO,
      'api/v1/t.ts': `import type { ObjectMeta, int32 } from '@operant/runtime';
export interface FooSpec { replicas?: int32 }
export interface FooStatus { replicas?: int32; selector?: string }
${markers}
export interface Foo { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: FooSpec; status?: FooStatus }
${extra}`,
    });
    return generatedCrds(dir)[0];
  };

  it('resource: path, singular, shortName, categories, scope', () => {
    const crd = crdOf('// +kubebuilder:object:root=true\n// +kubebuilder:resource:path=foozles,singular=foozle,shortName=fz;fzz,categories=all,scope=Cluster');
    assert.equal(crd.metadata.name, 'foozles.example.com');
    assert.deepEqual(crd.spec.names, { categories: ['all'], kind: 'Foo', listKind: 'FooList', plural: 'foozles', shortNames: ['fz', 'fzz'], singular: 'foozle' });
    assert.equal(crd.spec.scope, 'Cluster');
  });

  it('a printer column without subresources gives subresources: {}, as controller-gen writes it', () => {
    const v = crdOf('// +kubebuilder:object:root=true\n// +kubebuilder:printcolumn:name="R",type=integer,JSONPath=".spec.replicas"').spec.versions[0];
    assert.deepEqual(v.subresources, {});
  });

  it('+genclient:nonNamespaced makes the kind cluster-scoped', () => {
    assert.equal(crdOf('// +kubebuilder:object:root=true\n// +genclient\n// +genclient:nonNamespaced').spec.scope, 'Cluster');
  });

  it('subresources, printer columns, selectable fields, metadata', () => {
    const crd = crdOf(`// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas",description="wanted"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp",priority=1
// +kubebuilder:selectablefield:JSONPath=".spec.replicas"
// +kubebuilder:metadata:annotations="team=platform",labels="tier=core"`);
    const v = crd.spec.versions[0];
    assert.deepEqual(v.subresources, { scale: { labelSelectorPath: '.status.selector', specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' }, status: {} });
    assert.deepEqual(v.additionalPrinterColumns, [
      { description: 'wanted', jsonPath: '.spec.replicas', name: 'Replicas', type: 'integer' },
      { jsonPath: '.metadata.creationTimestamp', name: 'Age', priority: 1, type: 'date' },
    ]);
    assert.deepEqual(v.selectableFields, [{ jsonPath: '.spec.replicas' }]);
    assert.equal(crd.metadata.annotations.team, 'platform');
    assert.deepEqual(crd.metadata.labels, { tier: 'core' });
  });

  it('several versions make one CRD; +kubebuilder:storageversion picks the stored one', () => {
    const kind = (v: string, storage: boolean, extra = ''): string => `import type { ObjectMeta } from '@operant/runtime';
// +kubebuilder:object:root=true
${storage ? '// +kubebuilder:storageversion\n' : ''}${extra}export interface Foo { metadata?: ObjectMeta; spec?: { v${v}?: string } }`;
    const dir = writeProject({
      'api/v1/groupversion-info.ts': GROUP_INFO,
      'api/v1/foo.ts': kind('1', false, '// +kubebuilder:deprecatedversion:warning="use v2"\n'),
      'api/v2/groupversion-info.ts': GROUP_INFO,
      'api/v2/foo.ts': kind('2', true, '// +kubebuilder:unservedversion\n'),
    });
    const crds = generatedCrds(dir);
    assert.equal(crds.length, 1);
    const [v1, v2] = crds[0].spec.versions;
    assert.deepEqual([v1.name, v1.served, v1.storage, v1.deprecated, v1.deprecationWarning], ['v1', true, false, true, 'use v2']);
    assert.deepEqual([v2.name, v2.served, v2.storage], ['v2', false, true]);
  });
});

describe('flattening, as controller-gen merges a field over its type', () => {
  it('a bound on both the type and the field stays twice in an allOf, as Go\'s pointers keep it', () => {
    const spec = specSchema(`// +kubebuilder:validation:MaxLength=10
export type Name = string;
export interface WidgetSpec {
  // +kubebuilder:validation:MaxLength=5
  short?: Name;
  // +kubebuilder:validation:MaxLength=10
  same?: Name;
  plain?: Name;
}`);
    assert.deepEqual(spec.properties.short, { allOf: [{ maxLength: 10 }, { maxLength: 5 }], type: 'string' });
    assert.deepEqual(spec.properties.same, { allOf: [{ maxLength: 10 }, { maxLength: 10 }], type: 'string' });
    assert.deepEqual(spec.properties.plain, { maxLength: 10, type: 'string' });
  });

  it('the type\'s enum wins over the field\'s; the field\'s CEL rules come first', () => {
    const spec = specSchema(`// +kubebuilder:validation:XValidation:rule="self != 'x'"
export type Mode = 'a' | 'b';
export interface WidgetSpec {
  // +kubebuilder:validation:Enum=c
  // +kubebuilder:validation:XValidation:rule="self != 'y'"
  mode?: Mode;
}`);
    assert.deepEqual(spec.properties.mode, {
      enum: ['a', 'b'],
      type: 'string',
      'x-kubernetes-validations': [{ rule: "self != 'y'" }, { rule: "self != 'x'" }],
    });
  });
});

describe('type-level validation markers', () => {
  it('AtMostOneOf, ExactlyOneOf and AtLeastOneOf become CEL rules, in that order', () => {
    const spec = specSchema(`// +kubebuilder:validation:ExactlyOneOf=a;b
// +kubebuilder:validation:AtMostOneOf=c;d
// +kubebuilder:validation:AtLeastOneOf=a;c
export interface WidgetSpec { a?: string; b?: string; c?: string; d?: string }`);
    assert.deepEqual(spec['x-kubernetes-validations'], [
      { message: 'at most one of the fields in [c d] may be set', rule: '[has(self.c),has(self.d)].filter(x,x==true).size() <= 1' },
      { message: 'exactly one of the fields in [a b] must be set', rule: '[has(self.a),has(self.b)].filter(x,x==true).size() == 1' },
      { message: 'at least one of the fields in [a c] must be set', rule: '[has(self.a),has(self.c)].filter(x,x==true).size() >= 1' },
    ]);
  });

  it('items:XValidation applies to each item', () => {
    const spec = specSchema(`export interface WidgetSpec {
  // +kubebuilder:validation:items:XValidation:rule="self.startsWith('a')",message="must start with a"
  names?: string[];
}`);
    assert.deepEqual(spec.properties.names.items, { type: 'string', 'x-kubernetes-validations': [{ message: 'must start with a', rule: "self.startsWith('a')" }] });
  });

  it('+k8s:enum is accepted on a union type and changes nothing', () => {
    const spec = specSchema("// +k8s:enum\nexport type Mode = 'a' | 'b';\nexport interface WidgetSpec { mode?: Mode }");
    assert.deepEqual(spec.properties.mode, { enum: ['a', 'b'], type: 'string' });
  });

  it('+kubebuilder:skipversion leaves a version out of the CRD', () => {
    const kind = (skip: boolean): string => `import type { ObjectMeta } from '@operant/runtime';
// +kubebuilder:object:root=true
// +kubebuilder:storageversion${skip ? '\n// +kubebuilder:skipversion' : ''}
export interface Foo { metadata?: ObjectMeta }`;
    const dir = writeProject({
      'api/v1/g.ts': GROUP_INFO,
      'api/v1/foo.ts': kind(false),
      'api/v2alpha1/g.ts': GROUP_INFO,
      'api/v2alpha1/foo.ts': kind(true).replace('// +kubebuilder:storageversion\n', ''),
    });
    assert.deepEqual(generatedCrds(dir)[0].spec.versions.map((v: { name: string }) => v.name), ['v1']);
  });
});

describe('comments', () => {
  it('a comment trailing the previous field is not the next field\'s doc', () => {
    const spec = specSchema(`export interface WidgetSpec {
  a?: string; // +kubebuilder:validation:MaxLength=3
  b?: string;
}`);
    assert.deepEqual(spec.properties.b, { type: 'string' });
  });

  it('JSDoc comments work as // comments do', () => {
    const spec = specSchema(`export interface WidgetSpec {
  /**
   * The size.
   * +kubebuilder:validation:Minimum=1
   */
  size?: int32;
}`);
    assert.deepEqual(spec.properties.size, { description: 'The size.', format: 'int32', minimum: 1, type: 'integer' });
  });
});

describe('embedded types', () => {
  it('markers above `extends` apply to the inlined type, as on Go\'s embedded field (Kruise\'s SidecarContainer)', () => {
    const spec = specSchema(`import type { Container } from 'kubernetes-types/core/v1.js';
export interface SidecarContainer
  // +kubebuilder:pruning:PreserveUnknownFields
  // +kubebuilder:validation:Schemaless
  extends Container {
  // +optional
  podInjectPolicy?: string;
}
export interface WidgetSpec {
  containers?: SidecarContainer[];
}`);
    assert.deepEqual(spec.properties.containers.items, {
      properties: { podInjectPolicy: { type: 'string' } },
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('+patchMergeKey and +patchStrategy of k8s.io/api-style fields are accepted and change nothing', () => {
    const spec = specSchema(`export interface WidgetSpec {
  // +patchMergeKey=name
  // +patchStrategy=merge
  // +listType=map
  // +listMapKey=name
  items?: Array<{ name: string }>;
}`);
    assert.equal(spec.properties.items['x-kubernetes-list-type'], 'map');
  });
});
