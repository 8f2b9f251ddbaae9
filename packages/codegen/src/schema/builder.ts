/**
 * Types to schemas, as controller-gen's pkg/crd/schema.go makes them: each
 * declaration gets a schema with `$ref`s to the declarations it uses, its doc
 * comment as description and its markers applied in controller-tools' priority
 * order; fields are required unless optional by syntax or by marker. The
 * flattener (flatten.ts) then inlines the references.
 */
import { CodegenError, errorAt, type SourcePosition } from '../errors.js';
import type { MarkerValue } from '../markers/definition.js';
import type { MarkerSet } from '../markers/registry.js';
import type { Declaration, Field, PackageInfo, ScalarName, TypeExpr } from '../model.js';
import { docString } from './description.js';
import { knownSchema } from './known-types.js';
import type { JSONSchemaProps } from './props.js';

export type DeclarationLookup = (id: string) => Declaration | undefined;

const META_TYPE_META = 'k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta';

function scalarSchema(name: ScalarName): JSONSchemaProps {
  switch (name) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'number':
    case 'float32':
    case 'float64':
      return { type: 'number' };
    case 'int32':
    case 'uint32':
      return { type: 'integer', format: 'int32' };
    case 'int64':
    case 'uint64':
      return { type: 'integer', format: 'int64' };
    default:
      return { type: 'integer' };
  }
}

export class SchemaBuilder {
  private readonly cache = new Map<string, JSONSchemaProps>();

  constructor(private readonly lookup: DeclarationLookup) {}

  /** The declaration a ref points at, or an error at the ref. */
  declaration(id: string, pos?: SourcePosition): Declaration {
    const decl = this.lookup(id);
    if (!decl) {
      const name = id.slice(Math.max(id.lastIndexOf('#'), id.lastIndexOf('.')) + 1);
      const where = pos ?? { file: id, line: 0, col: 0 };
      throw errorAt(where, `unknown type ${name}: no declaration for ${id}`);
    }
    return decl;
  }

  /** The schema of a declaration, with `$ref`s to others (cached). */
  declarationSchema(id: string, pos?: SourcePosition): JSONSchemaProps {
    const known = knownSchema(id);
    if (known) return known;
    const hit = this.cache.get(id);
    if (hit) return hit;
    const decl = this.declaration(id, pos);
    const root = decl.markers.has('kubebuilder:object:root');
    const schema = this.typeToSchema(decl.type, decl.pkg, decl.pos, root);
    const description = docString(decl.doc);
    if (description) schema.description = description;
    else delete schema.description;
    this.applyMarkers(decl.markers, schema, decl.pos);
    this.cache.set(id, schema);
    return schema;
  }

  private typeToSchema(t: TypeExpr, pkg: PackageInfo, pos: SourcePosition, root = false): JSONSchemaProps {
    switch (t.kind) {
      case 'scalar':
        return scalarSchema(t.name);
      case 'enum':
        return { type: t.base === 'bool' ? 'boolean' : t.base, enum: [...t.values] };
      case 'nullable':
        return { ...this.typeToSchema(t.elem, pkg, pos), nullable: true };
      case 'array':
        return { type: 'array', items: this.typeToSchema(t.elem, pkg, pos) };
      case 'map':
        return { type: 'object', additionalProperties: this.typeToSchema(t.elem, pkg, pos) };
      case 'struct':
        return this.structToSchema(t.fields, pkg, root);
      case 'unknown':
        throw errorAt(
          t.pos ?? pos,
          'interface type is not supported in CRD schemas; consider using an explicit type, RawExtension or JSON instead, or mark the field +kubebuilder:validation:Schemaless',
        );
      case 'ref':
        return this.refSchema(t.id, t.pos ?? pos);
    }
  }

  /** A reference, with the referenced type and format when it is a scalar, so that markers can check them. */
  private refSchema(id: string, pos: SourcePosition): JSONSchemaProps {
    const known = knownSchema(id);
    if (known) return { $ref: id };
    const decl = this.declaration(id, pos);
    const t = decl.type;
    if (t.kind === 'scalar' || t.kind === 'enum') {
      const { type, format } = this.typeToSchema(t, decl.pkg, decl.pos);
      return { $ref: id, ...(type ? { type } : {}), ...(format ? { format } : {}) };
    }
    return { $ref: id };
  }

  private structToSchema(fields: readonly Field[], pkg: PackageInfo, root: boolean): JSONSchemaProps {
    const props: JSONSchemaProps = { type: 'object', properties: {} };
    const required: string[] = [];
    const packageOptional = pkg.markers.has('kubebuilder:validation:Optional');
    for (const field of fields) {
      // A kind's apiVersion and kind are Go's inlined TypeMeta: never required, described by TypeMeta's docs.
      const typeMeta = root && !field.inline && (field.name === 'apiVersion' || field.name === 'kind');
      if (!typeMeta && this.isRequired(field, packageOptional)) required.push(field.name);
      const schemaless = field.markers.has('kubebuilder:validation:Schemaless');
      const preserves = field.markers.has('kubebuilder:pruning:PreserveUnknownFields') || field.markers.has('kubebuilder:validation:XPreserveUnknownFields');
      const prop: JSONSchemaProps =
        schemaless || (field.type.kind === 'unknown' && preserves) ? {} : this.typeToSchema(field.type, pkg, field.pos);
      const doc = docString(field.doc) || (typeMeta ? this.typeMetaDoc(field.name) : '');
      if (doc) prop.description = doc;
      this.applyMarkers(field.markers, prop, field.pos);
      if (field.inline) (props.allOf ??= []).push(prop);
      else props.properties![field.name] = prop;
    }
    if (required.length > 0) props.required = [...required].sort();
    return props;
  }

  private isRequired(field: Field, packageOptional: boolean): boolean {
    const m = field.markers;
    if (m.has('kubebuilder:validation:Optional')) return false;
    if (m.has('kubebuilder:validation:Required')) return true;
    if (m.has('optional') || m.has('k8s:optional')) return false;
    if (m.has('required') || m.has('k8s:required')) return true;
    if (packageOptional) return false;
    return !field.inline && !field.optionalBySyntax;
  }

  private typeMetaDoc(name: string): string {
    const typeMeta = this.lookup(META_TYPE_META);
    const field = typeMeta?.type.kind === 'struct' ? typeMeta.type.fields.find((f) => f.name === name) : undefined;
    return field ? docString(field.doc) : '';
  }

  /** Applies schema markers in controller-tools' order: by priority, then as written; `items:` markers last, to the items. */
  applyMarkers(markers: MarkerSet, schema: JSONSchemaProps, pos: SourcePosition): void {
    const schemaMarkers = markers.values.filter((v) => v.def.applyToSchema);
    const byPriority = (a: MarkerValue, b: MarkerValue): number => (a.def.priority ?? 10) - (b.def.priority ?? 10);
    const direct = schemaMarkers.filter((v) => !v.def.items).sort(byPriority);
    const items = schemaMarkers.filter((v) => v.def.items).sort(byPriority);
    for (const m of direct) this.apply(m, schema, pos);
    for (const m of items) {
      if (schema.type !== 'array' || !schema.items) {
        throw this.markerError(m, pos, `must apply ${m.def.name} to an array value, found ${schema.type ?? ''}`);
      }
      this.apply(m, schema.items, pos);
    }
  }

  private apply(m: MarkerValue, schema: JSONSchemaProps, pos: SourcePosition): void {
    try {
      m.def.applyToSchema!(schema, m.value);
    } catch (err) {
      if (err instanceof CodegenError) throw err;
      throw this.markerError(m, pos, `+${m.def.name}: ${(err as Error).message}`);
    }
  }

  private markerError(m: MarkerValue, pos: SourcePosition, message: string): CodegenError {
    return m.raw.line > 0 ? new CodegenError(message, m.raw.file, m.raw.line, m.raw.col) : errorAt(pos, `${message} (in ${m.raw.file})`);
  }
}
