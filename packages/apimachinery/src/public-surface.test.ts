/**
 * The public surface (issue 18): `@operant/apimachinery`'s root exports what an
 * operator author or a client uses, and this test holds it to a reviewed list
 * (testdata/root-exports.json), so that a helper internal cannot slip back in
 * unnoticed. A change to the list is a change to the public API: review it,
 * then update the file. The server's machinery lives behind subpaths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

const reviewed = JSON.parse(await readFile(new URL('./testdata/root-exports.json', import.meta.url), 'utf8')) as string[];

test('the root exports exactly the reviewed values', async () => {
  const root = await import('./index.js');
  const actual = Object.keys(root).sort();
  const added = actual.filter((name) => !reviewed.includes(name));
  const removed = reviewed.filter((name) => !actual.includes(name));
  assert.deepEqual({ added, removed }, { added: [], removed: [] }, 'the root export list changed: review it and update testdata/root-exports.json');
});

test('helper internals are not in the root; the machinery is behind its subpaths', async () => {
  const root: Record<string, unknown> = await import('./index.js');
  for (const internal of ['formatFieldValue', 'utf8Length', 'nameIsDNSLabel', 'goJsonMarshal', 'goFormat', 'compileGoRegexp', 'FieldManager', 'compileSchemaRules', 'parseJsonPath', 'parseCronSchedule', 'unescapeFieldSelectorValue']) {
    assert.ok(!(internal in root), `${internal} is not exported from the root`);
  }
  const subpaths: Record<string, { module: Promise<Record<string, unknown>>; has: string[] }> = {
    schema: { module: import('./schema/index.js'), has: ['validateValue', 'applyDefaults', 'pruneValue', 'validateStructuralSchema', 'resolveSchema', 'compileGoRegexp'] },
    cel: { module: import('./cel/index.js'), has: ['compileSchemaRules', 'evaluateRules'] },
    managedfields: { module: import('./managedfields/index.js'), has: ['FieldManager', 'FieldSet'] },
    jsonpath: { module: import('./jsonpath/index.js'), has: ['parseJsonPath', 'executeJsonPath', 'validatePrinterColumn'] },
    cron: { module: import('./cron/index.js'), has: ['parseCronSchedule', 'isTimeZone'] },
    quota: { module: import('./quota/index.js'), has: ['quotaUsage', 'printResources'] },
    patch: { module: import('./patch/index.js'), has: ['applyJsonPatch', 'goFormat', 'maxJsonPatchOperations'] },
    json: { module: import('./json/index.js'), has: ['duplicateKeys', 'formatFieldPath'] },
  };
  for (const [subpath, { module, has }] of Object.entries(subpaths)) {
    const exports = await module;
    for (const name of has) assert.ok(name in exports, `@operant/apimachinery/${subpath} exports ${name}`);
  }
});

test('package.json maps each subpath to its module', async () => {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { exports: Record<string, { source: string; types: string; default: string }> };
  const subpaths = ['cel', 'cron', 'json', 'jsonpath', 'managedfields', 'patch', 'quota', 'schema'];
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', ...subpaths.map((s) => `./${s}`)]);
  for (const subpath of subpaths) {
    assert.deepEqual(pkg.exports[`./${subpath}`], { source: `./src/${subpath}/index.ts`, types: `./dist/${subpath}/index.d.ts`, default: `./dist/${subpath}/index.js` });
  }
});

test('names the README showed at the root still resolve there for one release', async () => {
  const root: Record<string, unknown> = await import('./index.js');
  const schema: Record<string, unknown> = await import('./schema/index.js');
  const cel: Record<string, unknown> = await import('./cel/index.js');
  for (const name of ['validateValue', 'applyDefaults', 'pruneValue']) assert.equal(root[name], schema[name], `${name} is the /schema one`);
  assert.equal(root.evaluateRules, cel.evaluateRules);
});
