/**
 * The CEL type of each node of a structural schema, as Kubernetes declares it for
 * `self` (k8s.io/apiserver/pkg/cel/common SchemaDeclType): objects with properties
 * are typed records (an undeclared field is a compile error), `additionalProperties`
 * are maps, arrays lists, int-or-string is `dyn`, strings with format byte / duration /
 * date / date-time are bytes / duration / timestamp. Each declaration also carries the
 * size bounds the cost estimator uses (maxItems, maxLength, maxProperties, or what fits
 * in a 3 MiB request).
 */
import type { OpenApiSchema } from '../openapi-schema.js';
import { escapeCelName } from './escaping.js';

/** One entry of `x-kubernetes-validations`. */
export type ValidationRule = NonNullable<OpenApiSchema['x-kubernetes-validations']>[number];

/** The largest request kube-apiserver accepts; unbounded sizes are estimated from it. */
export const maxRequestSizeBytes = 3 * 1024 * 1024;

/** Base class of the runtime values of record types (one subclass per object declaration). */
export class CelRecord extends Map<string, unknown> {}

/** Scalar kinds a schema node can have in CEL. */
export type ScalarKind = 'int' | 'double' | 'string' | 'bool' | 'bytes' | 'timestamp' | 'duration' | 'intOrString';

/** A property of a record type. */
export interface DeclField {
  readonly jsonName: string;
  readonly celName: string;
  readonly decl: CelDecl;
}

interface DeclBase {
  /** The type as cel-js spells it: `int`, `list<string>`, `map<string, Object.spec>`, a record name. */
  readonly typeName: string;
  /** The smallest JSON serialization of a value, for estimating how many fit in a request. */
  readonly minSize: number;
}

/** A typed record: an object with declared properties. */
export interface ObjectDecl extends DeclBase {
  readonly kind: 'object';
  readonly fields: ReadonlyMap<string, DeclField>;
  readonly fieldsByCelName: ReadonlyMap<string, DeclField>;
  readonly ctor: new () => CelRecord;
}

/** A map (`additionalProperties`). */
export interface MapDecl extends DeclBase {
  readonly kind: 'map';
  readonly value: CelDecl;
  readonly maxElements: number;
}

/** A list, with its `x-kubernetes-list-type` and map keys. */
export interface ListDecl extends DeclBase {
  readonly kind: 'list';
  readonly item: CelDecl;
  readonly maxElements: number;
  readonly listType: 'atomic' | 'set' | 'map';
  /** For map lists: the key properties as `[jsonName, celName]`. */
  readonly mapKeys: ReadonlyArray<readonly [string, string]>;
}

/** A scalar; `maxElements` is the largest size() of a string or bytes value. */
export interface ScalarDecl extends DeclBase {
  readonly kind: 'scalar';
  readonly scalar: ScalarKind;
  readonly maxElements: number;
}

/** The CEL declaration of a schema node. */
export type CelDecl = ObjectDecl | MapDecl | ListDecl | ScalarDecl;

const stringSchema: OpenApiSchema = { type: 'string' };

/** Kube's `WithTypeAndObjectMeta`: at a resource root only `apiVersion`, `kind`, `metadata.name` and `metadata.generateName` are typed. */
export function withTypeAndObjectMeta(s: OpenApiSchema): OpenApiSchema {
  const p = s.properties ?? {};
  if (
    p.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    p.metadata?.type === 'object' &&
    p.metadata.properties?.name?.type === 'string' &&
    p.metadata.properties?.generateName?.type === 'string'
  ) {
    return s;
  }
  return {
    ...s,
    properties: {
      ...p,
      kind: stringSchema,
      apiVersion: stringSchema,
      metadata: { type: 'object', properties: { name: stringSchema, generateName: stringSchema } },
    },
  };
}

/** Builds declarations for one schema tree, naming record types uniquely. */
export class DeclBuilder {
  private readonly names = new Set<string>();
  /** Every record type created, for registration with the CEL environment. */
  readonly objects: ObjectDecl[] = [];

  private uniqueName(base: string): string {
    let name = base;
    for (let i = 2; this.names.has(name); i++) name = `${base}_${i}`;
    this.names.add(name);
    return name;
  }

  /** The declaration of `schema` (or `undefined` when kube does not expose it to CEL). */
  build(schema: OpenApiSchema | undefined, isResourceRoot: boolean, name: string): CelDecl | undefined {
    if (!schema) return undefined;
    if (schema['x-kubernetes-int-or-string']) {
      return {
        kind: 'scalar',
        scalar: 'intOrString',
        typeName: 'dyn',
        minSize: 1,
        maxElements: schema.maxLength !== undefined ? Math.max(0, schema.maxLength) * 4 : maxRequestSizeBytes - 2,
      };
    }
    const s = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
    switch (s.type) {
      case 'array': {
        const item = this.build(s.items, s.items?.['x-kubernetes-embedded-resource'] === true, `${name}.items`);
        if (!item) return undefined;
        const maxElements = s.maxItems !== undefined ? Math.max(0, s.maxItems) : Math.floor((maxRequestSizeBytes - 2) / (item.minSize + 1));
        const listType = s['x-kubernetes-list-type'] ?? 'atomic';
        const mapKeys: Array<[string, string]> = [];
        if (listType === 'map' && item.kind === 'object') {
          for (const k of s['x-kubernetes-list-map-keys'] ?? []) mapKeys.push([k, item.fields.get(k)?.celName ?? k]);
        }
        return { kind: 'list', typeName: `list<${item.typeName}>`, item, maxElements, listType, mapKeys, minSize: 2 };
      }
      case 'object': {
        const ap = s.additionalProperties;
        if (ap !== undefined && typeof ap === 'object') {
          const value = this.build(ap, ap['x-kubernetes-embedded-resource'] === true, `${name}.values`);
          if (!value) return undefined;
          const maxElements =
            s.maxProperties !== undefined ? Math.max(0, s.maxProperties) : Math.floor((maxRequestSizeBytes - 2) / (value.minSize + 6));
          return { kind: 'map', typeName: `map<string, ${value.typeName}>`, value, maxElements, minSize: 2 };
        }
        const typeName = this.uniqueName(name);
        const fields = new Map<string, DeclField>();
        const byCel = new Map<string, DeclField>();
        const required = new Set(s.required ?? []);
        let minSize = 2;
        for (const [prop, propSchema] of Object.entries(s.properties ?? {})) {
          const celName = escapeCelName(prop);
          const decl = this.build(propSchema, propSchema['x-kubernetes-embedded-resource'] === true, `${typeName}.${celName ?? 'field'}`);
          if (!decl) continue;
          if (required.has(prop) && propSchema.default === undefined) minSize += prop.length + decl.minSize + 4;
          if (celName === undefined) continue;
          const field: DeclField = { jsonName: prop, celName, decl };
          fields.set(prop, field);
          byCel.set(celName, field);
        }
        const ctor = class extends CelRecord {};
        Object.defineProperty(ctor, 'name', { value: typeName });
        const decl: ObjectDecl = { kind: 'object', typeName, fields, fieldsByCelName: byCel, ctor, minSize };
        this.objects.push(decl);
        return decl;
      }
      case 'string':
        return stringDecl(s);
      case 'boolean':
        return { kind: 'scalar', scalar: 'bool', typeName: 'bool', minSize: 4, maxElements: 0 };
      case 'number':
        return { kind: 'scalar', scalar: 'double', typeName: 'double', minSize: 1, maxElements: 0 };
      case 'integer':
        return { kind: 'scalar', scalar: 'int', typeName: 'int', minSize: 1, maxElements: 0 };
      default:
        return undefined;
    }
  }
}

function stringDecl(s: OpenApiSchema): ScalarDecl {
  switch (s.format) {
    case 'byte':
      return {
        kind: 'scalar',
        scalar: 'bytes',
        typeName: 'bytes',
        minSize: 2,
        maxElements: s.maxLength !== undefined ? Math.max(0, s.maxLength) : maxRequestSizeBytes - 2,
      };
    case 'duration':
      return { kind: 'scalar', scalar: 'duration', typeName: 'google.protobuf.Duration', minSize: 4, maxElements: 64 };
    case 'date':
      return { kind: 'scalar', scalar: 'timestamp', typeName: 'google.protobuf.Timestamp', minSize: 12, maxElements: 12 };
    case 'date-time':
      return { kind: 'scalar', scalar: 'timestamp', typeName: 'google.protobuf.Timestamp', minSize: 22, maxElements: 64 };
  }
  let maxElements: number;
  if (s.maxLength !== undefined) maxElements = Math.max(0, s.maxLength) * 4;
  else if (s.enum && s.enum.length > 0) maxElements = Math.max(0, ...s.enum.map((e) => (typeof e === 'string' ? e.length : 0)));
  else maxElements = maxRequestSizeBytes - 2;
  return { kind: 'scalar', scalar: 'string', typeName: 'string', minSize: 2, maxElements };
}
