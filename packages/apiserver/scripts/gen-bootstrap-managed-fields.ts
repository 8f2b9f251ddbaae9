/**
 * Generates `src/bootstrap-managed-fields.json`: the managedFields each
 * bootstrap object (default RBAC policy, PriorityClasses, initial namespaces,
 * priority-and-fairness configuration, the `kubernetes` Service and its
 * endpoints) is created with, as the server's full
 * create path records them, with each entry's `time` left empty (a start
 * writes its own). The server then copies them instead of computing them.
 *
 * Source: an in-memory server started with `bootstrapWrites: 'full'`, whose
 * watch history holds each bootstrap object as it was created (before the
 * built-in controllers, such as ClusterRole aggregation, change any). Run it
 * after changing a bootstrap object (bootstrap-managed-fields.test.ts fails
 * until then):
 *
 *   node --conditions=source --import tsx packages/apiserver/scripts/gen-bootstrap-managed-fields.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ManagedFieldsEntry } from '@operant/apimachinery/managedfields';
import { startApiServer } from '../src/server.js';
import { bootstrapObjectKey } from '../src/bootstrap-managed-fields.js';

/** The resources that hold the bootstrap objects, and only those on a new server. */
const bootstrapResources = [
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings' },
  { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' },
  { group: '', version: 'v1', resource: 'namespaces' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas' },
  // The `kubernetes` Service, Endpoints and EndpointSlice in `default`.
  { group: '', version: 'v1', resource: 'services' },
  { group: '', version: 'v1', resource: 'endpoints' },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' },
];

type WatchEvent = { type: string; object: { metadata: { name: string; managedFields?: ManagedFieldsEntry[] } } };

/**
 * The managedFields of each bootstrap object as the full create path wrote it,
 * times emptied, by the key of bootstrap-managed-fields.ts, in the order of
 * creation: each object's first ADDED event in a watch from the first revision.
 */
export async function computeBootstrapManagedFields(): Promise<Record<string, ManagedFieldsEntry[]>> {
  const server = await startApiServer({ port: 0, insecureHttp: true, bootstrapWrites: 'full' });
  try {
    const out: Record<string, ManagedFieldsEntry[]> = {};
    for (const { group, version, resource } of bootstrapResources) {
      const path = group ? `/apis/${group}/${version}/${resource}` : `/api/${version}/${resource}`;
      // The watch replays the history from revision 1 and ends after a second.
      const res = await fetch(`${server.url}${path}?watch=1&resourceVersion=1&timeoutSeconds=1`, { headers: { Authorization: `Bearer ${server.adminToken}` } });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      for (const line of (await res.text()).split('\n')) {
        if (!line) continue;
        const event = JSON.parse(line) as WatchEvent;
        const key = bootstrapObjectKey(group, resource, event.object.metadata.name);
        if (event.type !== 'ADDED' || key in out) continue;
        const entries = event.object.metadata.managedFields;
        if (!entries?.length) throw new Error(`${key}: created without managedFields`);
        out[key] = entries.map((entry) => ({ ...entry, time: '' }));
      }
    }
    return out;
  } finally {
    await server.stop();
  }
}

/** The file's text: one object per line, so that a change in one bootstrap object is a one-line diff. */
export function bootstrapManagedFieldsText(table: Record<string, ManagedFieldsEntry[]>): string {
  const lines = Object.entries(table).map(([key, entries]) => `  ${JSON.stringify(key)}: ${JSON.stringify(entries)}`);
  return `{\n${lines.join(',\n')}\n}\n`;
}

export const bootstrapManagedFieldsFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'bootstrap-managed-fields.json');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const table = await computeBootstrapManagedFields();
  writeFileSync(bootstrapManagedFieldsFile, bootstrapManagedFieldsText(table));
  console.log(`wrote ${Object.keys(table).length} objects' managedFields to ${bootstrapManagedFieldsFile}`);
}
