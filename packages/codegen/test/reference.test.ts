/** docs/markers.md is the registry's reference, regenerated when a marker changes. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markerReference, markerRegistry } from '../src/index.js';

it('docs/markers.md matches the marker registry (re-run scripts/write-marker-reference.ts)', () => {
  const committed = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'markers.md'), 'utf8');
  assert.equal(committed, markerReference());
  for (const def of markerRegistry().definitions()) assert.ok(committed.includes(`+${def.name}`), def.name);
});
