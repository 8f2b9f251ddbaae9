/**
 * Generates `src/openapi/builtin-schemas.json`: OpenAPI v3 schemas of the
 * built-in kinds the embedded server serves, shaped like kube-apiserver's own
 * `components.schemas`.
 *
 * Source: the `kubernetes-types` declarations (TypeScript types of every
 * built-in kind, with kube's descriptions as JSDoc), read with ts-morph. What
 * the declarations cannot say is added from small tables here (integer
 * formats, byte strings, the special scalar types) and in
 * `src/openapi/patch-strategies.ts` (strategic-merge and list-type facts).
 * The kinds the declarations lack (kube-aggregator's APIService) come from
 * `@kubernetes/client-node`'s models instead (client-node-models.ts).
 *
 * Run: node --import tsx packages/apiserver/scripts/gen-builtin-schemas.ts
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Node,
  Project,
  type InterfaceDeclaration,
  type PropertySignature,
  type TypeAliasDeclaration,
  type TypeNode,
} from 'ts-morph';
import type { OpenApiSchema } from '@operant/apimachinery';
import { builtinResources, groupVersions } from '../src/registry/builtin-resources.js';
import { applyPatchStrategies } from '../src/openapi/patch-strategies.js';
import { readClientNodeModels } from './client-node-models.js';

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, '..', 'src', 'openapi', 'builtin-schemas.json');
const require = createRequire(import.meta.url);
const typesDir = dirname(require.resolve('kubernetes-types/package.json'));

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const CORE = 'io.k8s.api.core.v1';
const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const REF_PREFIX = '#/components/schemas/';

// ---------------------------------------------------------------------------
// Names: declaration file -> OpenAPI definition prefix.

/** Maps a declaration file (relative to kubernetes-types, no extension) to kube's definition prefix. */
function prefixForFile(rel: string): string {
  switch (rel) {
    case 'meta/v1':
      return META;
    case 'runtime':
      return 'io.k8s.apimachinery.pkg.runtime';
    case 'api/resource':
      return 'io.k8s.apimachinery.pkg.api.resource';
    case 'version':
      return 'io.k8s.apimachinery.pkg.version';
    case 'apiextensions/v1':
      return APIEXT;
  }
  const parts = rel.split('/');
  if (parts.length !== 2) throw new Error(`no definition prefix known for kubernetes-types/${rel}`);
  return `io.k8s.api.${parts[0]}.${parts[1]}`;
}

type Declaration = InterfaceDeclaration | TypeAliasDeclaration;

function definitionName(decl: Declaration): string {
  const rel = relative(typesDir, decl.getSourceFile().getFilePath()).split(sep).join('/').replace(/\.d\.ts$/, '');
  return `${prefixForFile(rel)}.${decl.getName()}`;
}

// ---------------------------------------------------------------------------
// What the declarations lack.

/**
 * Integer fields that are int64 in Go (everything else typed `number` is int32,
 * except the floats below). Keyed by property name; kube uses these names
 * consistently for int64 values.
 */
const int64Names = new Set([
  'generation',
  'observedGeneration',
  'deletionGracePeriodSeconds',
  'gracePeriodSeconds',
  'terminationGracePeriodSeconds',
  'activeDeadlineSeconds',
  'startingDeadlineSeconds',
  'tolerationSeconds',
  'runAsUser',
  'runAsGroup',
  'fsGroup',
  'supplementalGroups',
  'expirationSeconds',
  'remainingItemCount',
  'revision',
  'sizeBytes',
  'seconds',
  'maxItems',
  'minItems',
  'maxLength',
  'minLength',
  'maxProperties',
  'minProperties',
]);

/** Fields that are float64 in Go. */
const floatFields: Record<string, string[]> = {
  [`${APIEXT}.JSONSchemaProps`]: ['maximum', 'minimum', 'multipleOf'],
};

/** Fields of strings that carry base64 bytes (`[]byte` in Go), per definition. */
const byteFields: Record<string, string[]> = {
  [`${CORE}.Secret`]: ['data'],
  [`${CORE}.ConfigMap`]: ['binaryData'],
  ['io.k8s.api.admissionregistration.v1.WebhookClientConfig']: ['caBundle'],
  ['io.k8s.api.certificates.v1.CertificateSigningRequestSpec']: ['request'],
  ['io.k8s.api.certificates.v1.CertificateSigningRequestStatus']: ['certificate'],
  [`${APIEXT}.WebhookClientConfig`]: ['caBundle'],
};

/**
 * Definitions kube publishes with a fixed shape instead of what the
 * declarations say (aliases of string, empty interfaces, unions). The opaque
 * ones carry `x-kubernetes-preserve-unknown-fields` so that unknown-field
 * checks do not descend into them.
 */
const specialShapes: Record<string, OpenApiSchema> = {
  [`${META}.Time`]: { type: 'string', format: 'date-time' },
  [`${META}.MicroTime`]: { type: 'string', format: 'date-time' },
  [`${META}.FieldsV1`]: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  [`${META}.Patch`]: { type: 'object' },
  ['io.k8s.apimachinery.pkg.runtime.RawExtension']: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  ['io.k8s.apimachinery.pkg.api.resource.Quantity']: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  [`${APIEXT}.JSON`]: { 'x-kubernetes-preserve-unknown-fields': true },
  [`${APIEXT}.JSONSchemaPropsOrArray`]: { 'x-kubernetes-preserve-unknown-fields': true },
  [`${APIEXT}.JSONSchemaPropsOrBool`]: { 'x-kubernetes-preserve-unknown-fields': true },
  [`${APIEXT}.JSONSchemaPropsOrStringArray`]: { 'x-kubernetes-preserve-unknown-fields': true },
};

/** IntOrString has no declaration (it is `number | string` inline); kube publishes it as a definition. */
const intOrStringDefinition: OpenApiSchema = {
  description:
    'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.',
  format: 'int-or-string',
  oneOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
};

const validationRule = `${APIEXT}.ValidationRule`;

/** The fields of admissionregistration's Rule that its embedding types lack in kubernetes-types. */
const embeddedRuleFields: Record<string, OpenApiSchema> = {
  resources: {
    type: 'array',
    items: { type: 'string', default: '' },
    'x-kubernetes-list-type': 'atomic',
    description:
      "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
  },
  scope: {
    type: 'string',
    description:
      'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".',
  },
};

/** Fields the declarations drop (names that are not identifiers) or that are newer than them (1.31/1.32). */
const extraProperties: Record<string, Record<string, OpenApiSchema>> = {
  [`${APIEXT}.JSONSchemaProps`]: {
    'x-kubernetes-embedded-resource': {
      type: 'boolean',
      description:
        'x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes runtime.Object, with TypeMeta and ObjectMeta. The type must be object. It is allowed to further restrict the embedded object. kind, apiVersion and metadata are validated automatically. x-kubernetes-preserve-unknown-fields is allowed to be true, but does not have to be if the object is fully specified (up to kind, apiVersion, metadata).',
    },
    'x-kubernetes-int-or-string': {
      type: 'boolean',
      description:
        'x-kubernetes-int-or-string specifies that this value is either an integer or a string. If this is true, an empty type is allowed and type as child of anyOf is permitted if following one of the following patterns:\n\n1) anyOf:\n   - type: integer\n   - type: string\n2) allOf:\n   - anyOf:\n     - type: integer\n     - type: string\n   - ... zero or more',
    },
    'x-kubernetes-list-map-keys': {
      type: 'array',
      items: { type: 'string' },
      'x-kubernetes-list-type': 'atomic',
      description:
        'x-kubernetes-list-map-keys annotates an array with the x-kubernetes-list-type `map` by specifying the keys used as the index of the map.\n\nThis tag MUST only be used on lists that have the "x-kubernetes-list-type" extension set to "map". Also, the values specified for this attribute must be a scalar typed field of the child structure (no nesting is supported).\n\nThe properties specified must either be required or have a default value, to ensure those properties are present for all list items.',
    },
    'x-kubernetes-list-type': {
      type: 'string',
      description:
        'x-kubernetes-list-type annotates an array to further describe its topology. This extension must only be used on lists and may have 3 possible values:\n\n1) `atomic`: the list is treated as a single entity, like a scalar.\n     Atomic lists will be entirely replaced when updated. This extension\n     may be used on any type of list (struct, scalar, ...).\n2) `set`:\n     Sets are lists that must not have multiple items with the same value. Each\n     value must be a scalar, an object with x-kubernetes-map-type `atomic` or an\n     array with x-kubernetes-list-type `atomic`.\n3) `map`:\n     These lists are like maps in that their elements have a non-index key\n     used to identify them. Order is preserved upon merge. The map tag\n     must only be used on a list with elements of type object.\nDefaults to atomic for arrays.',
    },
    'x-kubernetes-map-type': {
      type: 'string',
      description:
        'x-kubernetes-map-type annotates an object to further describe its topology. This extension must only be used when type is object and may have 2 possible values:\n\n1) `granular`:\n     These maps are actual maps (key-value pairs) and each fields are independent\n     from each other (they can each be manipulated by separate actors). This is\n     the default behaviour for all maps.\n2) `atomic`: the list is treated as a single entity, like a scalar.\n     Atomic maps will be entirely replaced when updated.',
    },
    'x-kubernetes-preserve-unknown-fields': {
      type: 'boolean',
      description:
        'x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields which are not specified in the validation schema. This affects fields recursively, but switches back to normal pruning behaviour if nested properties or additionalProperties are specified in the schema. This can either be true or undefined. False is forbidden.',
    },
    'x-kubernetes-validations': {
      type: 'array',
      items: { $ref: REF_PREFIX + validationRule },
      description: 'x-kubernetes-validations describes a list of validation rules written in the CEL expression language.',
    },
  },
  [`${CORE}.Volume`]: {
    image: {
      allOf: [{ $ref: `${REF_PREFIX}${CORE}.ImageVolumeSource` }],
      description:
        'image represents an OCI object (a container image or artifact) pulled and mounted on the kubelet\'s host machine.',
    },
  },
  [`${CORE}.PodSecurityContext`]: {
    supplementalGroupsPolicy: {
      type: 'string',
      description:
        'Defines how supplemental groups of the first container processes are calculated. Valid values are "Merge" and "Strict". If not specified, "Merge" is used.',
    },
  },
  // kubernetes-types loses the fields Go embeds from admissionregistration's Rule.
  ['io.k8s.api.admissionregistration.v1.RuleWithOperations']: embeddedRuleFields,
  ['io.k8s.api.admissionregistration.v1.NamedRuleWithOperations']: embeddedRuleFields,
  [`${CORE}.PodSpec`]: {
    resources: {
      allOf: [{ $ref: `${REF_PREFIX}${CORE}.ResourceRequirements` }],
      description:
        'Resources is the total amount of CPU and Memory resources required by all containers in the pod. It supports specifying Requests and Limits for "cpu" and "memory" resource names only. ResourceClaims are not supported.',
    },
  },
};

/** Definitions that exist only because {@link extraProperties} refers to them. */
const extraDefinitions: Record<string, OpenApiSchema> = {
  [`${CORE}.ImageVolumeSource`]: {
    description: 'ImageVolumeSource represents a image volume resource.',
    type: 'object',
    properties: {
      pullPolicy: {
        type: 'string',
        description:
          'Policy for pulling OCI objects. Possible values are: Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise.',
      },
      reference: {
        type: 'string',
        description:
          'Required: Image or artifact reference to be used. Behaves in the same way as pod.spec.containers[*].image.',
      },
    },
  },
};

// ---------------------------------------------------------------------------
// The walk.

const project = new Project({ skipAddingFilesFromTsConfig: true, compilerOptions: { strict: true } });
project.addSourceFilesAtPaths(join(typesDir, '**/*.d.ts'));

/** Every exported interface and alias, by definition name. */
const declarations = new Map<string, Declaration>();
for (const file of project.getSourceFiles()) {
  for (const decl of [...file.getInterfaces(), ...file.getTypeAliases()]) {
    declarations.set(definitionName(decl), decl);
  }
}

const definitions: Record<string, OpenApiSchema> = {};
const queue: string[] = [];

function want(name: string): void {
  if (!(name in definitions) && !queue.includes(name)) queue.push(name);
}

function ref(name: string): OpenApiSchema {
  want(name);
  return { $ref: REF_PREFIX + name };
}

function docText(node: InterfaceDeclaration | TypeAliasDeclaration | PropertySignature): string | undefined {
  const docs = node.getJsDocs();
  if (docs.length === 0) return undefined;
  const text = docs[docs.length - 1].getInnerText().trim();
  return text === '' ? undefined : text;
}

function numberSchema(owner: string, prop: string): OpenApiSchema {
  if (floatFields[owner]?.includes(prop)) return { type: 'number', format: 'double' };
  return { type: 'integer', format: int64Names.has(prop) ? 'int64' : 'int32' };
}

/** The schema of one TypeScript type node, for property `prop` of definition `owner`. */
function schemaOf(node: TypeNode, owner: string, prop: string): OpenApiSchema {
  if (Node.isStringKeyword(node)) {
    return byteFields[owner]?.includes(prop) ? { type: 'string', format: 'byte' } : { type: 'string' };
  }
  if (Node.isNumberKeyword(node)) return numberSchema(owner, prop);
  if (Node.isBooleanKeyword(node)) return { type: 'boolean' };
  if (Node.isLiteralTypeNode(node) && Node.isStringLiteral(node.getLiteral())) return { type: 'string' };
  if (Node.isUnionTypeNode(node)) {
    const members = node.getTypeNodes();
    const kinds = new Set(members.map((m) => m.getKindName()));
    if (kinds.size === 2 && kinds.has('NumberKeyword') && kinds.has('StringKeyword')) return ref(INT_OR_STRING);
    if (members.every((m) => Node.isLiteralTypeNode(m))) return { type: 'string' };
    throw new Error(`${owner}.${prop}: unsupported union ${node.getText()}`);
  }
  if (Node.isArrayTypeNode(node)) {
    return { type: 'array', items: schemaOf(node.getElementTypeNode(), owner, prop) };
  }
  if (Node.isTypeLiteral(node)) {
    const index = node.getIndexSignatures()[0];
    const value = index?.getReturnTypeNode();
    if (!value || node.getProperties().length > 0) throw new Error(`${owner}.${prop}: unsupported literal ${node.getText()}`);
    return { type: 'object', additionalProperties: schemaOf(value, owner, prop) };
  }
  if (Node.isTypeReference(node)) {
    const name = node.getTypeName().getText();
    const args = node.getTypeArguments();
    if (name === 'Array' && args.length === 1) return { type: 'array', items: schemaOf(args[0], owner, prop) };
    let symbol = node.getTypeName().getSymbol();
    if (symbol?.isAlias()) symbol = symbol.getAliasedSymbol() ?? symbol;
    const decl = symbol?.getDeclarations()[0];
    if (decl && (Node.isInterfaceDeclaration(decl) || Node.isTypeAliasDeclaration(decl))) {
      return ref(definitionName(decl));
    }
    throw new Error(`${owner}.${prop}: cannot resolve ${name}`);
  }
  throw new Error(`${owner}.${prop}: unsupported type ${node.getKindName()} ${node.getText()}`);
}

/** A property schema: the type plus its description; a `$ref` with a description is wrapped in `allOf`. */
function propertySchema(prop: PropertySignature, owner: string): OpenApiSchema {
  const typeNode = prop.getTypeNode();
  if (!typeNode) throw new Error(`${owner}.${prop.getName()}: no type`);
  const schema = schemaOf(typeNode, owner, prop.getName());
  const description = docText(prop);
  if (!description) return schema;
  if (schema.$ref) return { allOf: [schema], description };
  return { ...schema, description };
}

function literalOf(prop: PropertySignature | undefined): string | undefined {
  const node = prop?.getTypeNode();
  if (node && Node.isLiteralTypeNode(node)) {
    const lit = node.getLiteral();
    if (Node.isStringLiteral(lit)) return lit.getLiteralValue();
  }
  return undefined;
}

/** `x-kubernetes-group-version-kind` from the `apiVersion` and `kind` literal types of a top-level kind. */
function gvkOf(decl: InterfaceDeclaration): Array<{ group: string; version: string; kind: string }> | undefined {
  const apiVersion = literalOf(decl.getProperty('apiVersion'));
  const kind = literalOf(decl.getProperty('kind'));
  if (!apiVersion || !kind) return undefined;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return [{ group, kind, version }];
}

/** Meta kinds kube publishes under every group version. */
const servedGroupVersions = groupVersions(builtinResources).flatMap((g) =>
  g.versions.map((version) => ({ group: g.group, version })),
);
function everyGroup(kind: string): Array<{ group: string; version: string; kind: string }> {
  return servedGroupVersions.map((gv) => ({ group: gv.group, kind, version: gv.version }));
}
const extraGvks: Record<string, Array<{ group: string; version: string; kind: string }>> = {
  [`${META}.Status`]: [{ group: '', kind: 'Status', version: 'v1' }],
  [`${META}.DeleteOptions`]: everyGroup('DeleteOptions'),
  [`${META}.WatchEvent`]: everyGroup('WatchEvent'),
};

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key];
  return out;
}

const AGGREGATOR = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1';

/** Definitions kubernetes-types has no declarations for, from client-node's models (kube definition -> model class). */
const modelDefinitions = await readClientNodeModels(
  {
    [`${AGGREGATOR}.APIService`]: 'V1APIService',
    [`${AGGREGATOR}.APIServiceList`]: 'V1APIServiceList',
    [`${AGGREGATOR}.APIServiceSpec`]: 'V1APIServiceSpec',
    [`${AGGREGATOR}.APIServiceStatus`]: 'V1APIServiceStatus',
    [`${AGGREGATOR}.APIServiceCondition`]: 'V1APIServiceCondition',
    [`${AGGREGATOR}.ServiceReference`]: 'ApiregistrationV1ServiceReference',
  },
  { V1ObjectMeta: `${META}.ObjectMeta`, V1ListMeta: `${META}.ListMeta` },
);

/** A model definition, with the group-version-kind of a served kind or its list (the models' apiVersion and kind are plain strings). */
function buildFromModel(name: string): OpenApiSchema {
  const schema: OpenApiSchema = { ...modelDefinitions[name], properties: sortKeys(modelDefinitions[name].properties ?? {}) };
  for (const prop of Object.values(schema.properties ?? {})) {
    for (const sub of [prop, ...(prop.allOf ?? []), prop.items ?? {}]) if (sub.$ref) want(sub.$ref.slice(REF_PREFIX.length));
  }
  for (const res of builtinResources) {
    const prefix = res.definition?.slice(0, res.definition.lastIndexOf('.'));
    const kind = res.definition === name ? res.kind : `${prefix}.${res.listKind}` === name ? res.listKind : undefined;
    if (kind) schema['x-kubernetes-group-version-kind'] = [{ group: res.group, kind, version: res.version }];
  }
  return schema;
}

function build(name: string): OpenApiSchema {
  if (name === INT_OR_STRING) return intOrStringDefinition;
  if (extraDefinitions[name]) return extraDefinitions[name];
  if (modelDefinitions[name]) return buildFromModel(name);
  const decl = declarations.get(name);
  if (!decl) throw new Error(`no declaration for ${name}`);
  const description = docText(decl);
  const special = specialShapes[name];
  if (special) return { ...(description ? { description } : {}), ...special };
  if (!Node.isInterfaceDeclaration(decl)) throw new Error(`${name}: alias ${decl.getText()} has no known shape`);

  const properties: Record<string, OpenApiSchema> = {};
  const required: string[] = [];
  for (const prop of decl.getProperties()) {
    properties[prop.getName()] = propertySchema(prop, name);
    if (!prop.hasQuestionToken()) required.push(prop.getName());
  }
  for (const [prop, schema] of Object.entries(extraProperties[name] ?? {})) {
    properties[prop] = schema;
    for (const sub of [schema, ...(schema.allOf ?? []), schema.items ?? {}]) if (sub.$ref) want(sub.$ref.slice(REF_PREFIX.length));
  }
  const schema: OpenApiSchema = {};
  if (description) schema.description = description;
  schema.properties = sortKeys(properties);
  if (required.length > 0) schema.required = required;
  schema.type = 'object';
  const gvk = extraGvks[name] ?? gvkOf(decl);
  if (gvk) schema['x-kubernetes-group-version-kind'] = gvk;
  return schema;
}

// Roots: the served kinds and their lists, the subresource kinds, the meta kinds.
for (const res of builtinResources) {
  if (!res.definition) continue;
  want(res.definition);
  if (!res.virtual || res.verbs.includes('list')) want(`${res.definition.slice(0, res.definition.lastIndexOf('.'))}.${res.listKind}`);
}
for (const name of [
  `${CORE}.Binding`,
  'io.k8s.api.autoscaling.v1.Scale',
  'io.k8s.api.authentication.v1.TokenRequest',
  'io.k8s.api.policy.v1.Eviction',
  `${META}.Status`,
  `${META}.ListMeta`,
  `${META}.DeleteOptions`,
  `${META}.WatchEvent`,
  `${META}.Patch`,
  `${META}.APIResourceList`,
]) {
  want(name);
}

while (queue.length > 0) {
  const name = queue.shift() as string;
  definitions[name] = build(name);
}

applyPatchStrategies(definitions);

/** Sorts object keys at every level (as kube-apiserver serves them); arrays keep their order. */
function deepSort(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepSort);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = deepSort((value as Record<string, unknown>)[key]);
  return out;
}

const sorted = deepSort(definitions) as Record<string, OpenApiSchema>;
writeFileSync(outFile, JSON.stringify(sorted, null, 1) + '\n');
const size = JSON.stringify(sorted).length;
console.log(`wrote ${Object.keys(sorted).length} definitions (${(size / 1024).toFixed(0)} KiB) to ${relative(process.cwd(), outFile)}`);
