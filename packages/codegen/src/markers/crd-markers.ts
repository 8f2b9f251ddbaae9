/**
 * The CRD markers: schema validation (`+kubebuilder:validation:*` and its
 * `items:` forms), defaults, list and map topology, and the markers that shape
 * the CustomResourceDefinition itself. Each schema marker carries its own edit,
 * with controller-tools' checks and error texts (pkg/crd/markers).
 */
import { Arg, type ArgValue } from './arguments.js';
import type { ArgSpec, MarkerDefinition, MarkerTarget } from './definition.js';
import { isNumeric, isTextual, type JSONSchemaProps } from '../schema/props.js';

const FIELD_AND_TYPE: readonly MarkerTarget[] = ['field', 'type'];
const DEFAULT_PRIORITY = 10;

type Apply = (schema: JSONSchemaProps, value: ArgValue) => void;

function schemaMarker(
  name: string,
  targets: readonly MarkerTarget[],
  help: string,
  arg: { anonymous?: ArgSpec; args?: Record<string, ArgSpec> },
  applyToSchema: Apply,
  priority = DEFAULT_PRIORITY,
  category = 'CRD validation',
): MarkerDefinition {
  return { name, targets, help, category, ...arg, applyToSchema, priority };
}

const isIntegral = (n: number): boolean => Number.isInteger(n);

function numericBound(key: 'maximum' | 'minimum' | 'multipleOf', label: string): Apply {
  return (s, v) => {
    if (!isNumeric(s)) throw new Error(`must apply ${label} to a numeric value, found ${s.type ?? ''}`);
    const n = v as number;
    if (s.type === 'integer' && !isIntegral(n)) throw new Error(`cannot apply non-integral ${label} validation (${n}) to integer value`);
    s[key] = n;
  };
}

function textual(key: 'maxLength' | 'minLength' | 'pattern', label: string): Apply {
  return (s, v) => {
    if (!isTextual(s)) throw new Error(`must apply ${label} to a textual value, found type ${JSON.stringify(s.type ?? '')}`);
    (s as Record<string, unknown>)[key] = v;
  };
}

function arrayOnly(key: 'maxItems' | 'minItems' | 'uniqueItems', label: string): Apply {
  return (s, v) => {
    if (s.type !== 'array') throw new Error(`must apply ${label} to an array`);
    (s as Record<string, unknown>)[key] = v;
  };
}

function objectOnly(key: 'maxProperties' | 'minProperties', label: string): Apply {
  return (s, v) => {
    if (s.type !== 'object') throw new Error(`must apply ${label} to an object`);
    s[key] = v as number;
  };
}

const VALIDATION_REASONS = ['FieldValueRequired', 'FieldValueInvalid', 'FieldValueForbidden', 'FieldValueDuplicate'];

const applyXValidation: Apply = (s, v) => {
  const a = v as Record<string, ArgValue>;
  const reason = a.reason as string | undefined;
  if (reason && !VALIDATION_REASONS.includes(reason)) {
    throw new Error(`invalid reason ${reason}, valid values are FieldValueRequired, FieldValueInvalid, FieldValueForbidden and FieldValueDuplicate`);
  }
  const rule: NonNullable<JSONSchemaProps['x-kubernetes-validations']>[number] = { rule: a.rule as string };
  if (a.message) rule.message = a.message as string;
  if (a.messageExpression) rule.messageExpression = a.messageExpression as string;
  if (reason) rule.reason = reason;
  if (a.fieldPath) rule.fieldPath = a.fieldPath as string;
  if (a.optionalOldSelf !== undefined) rule.optionalOldSelf = a.optionalOldSelf as boolean;
  (s['x-kubernetes-validations'] ??= []).push(rule);
};

/** The markers under `+kubebuilder:validation:`, valid on fields and types, each also with an `items:` form. */
const validationMarkers: Array<[string, string, ArgSpec, Apply, number?]> = [
  ['Maximum', 'specifies the maximum numeric value that this field can have.', { type: Arg.number }, numericBound('maximum', 'maximum')],
  ['Minimum', 'specifies the minimum numeric value that this field can have. Negative numbers are supported.', { type: Arg.number }, numericBound('minimum', 'minimum')],
  [
    'ExclusiveMaximum',
    'indicates that the maximum is "up to" but not including that value.',
    { type: Arg.bool },
    (s, v) => {
      if (!isNumeric(s)) throw new Error(`must apply exclusivemaximum to a numeric value, found ${s.type ?? ''}`);
      s.exclusiveMaximum = v as boolean;
    },
  ],
  [
    'ExclusiveMinimum',
    'indicates that the minimum is "up to" but not including that value.',
    { type: Arg.bool },
    (s, v) => {
      if (!isNumeric(s)) throw new Error(`must apply exclusiveminimum to a numeric value, found ${s.type ?? ''}`);
      s.exclusiveMinimum = v as boolean;
    },
  ],
  ['MultipleOf', 'specifies that this field must have a numeric value that\'s a multiple of this one.', { type: Arg.number }, numericBound('multipleOf', 'multipleof')],
  ['MinProperties', 'restricts the number of keys in an object', { type: Arg.int }, objectOnly('minProperties', 'minproperties')],
  ['MaxProperties', 'restricts the number of keys in an object', { type: Arg.int }, objectOnly('maxProperties', 'maxproperties')],
  ['MaxLength', 'specifies the maximum length for this string.', { type: Arg.int }, textual('maxLength', 'maxlength')],
  ['MinLength', 'specifies the minimum length for this string.', { type: Arg.int }, textual('minLength', 'minlength')],
  ['Pattern', 'specifies that this string must match the given regular expression.', { type: Arg.string }, textual('pattern', 'pattern')],
  ['MaxItems', 'specifies the maximum length for this list.', { type: Arg.int }, arrayOnly('maxItems', 'maxitem')],
  ['MinItems', 'specifies the minimum length for this list.', { type: Arg.int }, arrayOnly('minItems', 'minitems')],
  ['UniqueItems', 'specifies that all items in this list must be unique.', { type: Arg.bool }, arrayOnly('uniqueItems', 'uniqueitems')],
  ['Enum', 'specifies that this (scalar) field is restricted to the *exact* values specified here.', { type: Arg.anys }, (s, v) => void (s.enum = v as unknown[])],
  ['Format', 'specifies additional "complex" formatting for this field.', { type: Arg.string }, (s, v) => void (s.format = v as string)],
  ['Type', 'overrides the type for this field (which defaults to the equivalent of the Go type).', { type: Arg.string }, (s, v) => void (s.type = v as string), DEFAULT_PRIORITY - 1],
  [
    'XPreserveUnknownFields',
    'stops the apiserver from pruning fields which are not specified.',
    { type: Arg.bool, optional: true },
    (s) => void (s['x-kubernetes-preserve-unknown-fields'] = true),
  ],
  ['XEmbeddedResource', 'marks a field as an embedded resource with apiVersion, kind and metadata fields.', { type: Arg.bool, optional: true }, (s) => void (s['x-kubernetes-embedded-resource'] = true)],
  ['XIntOrString', 'marks a fields as an IntOrString.', { type: Arg.bool, optional: true }, (s) => void (s['x-kubernetes-int-or-string'] = true), DEFAULT_PRIORITY - 1],
];

const xValidationArgs: Record<string, ArgSpec> = {
  rule: { type: Arg.string, help: 'the CEL expression' },
  message: { type: Arg.string, optional: true, help: 'the message shown when the rule fails' },
  messageExpression: { type: Arg.string, optional: true, help: 'a CEL expression that evaluates to the message' },
  reason: { type: Arg.string, optional: true, help: 'FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or FieldValueDuplicate' },
  fieldPath: { type: Arg.string, optional: true, help: 'the path of the field the error is reported on' },
  optionalOldSelf: { type: Arg.bool, optional: true, help: 'run the transition rule on create too, with oldSelf optional' },
};

function validationDefinitions(): MarkerDefinition[] {
  const out: MarkerDefinition[] = [];
  const flag = (spec: ArgSpec): { anonymous?: ArgSpec; args?: Record<string, ArgSpec> } =>
    spec.optional ? { args: {} } : { anonymous: spec };
  for (const [short, help, spec, apply, priority] of validationMarkers) {
    out.push(schemaMarker(`kubebuilder:validation:${short}`, FIELD_AND_TYPE, help, flag(spec), apply, priority));
    out.push({ ...schemaMarker(`kubebuilder:validation:items:${short}`, FIELD_AND_TYPE, `for array items ${help}`, flag(spec), apply, priority), items: true });
  }
  const xv = 'marks a field as requiring a value for which a given expression evaluates to true.';
  out.push(schemaMarker('kubebuilder:validation:XValidation', FIELD_AND_TYPE, xv, { args: xValidationArgs }, applyXValidation));
  out.push({ ...schemaMarker('kubebuilder:validation:items:XValidation', FIELD_AND_TYPE, `for array items ${xv}`, { args: xValidationArgs }, applyXValidation), items: true });
  return out;
}

function oneOfRule(fields: string[]): string {
  return `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
}

function oneOfMarker(name: string, help: string, cmp: string, message: (f: string) => string, priority: number): MarkerDefinition {
  return schemaMarker(
    `kubebuilder:validation:${name}`,
    ['type'],
    help,
    { anonymous: { type: Arg.strings } },
    (s, v) => {
      const fields = v as string[];
      const nested = fields.filter((f) => f.includes('.'));
      if (nested.length > 0) throw new Error(`kubebuilder:validation:${name}: cannot reference nested fields: ${nested.join(',')}`);
      if (fields.length === 0) return;
      (s['x-kubernetes-validations'] ??= []).push({ rule: `${oneOfRule(fields)} ${cmp}`, message: message(`[${fields.join(' ')}]`) });
    },
    priority,
  );
}

const flagArgs = { args: {} };

/** Markers that only make sense on a field: presence, defaults, examples, embedded resources. */
function fieldOnlyDefinitions(): MarkerDefinition[] {
  const noop = (name: string, help: string): MarkerDefinition => ({ name, targets: ['field'], help, category: 'CRD validation' });
  return [
    noop('kubebuilder:validation:Required', 'specifies that this field is required.'),
    noop('kubebuilder:validation:Optional', 'specifies that this field is optional.'),
    noop('required', 'specifies that this field is required.'),
    noop('optional', 'specifies that this field is optional.'),
    noop('k8s:required', 'specifies that this field is required.'),
    noop('k8s:optional', 'specifies that this field is optional.'),
    schemaMarker('nullable', ['field'], 'marks this field as allowing the "null" value.', flagArgs, (s) => void (s.nullable = true)),
    schemaMarker(
      'kubebuilder:default',
      ['field'],
      'sets the default value for this field. A value that can be parsed as JSON is used as such: numbers, true/false, {"a": 1}, [1, 2]; anything else is a string.',
      { anonymous: { type: Arg.any } },
      (s, v) => {
        s.default = s.type === 'array' && isEmptyObject(v) ? [] : v;
      },
      10,
    ),
    schemaMarker(
      'default',
      ['field'],
      'sets the default value for this field, written as JSON (+default="a", +default=1, +default={}); +default=ref(...) is accepted and ignored, as controller-gen ignores it.',
      { anonymous: { type: Arg.raw } },
      (s, v) => {
        const raw = String(v).trim();
        if (raw.startsWith('ref(')) return;
        try {
          s.default = JSON.parse(raw) as unknown;
        } catch {
          throw new Error(`+default takes a JSON value (quote strings: +default="${raw}")`);
        }
      },
      9,
    ),
    schemaMarker('kubebuilder:example', ['field'], 'sets the example value for this field.', { anonymous: { type: Arg.any } }, (s, v) => void (s.example = v)),
    schemaMarker('kubebuilder:validation:EmbeddedResource', ['field'], 'marks a field as an embedded resource with apiVersion, kind and metadata fields.', flagArgs, (s) => void (s['x-kubernetes-embedded-resource'] = true)),
    {
      name: 'kubebuilder:validation:Schemaless',
      targets: ['field'],
      help: 'marks a field as being a schemaless object: its schema is empty, and other markers say what to allow (e.g. +kubebuilder:validation:Type=object and +kubebuilder:pruning:PreserveUnknownFields).',
      category: 'CRD validation',
    },
    schemaMarker('k8s:immutable', ['field'], 'marks a field as immutable once set: a CEL rule self == oldSelf.', flagArgs, (s) => {
      (s['x-kubernetes-validations'] ??= []).push({ rule: 'self == oldSelf', message: 'field is immutable' });
    }),
  ];
}

function isEmptyObject(v: ArgValue): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
}

function typeOnlyDefinitions(): MarkerDefinition[] {
  return [
    oneOfMarker('AtMostOneOf', 'specifies a list of field names that must conform to the AtMostOneOf constraint.', '<= 1', (f) => `at most one of the fields in ${f} may be set`, 11),
    oneOfMarker('ExactlyOneOf', 'specifies a list of field names that must conform to the ExactlyOneOf constraint.', '== 1', (f) => `exactly one of the fields in ${f} must be set`, 12),
    oneOfMarker('AtLeastOneOf', 'specifies a list of field names that must conform to the AtLeastOneOf constraint.', '>= 1', (f) => `at least one of the fields in ${f} must be set`, 13),
    {
      name: 'k8s:enum',
      targets: ['type'],
      help: 'indicates that the given type is an enum. In TypeScript, a union of string literals already is one; the marker is accepted for ports of Go files.',
      category: 'CRD',
    },
  ];
}

function validationIshDefinitions(): MarkerDefinition[] {
  const preserve = (s: JSONSchemaProps): void => void (s['x-kubernetes-preserve-unknown-fields'] = true);
  const title: Apply = (s, v) => {
    if (v === null) return;
    if (typeof v !== 'string') throw new Error(`expected string, got ${typeof v}`);
    s.title = v;
  };
  return [
    schemaMarker('kubebuilder:pruning:PreserveUnknownFields', FIELD_AND_TYPE, 'stops the apiserver from pruning fields which are not specified.', flagArgs, preserve, DEFAULT_PRIORITY, 'CRD processing'),
    schemaMarker('kubebuilder:title', FIELD_AND_TYPE, 'sets the title for this field.', { anonymous: { type: Arg.any } }, title, DEFAULT_PRIORITY, 'CRD validation'),
  ];
}

function topology(): MarkerDefinition[] {
  return [
    schemaMarker(
      'listType',
      FIELD_AND_TYPE,
      'specifies the type of data-structure that the list represents (map, set, atomic).',
      { anonymous: { type: Arg.string } },
      (s, v) => {
        if (s.type !== 'array') throw new Error(`must apply listType to an array, found ${s.type ?? ''}`);
        if (v !== 'map' && v !== 'atomic' && v !== 'set') throw new Error('ListType must be either "map", "set" or "atomic"');
        s['x-kubernetes-list-type'] = v;
      },
      DEFAULT_PRIORITY - 1,
      'CRD processing',
    ),
    schemaMarker(
      'listMapKey',
      FIELD_AND_TYPE,
      'specifies the keys to map listTypes. Repeat it for several keys.',
      { anonymous: { type: Arg.string } },
      (s, v) => {
        if (s.type !== 'array') throw new Error(`must apply listMapKey to an array, found ${s.type ?? ''}`);
        if (s['x-kubernetes-list-type'] !== 'map') throw new Error('must apply listMapKey to an associative-list');
        (s['x-kubernetes-list-map-keys'] ??= []).push(v as string);
      },
      DEFAULT_PRIORITY,
      'CRD processing',
    ),
    schemaMarker(
      'mapType',
      FIELD_AND_TYPE,
      'specifies the level of atomicity of the map; i.e. whether each item in the map is independent of the others, or all fields are treated as a single unit.',
      { anonymous: { type: Arg.string } },
      (s, v) => {
        if (s.type !== 'object') throw new Error('must apply mapType to an object');
        if (v !== 'atomic' && v !== 'granular') throw new Error('MapType must be either "granular" or "atomic"');
        s['x-kubernetes-map-type'] = v;
      },
      DEFAULT_PRIORITY,
      'CRD processing',
    ),
    schemaMarker(
      'structType',
      FIELD_AND_TYPE,
      'specifies the level of atomicity of the struct; i.e. whether each field in the struct is independent of the others, or all fields are treated as a single unit.',
      { anonymous: { type: Arg.string } },
      (s, v) => {
        if (s.type !== 'object' && s.type !== undefined) throw new Error('must apply structType to an object; either explicitly set or defaulted through an empty schema type');
        if (v !== 'atomic' && v !== 'granular') throw new Error('StructType must be either "granular" or "atomic"');
        s['x-kubernetes-map-type'] = v;
      },
      DEFAULT_PRIORITY,
      'CRD processing',
    ),
  ];
}

const printColumnArgs: Record<string, ArgSpec> = {
  name: { type: Arg.string, help: 'the column header' },
  type: { type: Arg.string, help: 'integer, number, string, boolean or date' },
  JSONPath: { type: Arg.string, help: 'the JSONPath of the value, e.g. .spec.replicas' },
  description: { type: Arg.string, optional: true, help: 'the column description' },
  format: { type: Arg.string, optional: true, help: 'the value format, e.g. int32, date-time, byte' },
  priority: { type: Arg.int, optional: true, help: '0 in the default view, more than 0 in -o wide only' },
};

/** Markers that shape the CustomResourceDefinition rather than a schema. */
function crdDefinitions(): MarkerDefinition[] {
  const crd = (name: string, targets: readonly MarkerTarget[], help: string, arg: { anonymous?: ArgSpec; args?: Record<string, ArgSpec> } = flagArgs): MarkerDefinition => ({
    name,
    targets,
    help,
    category: 'CRD',
    ...arg,
  });
  return [
    crd('groupName', ['package'], 'specifies the API group name for this package (in TypeScript: a comment in groupversion-info.ts).', { anonymous: { type: Arg.string } }),
    crd('versionName', ['package'], 'overrides the API group version for this package (defaults to the directory name).', { anonymous: { type: Arg.string } }),
    crd('kubebuilder:validation:Optional', ['package'], 'specifies that all fields in this package are optional by default.'),
    crd('kubebuilder:validation:Required', ['package'], 'specifies that all fields in this package are required by default.'),
    crd('kubebuilder:skip', ['package'], "don't consider this package as an API version."),
    crd('kubebuilder:object:root', ['type'], 'marks a type as a kind: a CRD is generated for it.', { anonymous: { type: Arg.bool } }),
    crd('kubebuilder:skipversion', ['type'], 'removes the version of this type from the CRD.'),
    crd('kubebuilder:storageversion', ['type'], 'marks this version as the "storage version" for the CRD for conversion.'),
    crd('kubebuilder:unservedversion', ['type'], 'does not serve this version.'),
    crd(
      'kubebuilder:deprecatedversion',
      ['type'],
      'marks this version as deprecated.',
      { args: { warning: { type: Arg.string, optional: true, help: 'the message returned to API clients that use this version' } } },
    ),
    crd('kubebuilder:subresource:status', ['type'], 'enables the "/status" subresource on a CRD.'),
    crd('kubebuilder:subresource:scale', ['type'], 'enables the "/scale" subresource on a CRD.', {
      args: {
        specpath: { type: Arg.string, help: 'the JSONPath of spec.replicas' },
        statuspath: { type: Arg.string, help: 'the JSONPath of status.replicas' },
        selectorpath: { type: Arg.string, optional: true, help: 'the JSONPath of status.selector' },
      },
    }),
    crd('kubebuilder:printcolumn', ['type'], 'adds a column to "kubectl get" output for this CRD.', { args: printColumnArgs }),
    crd('kubebuilder:resource', ['type'], 'configures naming and scope for a CRD.', {
      args: {
        path: { type: Arg.string, optional: true, help: 'the plural name (the URL path segment)' },
        shortName: { type: Arg.strings, optional: true, help: 'aliases for kubectl, separated by ;' },
        categories: { type: Arg.strings, optional: true, help: 'groups of resources, e.g. all' },
        singular: { type: Arg.string, optional: true, help: 'the singular name' },
        scope: { type: Arg.string, optional: true, help: 'Namespaced (the default) or Cluster' },
      },
    }),
    crd('kubebuilder:selectablefield', ['type'], 'adds a field that may be used with field selectors.', {
      args: { JSONPath: { type: Arg.string, help: 'the JSONPath of the field, e.g. .spec.color' } },
    }),
    crd('kubebuilder:metadata', ['type'], 'configures the additional annotations or labels for this CRD.', {
      args: {
        annotations: { type: Arg.strings, optional: true, help: 'key=value pairs, separated by ;' },
        labels: { type: Arg.strings, optional: true, help: 'key=value pairs, separated by ;' },
      },
    }),
    crd('genclient:nonNamespaced', ['type'], 'marks a kind as cluster-scoped (read by client-gen; controller-gen reads it for the scope too).'),
  ];
}

/** Markers of other Go generators, accepted so that Go files port line by line; they change nothing here. */
function portedNoops(): MarkerDefinition[] {
  const noop = (name: string, targets: readonly MarkerTarget[], arg: { anonymous?: ArgSpec } = {}): MarkerDefinition => ({
    name,
    targets,
    help: 'accepted for Go ports and scaffolding; no effect on what is generated.',
    category: 'Accepted from Go',
    ...arg,
  });
  return [
    noop('genclient', ['type']),
    noop('k8s:deepcopy-gen', ['package', 'type'], { anonymous: { type: Arg.raw, optional: true } }),
    noop('k8s:deepcopy-gen:interfaces', ['type'], { anonymous: { type: Arg.raw } }),
    noop('k8s:openapi-gen', ['package', 'type'], { anonymous: { type: Arg.raw } }),
    noop('kubebuilder:object:generate', ['package', 'type'], { anonymous: { type: Arg.bool } }),
    noop('kubebuilder:docs-gen:collapse', ['package', 'type', 'field'], { anonymous: { type: Arg.raw } }),
    // Strategic-merge and protobuf facts of k8s.io/api style types; controller-gen skips them too.
    noop('patchMergeKey', ['field'], { anonymous: { type: Arg.raw } }),
    noop('patchStrategy', ['field'], { anonymous: { type: Arg.raw } }),
    noop('protobuf', ['field', 'type'], { anonymous: { type: Arg.raw } }),
    // Where `operant create` inserts code in src/main.ts, as kubebuilder's scaffold markers in cmd/main.go.
    noop('kubebuilder:scaffold:imports', ['package']),
    noop('kubebuilder:scaffold:builder', ['package']),
    noop('kubebuilder:scaffold:webhook', ['package']),
  ];
}

/** Every CRD marker, in the order of the reference. */
export function crdMarkerDefinitions(): MarkerDefinition[] {
  return [
    ...crdDefinitions(),
    ...validationDefinitions(),
    ...fieldOnlyDefinitions(),
    ...typeOnlyDefinitions(),
    ...validationIshDefinitions(),
    ...topology(),
    ...portedNoops(),
  ];
}
