/**
 * The merge type server-side apply and managedFields use for each resource:
 * built-ins from their OpenAPI schemas (with the list and map extensions our
 * strategic-merge table adds), custom resources from their structural schema,
 * with metadata typed as ObjectMeta as kube's CRD handler types it.
 *
 * Two facts kube's published schemas carry and ours do not, checked against
 * k8s.io/api and k8s.io/apimachinery:
 * - structs marked `+structType=atomic` (owned and replaced as a whole);
 * - key fields with a `+default`, which an item of a list-map may omit (ports' protocol).
 */
import { readFileSync } from 'node:fs';
import { mergeTypeOf, untypedType, type MergeType } from '@operant/apimachinery/managedfields';
import { resolveSchema } from '@operant/apimachinery/schema';
import type { OpenApiSchema } from '@operant/apimachinery';
import { builtinSchema, definitionNameOfRef, hasBuiltinSchema, resolveBuiltinSchema, schemaRef } from '../openapi/builtin-schemas.js';
import type { ResourceInfo } from './resource-info.js';

const core = 'io.k8s.api.core.v1';
const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Definitions with `+structType=atomic` in k8s.io/api core/v1 and meta/v1. */
const atomicStructs = new Set([
  `${meta}.LabelSelector`,
  `${meta}.OwnerReference`,
  `${core}.SecretReference`,
  `${core}.FileKeySelector`,
  `${core}.ObjectFieldSelector`,
  `${core}.ResourceFieldSelector`,
  `${core}.ConfigMapKeySelector`,
  `${core}.SecretKeySelector`,
  `${core}.NodeSelector`,
  `${core}.NodeSelectorTerm`,
  `${core}.TopologySelectorTerm`,
  `${core}.EndpointAddress`,
  `${core}.EndpointPort`,
  `${core}.ObjectReference`,
  `${core}.LocalObjectReference`,
  `${core}.TypedLocalObjectReference`,
  `${core}.ScopeSelector`,
]);

/** Key fields with a default, per item definition (`+default="TCP"` on the protocol of ports). */
const keyFieldDefaults: Record<string, Record<string, unknown>> = {
  [`${core}.ContainerPort`]: { protocol: 'TCP' },
  [`${core}.ServicePort`]: { protocol: 'TCP' },
};

/** The atomic structs' definitions with the marker applied, made at first use (copies: the shared schemas stay as they are). */
const markedAtomic = new Map<string, OpenApiSchema>();

const resolveWithMarkers = (ref: string): OpenApiSchema | undefined => {
  const name = definitionNameOfRef(ref);
  if (name === undefined || !atomicStructs.has(name)) return resolveBuiltinSchema(ref);
  let marked = markedAtomic.get(name);
  if (!marked) {
    const schema = builtinSchema(name);
    if (!schema) return undefined;
    marked = { ...schema, 'x-kubernetes-map-type': 'atomic' };
    markedAtomic.set(name, marked);
  }
  return marked;
};

let defaultsByItem: Map<OpenApiSchema, Record<string, unknown>> | undefined;
const keyDefaults = (item: OpenApiSchema): Record<string, unknown> | undefined => {
  if (!defaultsByItem) {
    defaultsByItem = new Map();
    for (const [name, defaults] of Object.entries(keyFieldDefaults)) {
      const s = resolveSchema({ $ref: schemaRef(name) }, resolveWithMarkers);
      if (s) defaultsByItem.set(s, defaults);
    }
  }
  return defaultsByItem.get(item);
};

const objectMetaRef: OpenApiSchema = { $ref: schemaRef(`${meta}.ObjectMeta`) };

/** The merge type of a resource's objects; untyped (deduced) when it has no schema. */
export function mergeTypeFor(info: ResourceInfo): MergeType {
  if (info.custom) {
    const schema = info.custom.schema;
    if (!schema) return untypedType;
    const root: OpenApiSchema = {
      ...schema,
      type: 'object',
      properties: { ...schema.properties, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: objectMetaRef },
    };
    return mergeTypeOf(root, resolveWithMarkers, keyDefaults);
  }
  if (info.definition && hasBuiltinSchema(info.definition)) return mergeTypeOf({ $ref: schemaRef(info.definition) }, resolveWithMarkers, keyDefaults);
  return untypedType;
}

/** Per definition, the fields of its Go zero value (see scripts/gen-go-zero-values.ts), read at the first create that asks. */
let goZeroValues: Record<string, Record<string, string | null>> | undefined;

function goZeroValue(definition: string, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 32) return out;
  goZeroValues ??= JSON.parse(readFileSync(new URL('./go-zero-values.json', import.meta.url), 'utf8')) as Record<string, Record<string, string | null>>;
  for (const [field, nested] of Object.entries(goZeroValues[definition] ?? {})) out[field] = nested === null ? null : goZeroValue(nested, depth + 1);
  return out;
}

/**
 * The object a create starts from for kube's field manager: a built-in kind's
 * Go zero value as JSON (`{metadata: {creationTimestamp: null}, spec: {...}, status: {}}`),
 * an empty object for custom resources. A new object's managedFields mark only
 * what this object lacks as added as a whole (`.`).
 */
export function emptyObjectFor(info: ResourceInfo): () => Record<string, unknown> {
  const definition = !info.custom && info.definition ? info.definition : undefined;
  return definition ? () => goZeroValue(definition) : () => ({});
}

const scaleDefinition = 'io.k8s.api.autoscaling.v1.Scale';
let scaleTypeCache: MergeType | undefined;

/** The merge type of autoscaling/v1 Scale, on which writes to a scale subresource are tracked. */
export function scaleMergeType(): MergeType {
  scaleTypeCache ??= mergeTypeOf({ $ref: schemaRef(scaleDefinition) }, resolveWithMarkers, keyDefaults);
  return scaleTypeCache;
}

/** The Go zero value of a Scale, where an untracked Scale's first apply starts (`before-first-apply`). */
export function emptyScale(): Record<string, unknown> {
  return goZeroValue(scaleDefinition);
}
