/**
 * The managedFields each bootstrap object is created with (one Update entry, by
 * kube-apiserver or by the priority-and-fairness config producer), computed
 * ahead of time by scripts/gen-bootstrap-managed-fields.ts into
 * bootstrap-managed-fields.json, each with an empty `time` that the write
 * fills in: a start then computes no field sets for its 49 objects. The
 * test bootstrap-managed-fields.test.ts proves the file equal to what the
 * write path computes from the bootstrap objects as they are now.
 */
import { readFileSync } from 'node:fs';
import type { ManagedFieldsEntry } from '@operant/apimachinery/managedfields';

type Table = Readonly<Record<string, readonly ManagedFieldsEntry[]>>;

let table: Table | undefined;

/** A bootstrap object's key in the file: `<resource>.<group>/<name>`, or `<resource>/<name>` for the core group. */
export function bootstrapObjectKey(group: string, resource: string, name: string): string {
  return `${group ? `${resource}.${group}` : resource}/${name}`;
}

/** The managedFields computed ahead for a bootstrap object (times empty); undefined for an object the file lacks. */
export function precomputedManagedFields(group: string, resource: string, name: string): readonly ManagedFieldsEntry[] | undefined {
  table ??= JSON.parse(readFileSync(new URL('./bootstrap-managed-fields.json', import.meta.url), 'utf8')) as Table;
  return table[bootstrapObjectKey(group, resource, name)];
}
