/**
 * Shared pieces of the CRD kubectl tests: the fixture CRDs, a builder for small
 * CRDs, and a reader for kubectl's report of a 422 Invalid error.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** The path of a file of test/fixtures. */
export function fixturePath(name: string): string {
  return join(fixtures, name);
}

/** Indents every line of a YAML block by `n` spaces. */
export function indent(yaml: string, n: number): string {
  const pad = ' '.repeat(n);
  return yaml
    .trim()
    .split('\n')
    .map((l) => (l.trim() === '' ? l : pad + l))
    .join('\n');
}

export interface CrdOptions {
  group: string;
  kind: string;
  plural?: string;
  scope?: 'Namespaced' | 'Cluster';
  /** The YAML of `openAPIV3Schema` (unindented). */
  schema: string;
  /** Extra YAML for the version (subresources, additionalPrinterColumns, selectableFields), unindented. */
  versionExtra?: string;
  /** Extra YAML under `spec.names` (shortNames, categories), unindented. */
  namesExtra?: string;
  /** Overrides metadata.name. */
  name?: string;
}

/** A one-version (v1) apiextensions.k8s.io/v1 CRD. */
export function crdYaml(o: CrdOptions): string {
  const plural = o.plural ?? `${o.kind.toLowerCase()}s`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${o.name ?? `${plural}.${o.group}`}
spec:
  group: ${o.group}
  scope: ${o.scope ?? 'Namespaced'}
  names:
    plural: ${plural}
    singular: ${o.kind.toLowerCase()}
    kind: ${o.kind}
${o.namesExtra ? indent(o.namesExtra, 4) + '\n' : ''}  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
${indent(o.schema, 8)}
${o.versionExtra ? indent(o.versionExtra, 4) + '\n' : ''}`;
}

/**
 * The causes kubectl prints for a 422 Invalid error (`The Kind "name" is invalid: ...`):
 * one cause after the colon, or several as `* ...` lines. A cause may span lines
 * (CEL compile errors carry a source snippet).
 */
export function invalidCauses(stderr: string, kind: string, name: string): string[] {
  const head = `The ${kind} "${name}" is invalid: `;
  const at = stderr.indexOf(head);
  if (at < 0) throw new Error(`no "${head}" in:\n${stderr}`);
  const rest = stderr.slice(at + head.length).replace(/\n$/, '');
  if (!rest.startsWith('\n* ')) return [rest];
  return rest.slice(3).split('\n* ');
}
