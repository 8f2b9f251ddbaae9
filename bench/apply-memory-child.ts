/**
 * The heap that metadata.managedFields cost per stored object, measured in a
 * fresh process (run with --expose-gc):
 *
 *   apply-memory-child.ts FILE   parses the list in FILE (objects as the server
 *                                stores them: parsed JSON) into a Map by name,
 *                                then deletes each object's managedFields
 *
 * Prints one JSON line: { count, gc, heapWith, heapWithout, jsonWith, jsonWithout },
 * heap and JSON bytes per object with and without managedFields.
 */
import { readFileSync } from 'node:fs';
import { canCollect, settle } from './settle.js';

interface Stored {
  metadata: { name: string; managedFields?: unknown };
}

const file = process.argv[2];
if (!file) throw new Error('usage: apply-memory-child.ts FILE');
const before = await settle();
let text = readFileSync(file, 'utf8');
const jsonBytes = Buffer.byteLength(text);
const map = new Map<string, Stored>();
for (const o of (JSON.parse(text) as { items: Stored[] }).items) map.set(o.metadata.name, o);
text = '';
const withFields = await settle();
let managedJson = 0;
for (const o of map.values()) {
  const { managedFields, ...metadata } = o.metadata;
  managedJson += Buffer.byteLength(`,"managedFields":${JSON.stringify(managedFields ?? null)}`);
  // A new metadata object rather than `delete`, which could leave the old one in dictionary mode.
  o.metadata = metadata;
}
const withoutFields = await settle();
const count = map.size;
process.stdout.write(
  `${JSON.stringify({
    count,
    gc: canCollect,
    heapWith: (withFields.heap - before.heap) / count,
    heapWithout: (withoutFields.heap - before.heap) / count,
    jsonWith: jsonBytes / count,
    jsonWithout: (jsonBytes - managedJson) / count,
  })}\n`,
);
process.exit(0);
