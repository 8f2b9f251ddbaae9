/**
 * Where the policy type checker finds kinds and schemas: the served resources
 * (built-ins and custom resources, as kube's RESTMapper and schema resolver
 * do), each kind's schema as the server publishes it in OpenAPI v3, with
 * every `$ref` replaced by the definition it names.
 */
import type { OpenApiSchema } from '@operant/apimachinery';
import { resolveSchema } from '@operant/apimachinery/schema';
import type { ResourceCatalog } from '../../registry/catalog.js';
import { builtinSchema, definitionOf, resolveBuiltinSchema } from '../../openapi/builtin-schemas.js';
import { customResourceDefinitions } from '../../openapi/custom-resource-schemas.js';
import { kindDefinitionName } from '../../openapi/document.js';
import type { GroupVersionKind, TypeCheckResolver } from './type-checking.js';

/**
 * `schema` with its references inlined. A definition met again inside itself
 * (JSONSchemaProps) is left untyped there, which CEL cannot see into, as kube
 * stops at a recursive reference.
 */
export function inlineSchemaRefs(schema: OpenApiSchema, seen: ReadonlySet<string> = new Set()): OpenApiSchema {
  const name = definitionOf(schema);
  let s = schema;
  let inside = seen;
  if (name !== undefined) {
    if (seen.has(name)) return { description: schema.description };
    const target = resolveSchema(schema, resolveBuiltinSchema);
    if (!target) return { description: schema.description };
    // The wrapper's own keys (description, default, nullable) stay; the definition gives the rest.
    const { $ref: _ref, allOf: _allOf, ...wrapper } = schema;
    s = { ...target, ...wrapper };
    inside = new Set(seen).add(name);
  }
  const out: OpenApiSchema = { ...s };
  if (s.properties) {
    out.properties = {};
    for (const [k, v] of Object.entries(s.properties)) out.properties[k] = inlineSchemaRefs(v, inside);
  }
  if (s.items && !Array.isArray(s.items)) out.items = inlineSchemaRefs(s.items, inside);
  if (s.additionalProperties !== undefined && typeof s.additionalProperties === 'object') {
    out.additionalProperties = inlineSchemaRefs(s.additionalProperties, inside);
  }
  return out;
}

/** The checker's view of the served API. */
export function catalogTypeCheckResolver(catalog: ResourceCatalog): TypeCheckResolver {
  return {
    kindsFor(group, version, resource) {
      const rs = catalog.lookup(group, version, resource);
      return rs ? [{ group: rs.info.group, version: rs.info.version, kind: rs.info.kind }] : [];
    },
    schemaFor(gvk: GroupVersionKind) {
      const info = catalog.infos().find((i) => i.group === gvk.group && i.version === gvk.version && i.kind === gvk.kind);
      if (!info) return undefined;
      const schema = info.custom ? customResourceDefinitions(info)[kindDefinitionName(info)] : info.definition ? builtinSchema(info.definition) : undefined;
      return schema ? inlineSchemaRefs(schema) : undefined;
    },
  };
}
