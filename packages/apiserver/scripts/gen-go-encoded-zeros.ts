/**
 * Generates `src/openapi/go-encoded-zeros.json`: for each built-in definition,
 * the fields Go's encoding/json writes even when the object never set them,
 * with the value it writes. kube-apiserver decodes every object into its Go
 * type and encodes it back, so these fields appear in what it serves:
 *
 * - a struct field (omitempty never omits a struct): `{}`, e.g. an Event's `source`;
 * - a metav1.Time or MicroTime that is not a pointer: `null` (Time's MarshalJSON
 *   of the zero time), e.g. a pod template's `metadata.creationTimestamp`;
 * - a field without omitempty: its zero value (`""`, `0`, `false`), or `null`
 *   for a nil pointer, slice or map (an Event's `reportingComponent: ""`);
 * - IntOrString `0`, Quantity `"0"`, RawExtension `null` where they are values.
 *
 * And the reverse, listed as `omitEmpty`: fields tagged omitempty whose Go type
 * is a string, number, bool, slice or map, which encoding leaves out at their
 * zero value, so that a `hostNetwork: false` or `args: []` sent by a client is
 * not served back.
 *
 * Source: the Go type declarations of k8s.io/api and k8s.io/apimachinery at
 * v0.32.1 (kube 1.32), as codegen's extractor writes them. Run by hand, from
 * the repository root, with the kubernetes/api and kubernetes/apimachinery
 * mirrors at hand:
 *
 *   node --import tsx packages/codegen/scripts/extract-go-types.ts --ref v0.32.1 --root k8s.io/api/events/v1 --out /tmp/go-types-v0.32.1.json
 *   node --import tsx packages/apiserver/scripts/gen-go-encoded-zeros.ts /tmp/go-types-v0.32.1.json
 *
 * CustomResourceDefinition (k8s.io/apiextensions-apiserver) is not covered.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The IR codegen's extractor writes (a development script reading another script's output).
import type { GoField, GoTypeExpr, GoTypeIndex } from '../../codegen/src/k8s/go-types.js';

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, '..', 'src', 'openapi', 'go-encoded-zeros.json');
const schemas = JSON.parse(readFileSync(join(here, '..', 'src', 'openapi', 'builtin-schemas.json'), 'utf8')) as Record<string, unknown>;

const input = process.argv[2];
if (!input) throw new Error('usage: gen-go-encoded-zeros.ts <go-types.json written by extract-go-types.ts at v0.32.1>');
const index = JSON.parse(readFileSync(input, 'utf8')) as GoTypeIndex;

/** The OpenAPI definition name of a Go type: k8s.io/api/core/v1.Pod -> io.k8s.api.core.v1.Pod. */
function definitionName(pkg: string, name: string): string | undefined {
  if (pkg.startsWith('k8s.io/api/')) return `io.k8s.api.${pkg.slice('k8s.io/api/'.length).replaceAll('/', '.')}.${name}`;
  if (pkg.startsWith('k8s.io/apimachinery/')) return `io.k8s.apimachinery.${pkg.slice('k8s.io/apimachinery/'.length).replaceAll('/', '.')}.${name}`;
  return undefined;
}

const metaV1 = 'k8s.io/apimachinery/pkg/apis/meta/v1';
/** Types with their own MarshalJSON, and what it writes for the zero value. */
const customZero: Record<string, unknown> = {
  [`${metaV1}.Time`]: null,
  [`${metaV1}.MicroTime`]: null,
  'k8s.io/apimachinery/pkg/util/intstr.IntOrString': 0,
  'k8s.io/apimachinery/pkg/api/resource.Quantity': '0',
  'k8s.io/apimachinery/pkg/runtime.RawExtension': null,
  // metav1.FieldsV1's MarshalJSON writes null for no bytes.
  [`${metaV1}.FieldsV1`]: null,
};

function declared(pkg: string, name: string): GoTypeExpr | undefined {
  return index.packages[pkg]?.[name]?.type;
}

/** Follows named types to the underlying expression (keeping custom-encoded ones named). */
function underlying(t: GoTypeExpr): GoTypeExpr {
  for (let depth = 0; t.kind === 'named' && depth < 16; depth++) {
    if (`${t.pkg}.${t.name}` in customZero) return t;
    const next = declared(t.pkg, t.name);
    if (!next) return t;
    t = next;
  }
  return t;
}

/** What Go writes for a zero value of `t` in a field with (`omitEmpty`) or without omitempty; undefined: nothing. */
function encodedZero(t: GoTypeExpr, omitEmpty: boolean): { value: unknown } | undefined {
  const u = underlying(t);
  if (u.kind === 'named' && `${u.pkg}.${u.name}` in customZero) return { value: customZero[`${u.pkg}.${u.name}`] };
  if (u.kind === 'struct') return { value: {} };
  if (omitEmpty) return undefined;
  switch (u.kind) {
    case 'basic':
      if (u.name === 'string') return { value: '' };
      if (u.name === 'bool') return { value: false };
      return { value: 0 };
    case 'pointer':
    case 'slice':
    case 'map':
    case 'interface':
      return { value: null };
    default:
      return undefined;
  }
}

/** Whether omitempty leaves a field of type `t` out at its zero value (structs and custom-encoded types never are). */
function omittedWhenEmpty(t: GoTypeExpr): boolean {
  const u = underlying(t);
  return u.kind === 'basic' || u.kind === 'slice' || u.kind === 'map';
}

/** A struct's always-written fields and its omitted-when-empty ones, inline (embedded, `json:",inline"`) structs flattened. */
function encodedFields(fields: GoField[], written: Record<string, unknown>, omitEmpty: string[]): void {
  for (const f of fields) {
    const [name, ...options] = f.tag.split(',');
    if (name === '-') continue;
    const inline = options.includes('inline') || (f.embedded && name === '');
    if (inline) {
      const u = underlying(f.type.kind === 'pointer' ? f.type.elem : f.type);
      if (u.kind === 'struct') encodedFields(u.fields, written, omitEmpty);
      continue;
    }
    const jsonName = name || f.name;
    const omitempty = options.includes('omitempty');
    const zero = encodedZero(f.type, omitempty);
    if (zero) written[jsonName] = zero.value;
    else if (omitempty && omittedWhenEmpty(f.type)) omitEmpty.push(jsonName);
  }
}

const byName = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);
const table: Record<string, { written?: Record<string, unknown>; omitEmpty?: string[] }> = {};
for (const [pkg, decls] of Object.entries(index.packages)) {
  for (const [name, decl] of Object.entries(decls)) {
    const def = definitionName(pkg, name);
    if (!def || !Object.hasOwn(schemas, def) || decl.type.kind !== 'struct' || `${pkg}.${name}` in customZero) continue;
    const written: Record<string, unknown> = {};
    const omitEmpty: string[] = [];
    encodedFields(decl.type.fields, written, omitEmpty);
    const entry: { written?: Record<string, unknown>; omitEmpty?: string[] } = {};
    if (Object.keys(written).length > 0) entry.written = Object.fromEntries(Object.entries(written).sort(byName));
    if (omitEmpty.length > 0) entry.omitEmpty = omitEmpty.sort();
    if (entry.written || entry.omitEmpty) table[def] = entry;
  }
}
const sorted = Object.fromEntries(Object.entries(table).sort(byName));
writeFileSync(outFile, `${JSON.stringify({ source: index.source, definitions: sorted }, null, 1)}\n`);
console.log(`wrote ${Object.keys(sorted).length} definitions to ${outFile}`);
