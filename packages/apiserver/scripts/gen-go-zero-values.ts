/**
 * Generates `src/registry/go-zero-values.json`: for each built-in definition,
 * the fields its Go zero value serializes, as kube's field manager sees an
 * object before a create (`scope.Creater.New(kind)` converted to JSON).
 *
 * Go's encoding/json writes a field of a zero struct when its tag lacks
 * `omitempty` (a nil pointer, slice or map as `null`) or when it is a struct
 * (`omitempty` never drops a struct). Those present fields decide which
 * managedFields nodes an update marks as added as a whole (`.`): a create's
 * `f:spec` has no `.` for a built-in, because the zero Deployment already has a
 * `spec`. Each present field maps to the definition of its struct (expanded in
 * turn) or to null for anything else (a leaf, a null, or a type with its own
 * MarshalJSON such as metav1.Time).
 *
 * Source: the Go types of k8s.io/api, k8s.io/apimachinery (meta/v1),
 * k8s.io/apiextensions-apiserver (apiextensions/v1) and k8s.io/kube-aggregator
 * (apiregistration/v1), from checkouts:
 *
 *   node --import tsx packages/apiserver/scripts/gen-go-zero-values.ts \
 *     --api ../api --apimachinery ../apimachinery --apiextensions ../apiextensions-apiserver \
 *     --aggregator ../kube-aggregator
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { builtinSchemaNames } from '../src/openapi/builtin-schemas.js';

const { values } = parseArgs({ options: { api: { type: 'string' }, apimachinery: { type: 'string' }, apiextensions: { type: 'string' }, aggregator: { type: 'string' } } });
if (!values.api || !values.apimachinery || !values.apiextensions || !values.aggregator) {
  console.error('usage: gen-go-zero-values.ts --api DIR --apimachinery DIR --apiextensions DIR --aggregator DIR');
  process.exit(2);
}

/** Go import path -> (directory, OpenAPI definition prefix). */
const packages: Record<string, { dir: string; prefix: string }> = {
  'k8s.io/apimachinery/pkg/apis/meta/v1': { dir: join(values.apimachinery, 'pkg/apis/meta/v1'), prefix: 'io.k8s.apimachinery.pkg.apis.meta.v1' },
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1': {
    dir: join(values.apiextensions, 'pkg/apis/apiextensions/v1'),
    prefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
  },
  'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1': {
    dir: join(values.aggregator, 'pkg/apis/apiregistration/v1'),
    prefix: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1',
  },
};
for (const gv of ['core/v1', 'apps/v1', 'rbac/v1', 'coordination/v1', 'events/v1', 'admissionregistration/v1', 'authentication/v1', 'authorization/v1', 'autoscaling/v1', 'batch/v1', 'policy/v1', 'networking/v1', 'discovery/v1', 'scheduling/v1', 'node/v1', 'storage/v1', 'flowcontrol/v1', 'autoscaling/v2', 'certificates/v1']) {
  packages[`k8s.io/api/${gv}`] = { dir: join(values.api, gv), prefix: `io.k8s.api.${gv.replace('/', '.')}` };
}

interface GoField {
  /** The JSON name; empty for an inlined struct. */
  json: string;
  omitempty: boolean;
  type: string;
  imports: Map<string, string>;
  pkg: string;
}

const structs = new Map<string, GoField[]>();
const customMarshal = new Set<string>();

for (const [path, { dir, prefix }] of Object.entries(packages)) {
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated') || file.startsWith('generated')) continue;
    const src = readFileSync(join(dir, file), 'utf8');
    const imports = new Map<string, string>();
    // An import block's lines, or a single `import alias "path"`.
    for (const m of src.matchAll(/^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"]+)"\s*$/gm)) imports.set(m[1] ?? m[2]!.split('/').pop()!, m[2]!);
    for (const m of src.matchAll(/^func \(\w*\s*\*?(\w+)\) MarshalJSON\(/gm)) customMarshal.add(`${prefix}.${m[1]}`);
    for (const m of src.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const fields: GoField[] = [];
      for (const line of m[2]!.split('\n')) {
        const f = /^\s*(?:(\w+)\s+)?([\w.*[\]]+)\s+`([^`]*)`/.exec(line);
        if (!f) continue;
        const tag = /json:"([^"]*)"/.exec(f[3]!)?.[1];
        if (tag === undefined || tag === '-') continue;
        const [name, ...opts] = tag.split(',');
        fields.push({ json: opts.includes('inline') ? '' : name!, omitempty: opts.includes('omitempty'), type: f[2]!, imports, pkg: path });
      }
      structs.set(`${prefix}.${m[1]}`, fields);
    }
  }
}

/**
 * What a Go type's zero value is: `struct` with the definition of a struct
 * serialized field by field, `opaque` for a struct with its own MarshalJSON
 * (metav1.Time: always written, as null), `other` for the rest.
 */
function kindOf(type: string, field: GoField): { kind: 'struct'; def: string } | { kind: 'opaque' | 'other' } {
  if (/^(\*|\[\]|map\[)/.test(type)) return { kind: 'other' };
  const dot = type.indexOf('.');
  const pkgPath = dot < 0 ? field.pkg : field.imports.get(type.slice(0, dot));
  const pkg = pkgPath ? packages[pkgPath] : undefined;
  if (!pkg) return { kind: 'other' };
  const def = `${pkg.prefix}.${dot < 0 ? type : type.slice(dot + 1)}`;
  if (!structs.has(def)) return { kind: 'other' };
  return customMarshal.has(def) ? { kind: 'opaque' } : { kind: 'struct', def };
}

/** Present fields of a definition's zero value: name -> struct definition or null. */
function zeroFields(def: string): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const f of structs.get(def) ?? []) {
    const k = kindOf(f.type, f);
    if (f.json === '') {
      if (k.kind === 'struct') Object.assign(out, zeroFields(k.def));
      continue;
    }
    if (k.kind === 'struct') out[f.json] = k.def;
    else if (k.kind === 'opaque' || !f.omitempty) out[f.json] = null;
  }
  return out;
}

const result: Record<string, Record<string, string | null>> = {};
for (const def of builtinSchemaNames().sort()) {
  if (!structs.has(def)) continue;
  const fields = zeroFields(def);
  if (Object.keys(fields).length) result[def] = fields;
}
const outFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'registry', 'go-zero-values.json');
writeFileSync(outFile, `${JSON.stringify(result, null, 1)}\n`);
console.log(`wrote ${Object.keys(result).length} definitions to ${outFile}`);
