/**
 * readManifests: files and directories of YAML documents, as envtest reads
 * them; the same text is parsed once per process, yet every caller gets
 * objects of its own, and a file that changed is read as it is now.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@operant/runtime';
import { readManifests } from '../src/install/index.js';

type ConfigMapObject = KubeObject & { data?: { value?: string } };
const values = (objects: KubeObject[]): Array<[string | undefined, string | undefined]> => (objects as ConfigMapObject[]).map((o) => [o.metadata.name, o.data?.value]);
const configMap = (name: string, value: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: ${value}\n`;

test('each read gets its own objects; a changed file is read anew; documents, directories and bad files as before', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-manifests-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'a.yaml');
  writeFileSync(file, `${configMap('a', 'one')}---\n---\n${configMap('b', 'two')}`);
  writeFileSync(join(dir, 'notes.txt'), 'not a manifest');

  const first = await readManifests(file);
  assert.deepEqual(values(first), [['a', 'one'], ['b', 'two']]);
  // A caller that changes what it got (installing rewrites webhook configurations, say) changes nothing for the next.
  (first[0] as ConfigMapObject).data!.value = 'changed';
  first[0]!.metadata.name = 'renamed';
  const second = await readManifests(file);
  assert.deepEqual(values(second), [['a', 'one'], ['b', 'two']]);
  assert.notEqual(second[0], first[0]);

  writeFileSync(file, configMap('a', 'three'));
  assert.deepEqual(values(await readManifests(dir)), [['a', 'three']], 'the file as it is now; the .txt beside it left alone');

  writeFileSync(file, 'kind: [unclosed');
  await assert.rejects(readManifests(file), (err: Error) => err.message.startsWith(`${file}: `));
  writeFileSync(file, 'just: a map\n');
  await assert.rejects(readManifests(file), new RegExp(`^Error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: a document without a kind$`));
});
