/**
 * Writes docs/markers.md from the generator's marker registry, so the reference
 * lists exactly the markers `operant generate` reads. A test fails when the
 * committed file differs from what the registry gives.
 *
 * Run: node --conditions=source --import tsx packages/codegen/scripts/write-marker-reference.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markerReference } from '../src/index.js';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'markers.md');
writeFileSync(out, markerReference());
console.log(`wrote ${out}`);
