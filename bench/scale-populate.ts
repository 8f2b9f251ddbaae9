/**
 * Grows a data dir to a number of pods, fast: through the server's own storage
 * (MvccStore over SqlitePersistence, the code a create ends in), without
 * HTTP, so that 100,000 objects take seconds rather than minutes. Each pod is
 * a copy of `template` (a pod the server created and returned) with its own
 * name, uid and index, as the server would have stored it.
 *
 * Usage (a child process, so the bench never holds the database open):
 *   scale-populate.ts <dataDir> <namespace> <template.json> <from> <to>
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeObject } from '@operant/apimachinery';
// The bench reaches into the server's storage on purpose: it is a fixture builder, not a client.
import { MvccStore } from '../packages/apiserver/src/storage/mvcc-store.js';
import { SqlitePersistence } from '../packages/apiserver/src/storage/sqlite-persistence.js';

const [dataDir, namespace, templateFile, fromText, toText] = process.argv.slice(2);
const template = JSON.parse(readFileSync(templateFile, 'utf8')) as KubeObject;
const store = new MvccStore({ persistence: new SqlitePersistence(dataDir) });
for (let i = Number(fromText); i < Number(toText); i++) {
  const name = `pod-${String(i).padStart(6, '0')}`;
  const pod = structuredClone(template) as KubeObject & { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } };
  pod.metadata.name = name;
  pod.metadata.uid = randomUUID();
  pod.metadata.labels = { ...pod.metadata.labels, shard: String(i % 100) };
  pod.metadata.annotations = { ...pod.metadata.annotations, 'bench.operant.dev/index': String(i) };
  pod.spec.containers[0].env = [
    { name: 'MODE', value: 'bench' },
    { name: 'INDEX', value: String(i) },
  ];
  store.create(`/core/pods/${namespace}/${name}`, pod);
  // Let the flushes run now and then, as they would between requests.
  if (i % 5000 === 4999) await store.durable();
}
await store.durable();
store.close();
