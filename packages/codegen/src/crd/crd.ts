/**
 * Kinds to CustomResourceDefinitions, as controller-gen's pkg/crd/spec.go
 * assembles them: one CRD per group and kind, a version per package the kind is
 * declared in (sorted by name), the schema of the root type flattened, and the
 * resource, subresource, printer-column and version markers applied.
 */
import { errorAt } from '../errors.js';
import type { Declaration, Universe } from '../model.js';
import type { ArgValue } from '../markers/arguments.js';
import { limitDescriptions } from '../schema/description.js';
import { Flattener } from '../schema/flatten.js';
import type { SchemaBuilder } from '../schema/builder.js';
import type { JSONSchemaProps } from '../schema/props.js';
import { pluralize } from './plural.js';
import { kindsOf, type KindInfo } from './kinds.js';

export interface CrdOptions {
  /** Descriptions longer than this are cut (0 drops them all), as controller-gen's crd:maxDescLen. */
  maxDescriptionLength?: number;
  /** The value of the generator annotation. */
  generatorVersion: string;
}

export interface GeneratedCrd {
  /** controller-gen's file name: `<group>_<plural>.yaml`. */
  fileName: string;
  crd: Record<string, unknown>;
  /** Descriptions that were cut, for a warning. */
  truncated: number;
}

export const GENERATOR_ANNOTATION = 'operant.dev/generator-version';

type Args = Record<string, ArgValue>;

export function generateCrds(universe: Universe, builder: SchemaBuilder, options: CrdOptions): GeneratedCrd[] {
  const byGroupKind = new Map<string, KindInfo[]>();
  for (const kind of kindsOf(universe)) {
    const key = `${kind.group}/${kind.kind}`;
    byGroupKind.set(key, [...(byGroupKind.get(key) ?? []), kind]);
  }
  const flattener = new Flattener((id, pos) => builder.declarationSchema(id, pos));
  const out: GeneratedCrd[] = [];
  for (const versions of [...byGroupKind.values()]) {
    out.push(crdFor(versions, flattener, options));
  }
  return out.sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0));
}

function crdFor(kinds: KindInfo[], flattener: Flattener, options: CrdOptions): GeneratedCrd {
  kinds.sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  const first = kinds[0];
  const resource = (first.decl.markers.get('kubebuilder:resource') as Args | undefined) ?? {};
  const plural = (resource.path as string | undefined) ?? pluralize(first.kind.toLowerCase());
  const names: Record<string, unknown> = {
    kind: first.kind,
    listKind: `${first.kind}List`,
    plural,
    singular: (resource.singular as string | undefined) ?? first.kind.toLowerCase(),
  };
  if (Array.isArray(resource.shortName) && resource.shortName.length > 0) names.shortNames = resource.shortName;
  if (Array.isArray(resource.categories) && resource.categories.length > 0) names.categories = resource.categories;
  const scope = scopeOf(kinds);
  const storage = storageVersion(kinds);
  let truncated = 0;
  const versions = kinds
    .filter((k) => !k.decl.markers.has('kubebuilder:skipversion'))
    .map((k) => {
      const schema = flattener.flattenType(k.decl.id);
      // The API server owns a kind's metadata schema: controller-gen writes only its type (FixTopLevelMetadata).
      if (schema.properties?.metadata) schema.properties.metadata = { type: 'object' };
      tidy(schema);
      if (options.maxDescriptionLength !== undefined) truncated += limitDescriptions(schema, options.maxDescriptionLength);
      return versionEntry(k, schema, k.version === storage);
    });
  const metadata: Record<string, unknown> = {
    annotations: { [GENERATOR_ANNOTATION]: options.generatorVersion },
    name: `${plural}.${first.group}`,
  };
  applyMetadataMarker(first.decl, metadata);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata,
    spec: { group: first.group, names, scope, versions },
  };
  return { fileName: `${first.group}_${plural}.yaml`, crd, truncated };
}

function scopeOf(kinds: KindInfo[]): string {
  let scope = 'Namespaced';
  for (const k of kinds) {
    const resource = k.decl.markers.get('kubebuilder:resource') as Args | undefined;
    const declared = resource?.scope as string | undefined;
    if (declared !== undefined && declared !== 'Namespaced' && declared !== 'Cluster') {
      throw errorAt(k.decl.markers.find('kubebuilder:resource')!.raw, `invalid scope ${JSON.stringify(declared)}: must be Namespaced or Cluster`);
    }
    if (declared === 'Cluster' || k.decl.markers.has('genclient:nonNamespaced')) scope = 'Cluster';
  }
  return scope;
}

function storageVersion(kinds: KindInfo[]): string {
  if (kinds.length === 1) return kinds[0].version;
  const marked = kinds.filter((k) => k.decl.markers.has('kubebuilder:storageversion'));
  if (marked.length === 1) return marked[0].version;
  const first = kinds[0];
  if (marked.length === 0) {
    throw errorAt(first.decl.pos, `CRD for ${first.kind}.${first.group} has no storage version: mark one version's type +kubebuilder:storageversion (versions: ${kinds.map((k) => k.version).join(', ')})`);
  }
  throw errorAt(marked[1].decl.pos, `CRD for ${first.kind}.${first.group} has more than one storage version: ${marked.map((k) => k.version).join(', ')}`);
}

function versionEntry(k: KindInfo, schema: JSONSchemaProps, storage: boolean): Record<string, unknown> {
  const m = k.decl.markers;
  const entry: Record<string, unknown> = { name: k.version };
  const columns = m.all('kubebuilder:printcolumn').map((c) => printColumn(c.value as Args));
  if (columns.length > 0) entry.additionalPrinterColumns = columns;
  const deprecated = m.get('kubebuilder:deprecatedversion') as Args | true | undefined;
  if (deprecated !== undefined) {
    entry.deprecated = true;
    if (typeof deprecated === 'object' && deprecated.warning) entry.deprecationWarning = deprecated.warning;
  }
  entry.schema = { openAPIV3Schema: schema };
  const selectable = m.all('kubebuilder:selectablefield').map((v) => ({ jsonPath: (v.value as Args).JSONPath }));
  if (selectable.length > 0) entry.selectableFields = selectable;
  entry.served = !m.has('kubebuilder:unservedversion');
  entry.storage = storage;
  const subresources: Record<string, unknown> = {};
  const scale = m.get('kubebuilder:subresource:scale') as Args | undefined;
  if (scale) {
    subresources.scale = {
      ...(scale.selectorpath ? { labelSelectorPath: scale.selectorpath } : {}),
      specReplicasPath: scale.specpath,
      statusReplicasPath: scale.statuspath,
    };
  }
  if (m.has('kubebuilder:subresource:status')) subresources.status = {};
  // controller-gen makes the subresources object when it adds a printer column, so `subresources: {}` appears then.
  if (Object.keys(subresources).length > 0 || columns.length > 0) entry.subresources = subresources;
  return entry;
}

function printColumn(a: Args): Record<string, unknown> {
  const col: Record<string, unknown> = {};
  if (a.description) col.description = a.description;
  if (a.format) col.format = a.format;
  col.jsonPath = a.JSONPath;
  col.name = a.name;
  if (a.priority) col.priority = a.priority;
  col.type = a.type;
  return col;
}

function applyMetadataMarker(decl: Declaration, metadata: Record<string, unknown>): void {
  const m = decl.markers.get('kubebuilder:metadata') as Args | undefined;
  if (!m) return;
  const pairs = (list: ArgValue | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const item of (list as string[] | undefined) ?? []) {
      const eq = item.indexOf('=');
      out[eq < 0 ? item : item.slice(0, eq)] = eq < 0 ? '' : item.slice(eq + 1);
    }
    return out;
  };
  Object.assign(metadata.annotations as Record<string, string>, pairs(m.annotations));
  const labels = pairs(m.labels);
  if (Object.keys(labels).length > 0) metadata.labels = labels;
}

/** Drops what Go's omitempty would not write: empty properties and required lists. */
export function tidy(schema: JSONSchemaProps): void {
  if (schema.properties && Object.keys(schema.properties).length === 0) delete schema.properties;
  if (schema.required && schema.required.length === 0) delete schema.required;
  for (const p of Object.values(schema.properties ?? {})) tidy(p);
  if (schema.items) tidy(schema.items);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') tidy(schema.additionalProperties);
  for (const s of [...(schema.allOf ?? []), ...(schema.anyOf ?? [])]) tidy(s);
}
