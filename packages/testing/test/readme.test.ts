/**
 * The README's TypeScript compiles against the packages as a user's test
 * file would import them (its ```ts blocks, each a module beside this file).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSnippets } from '../../../scripts/compile-snippets.mjs';

const here = dirname(fileURLToPath(import.meta.url));

test('the README examples compile', () => {
  const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.ok(blocks.length > 0);
  const files = new Map(blocks.map((text, i) => [join(here, `__readme_${i}.ts`), `${text}\nexport {};\n`]));
  const errors = compileSnippets([...files].map(([path, text]) => ({ path, text }))).map(
    (d) => `README block ${d.snippet.path.match(/__readme_(\d+)/)![1]} line ${d.line + 1}: ${d.message(' ')}`,
  );
  assert.deepEqual(errors, []);
});
