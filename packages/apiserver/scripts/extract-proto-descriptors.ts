/**
 * Generates `src/protobuf/descriptors.json`: the protobuf layouts of the
 * built-in kinds, which `src/protobuf/decode.ts` needs to read the
 * `application/vnd.kubernetes.protobuf` bodies kubectl and client-go send.
 *
 * Source: a Go binary linking the Kubernetes API types (kubectl). gogo-protobuf
 * registers every `generated.proto` with its FileDescriptorProto gzipped into
 * the binary, so this scans the binary for gzip streams and decodes those that
 * are descriptors of the served API packages. The descriptors keep gogoproto's
 * options, which say which scalars are non-pointer Go fields (`nullable=false`:
 * zero values are always on the wire but omitted from JSON) and which fields are
 * embedded structs. Whether an embedded struct is inlined into the JSON
 * (`json:",inline"`), and JSON names that differ from the proto names
 * (`$ref`, `x-kubernetes-*`), come from the `kubernetes-types` declarations.
 *
 * Later binaries only add packages the earlier ones lack (kubectl has no
 * apiextensions types; a binary that does can supply them).
 *
 * Run: node --import tsx packages/apiserver/scripts/extract-proto-descriptors.ts \
 *        /usr/lib/google-cloud-sdk/bin/kubectl.1.32 [more binaries...]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { DescriptorField, DescriptorTable } from '../src/protobuf/decode.js';
import { descriptorsIn, type RawFile, type RawMessage } from './proto-descriptors-in-binary.js';

const here = dirname(fileURLToPath(import.meta.url));
const outFile = join(here, '..', 'src', 'protobuf', 'descriptors.json');
const require = createRequire(import.meta.url);
const typesDir = dirname(require.resolve('kubernetes-types/package.json'));

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXT = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** The packages of the group versions the server serves, with their kubernetes-types declaration file. */
const wanted = new Map<string, string>([
  ['k8s.io.api.core.v1', 'core/v1.d.ts'],
  ['k8s.io.api.apps.v1', 'apps/v1.d.ts'],
  ['k8s.io.api.coordination.v1', 'coordination/v1.d.ts'],
  ['k8s.io.api.events.v1', 'events/v1.d.ts'],
  ['k8s.io.api.rbac.v1', 'rbac/v1.d.ts'],
  ['k8s.io.api.admissionregistration.v1', 'admissionregistration/v1.d.ts'],
  ['k8s.io.api.authentication.v1', 'authentication/v1.d.ts'],
  ['k8s.io.api.authorization.v1', 'authorization/v1.d.ts'],
  ['k8s.io.api.autoscaling.v1', 'autoscaling/v1.d.ts'],
  ['k8s.io.api.autoscaling.v2', 'autoscaling/v2.d.ts'],
  ['k8s.io.api.batch.v1', 'batch/v1.d.ts'],
  ['k8s.io.api.policy.v1', 'policy/v1.d.ts'],
  ['k8s.io.api.networking.v1', 'networking/v1.d.ts'],
  ['k8s.io.api.discovery.v1', 'discovery/v1.d.ts'],
  ['k8s.io.api.scheduling.v1', 'scheduling/v1.d.ts'],
  ['k8s.io.api.node.v1', 'node/v1.d.ts'],
  ['k8s.io.api.storage.v1', 'storage/v1.d.ts'],
  ['k8s.io.api.flowcontrol.v1', 'flowcontrol/v1.d.ts'],
  ['k8s.io.api.certificates.v1', 'certificates/v1.d.ts'],
  [META, 'meta/v1.d.ts'],
  [APIEXT, 'apiextensions/v1.d.ts'],
]);

/**
 * Referenced packages whose types decode.ts decodes by hand (Time, IntOrString,
 * Quantity, RawExtension), so their layouts are not needed.
 */
const handDecoded = new Set([
  'k8s.io.apimachinery.pkg.runtime',
  'k8s.io.apimachinery.pkg.runtime.schema',
  'k8s.io.apimachinery.pkg.util.intstr',
  'k8s.io.apimachinery.pkg.api.resource',
]);

/** The property names of every interface in a kubernetes-types declaration file. */
function interfacesOf(relPath: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const path = join(typesDir, relPath);
  if (!existsSync(path)) return out;
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  for (const stmt of source.statements) {
    if (!ts.isInterfaceDeclaration(stmt)) continue;
    const props = new Set<string>();
    for (const member of stmt.members) {
      if (member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) props.add(member.name.text);
    }
    out.set(stmt.name.text, props);
  }
  return out;
}

/** JSONSchemaProps' `xKubernetesListType` is `x-kubernetes-list-type` in JSON (kubernetes-types leaves these out). */
function extensionName(protoName: string): string | undefined {
  return /^x[A-Z]/.test(protoName) ? protoName.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : undefined;
}

function normalise(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
}

function main(): void {
  const binaries = process.argv.slice(2);
  if (binaries.length === 0) {
    console.error('usage: extract-proto-descriptors.ts <go binary> [more binaries...]');
    process.exit(2);
  }
  const byPackage = new Map<string, { file: RawFile; binary: string }>();
  for (const binary of binaries) {
    for (const file of descriptorsIn(binary, (pkg) => wanted.has(pkg))) {
      if (!byPackage.has(file.pkg)) byPackage.set(file.pkg, { file, binary: basename(binary) });
    }
  }
  for (const pkg of wanted.keys()) {
    if (!byPackage.has(pkg)) console.warn(`warning: no descriptor for ${pkg} in ${binaries.join(', ')}`);
  }

  const all = new Map<string, RawMessage>();
  for (const { file } of byPackage.values()) for (const m of file.messages) all.set(m.fullName, m);

  const table: DescriptorTable = { files: [], packages: [], messages: {} };
  const notes: string[] = [];
  for (const pkg of [...byPackage.keys()].sort()) {
    const { file, binary } = byPackage.get(pkg)!;
    table.files.push(`${file.name} (${binary})`);
    table.packages.push(pkg);
    const interfaces = interfacesOf(wanted.get(pkg)!);
    for (const m of file.messages) {
      const props = m.mapEntry ? undefined : interfaces.get(m.shortName);
      const out: DescriptorField[] = [];
      for (const f of m.fields) {
        if (f.type.startsWith('unsupported') || f.type === 'enum') throw new Error(`${m.fullName}.${f.name}: type ${f.type}`);
        const isMessage = f.type === 'message';
        if (isMessage && !all.has(f.typeName) && !handDecoded.has(f.typeName.replace(/\.[^.]+$/, ''))) {
          throw new Error(`${m.fullName}.${f.name} references ${f.typeName}, which no wanted package defines`);
        }
        let name = f.name;
        let inline = false;
        // An embedded Go struct: go-to-protobuf names it after its type and makes it non-nullable.
        const embedded = isMessage && !f.repeated && !f.nullable && f.goName === f.typeName.split('.').pop();
        if (props && !props.has(f.name)) {
          const renamed = [...props].find((p) => normalise(p) === normalise(f.name)) ?? extensionName(f.name);
          if (renamed !== undefined) {
            name = renamed;
            notes.push(`${m.fullName}.${f.name}: JSON name ${renamed}`);
          }
          else if (embedded) inline = true;
          else notes.push(`${m.fullName}.${f.name}: not in kubernetes-types (newer than it?), kept as is`);
        } else if (!props && embedded && !m.mapEntry) {
          notes.push(`${m.fullName}.${f.name}: embedded ${f.typeName}, no kubernetes-types interface to tell if inlined; kept as a field`);
        }
        if (inline) notes.push(`${m.fullName}.${f.name}: inlined ${f.typeName}`);
        const flags =
          (f.repeated ? 'r' : '') + (inline ? 'i' : '') + (!isMessage && !f.repeated && !f.nullable ? 'o' : '');
        out.push([f.number, name, isMessage ? f.typeName : f.type, flags]);
      }
      // go-to-protobuf wraps named slice types (`type ExtraValue []string`) in a message of one
      // repeated `items`; kubernetes-types has no interface for them, as their JSON is the bare array.
      const only = m.fields.length === 1 ? m.fields[0] : undefined;
      const listWrapper =
        !m.mapEntry && only !== undefined && only.number === 1 && only.name === 'items' && only.repeated && !interfaces.has(m.shortName);
      if (listWrapper) notes.push(`${m.fullName}: a named slice type, JSON is the bare array`);
      table.messages[m.fullName] = m.mapEntry
        ? { fields: out, mapEntry: true }
        : listWrapper
          ? { fields: out, listWrapper: true }
          : { fields: out };
    }
  }

  // One message per line: small, and diffs stay readable.
  const names = Object.keys(table.messages).sort();
  const lines = names.map((n) => `    ${JSON.stringify(n)}: ${JSON.stringify(table.messages[n])}`);
  const text =
    '{\n' +
    `  "files": ${JSON.stringify(table.files)},\n` +
    `  "packages": ${JSON.stringify(table.packages)},\n` +
    `  "messages": {\n${lines.join(',\n')}\n  }\n}\n`;
  writeFileSync(outFile, text);
  for (const note of notes) console.log(note);
  console.log(`wrote ${outFile}: ${table.packages.length} packages, ${names.length} messages, ${text.length} bytes`);
}

main();
