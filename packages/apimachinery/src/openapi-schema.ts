/**
 * The subset of OpenAPI v3 schema objects Kubernetes uses, including its
 * `x-kubernetes-*` extensions. Built-in kinds are described with `$ref`s into
 * `components.schemas`; CRD schemas are inline (structural).
 */
export interface OpenApiSchema {
  $ref?: string;
  /** OpenAPI v3 documents wrap a `$ref` with siblings in `allOf: [{ $ref }]`. */
  allOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  not?: OpenApiSchema;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
  'x-kubernetes-patch-merge-key'?: string;
  /** Comma-separated: `merge`, `retainKeys`, `replace`. */
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-validations'?: Array<{
    rule: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
    fieldPath?: string;
    optionalOldSelf?: boolean;
  }>;
  [extension: `x-${string}`]: unknown;
}

/** Resolves a `$ref` such as `#/components/schemas/io.k8s.api.core.v1.PodSpec`. */
export type SchemaResolver = (ref: string) => OpenApiSchema | undefined;

/**
 * Follows `$ref` and single-element `allOf` wrappers until a schema with content
 * is reached. Sibling keys of the wrapper (description, default) are not merged:
 * callers that need them read the wrapper first.
 */
export function resolveSchema(schema: OpenApiSchema | undefined, resolve: SchemaResolver): OpenApiSchema | undefined {
  let s = schema;
  for (let depth = 0; s && depth < 32; depth++) {
    if (s.$ref) s = resolve(s.$ref);
    else if (s.allOf && s.allOf.length === 1 && !s.properties && !s.type) s = s.allOf[0];
    else return s;
  }
  return s;
}
