/**
 * What `env.startManager` takes as `setup`, as a user's test file writes it:
 * an arrow whose body is the builder chain returns the builder's Controller,
 * which `operant create api`'s scaffolded test does. Typed
 * `(mgr) => void | Promise<void>` before, it was refused (TS2322: Type
 * 'Controller' is not assignable to type 'void | Promise<void>') by any editor
 * or `tsc` that checked the test, though it ran under tsx.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileSnippets } from '../../../scripts/compile-snippets.mjs';

const here = dirname(fileURLToPath(import.meta.url));

test("startManager's setup may return what it likes: the builder's Controller, a promise, nothing", () => {
  const text = `import { ConfigMap, type Manager } from '@operant/runtime';
import { TestEnv } from '@operant/testing';

declare const env: TestEnv;
await env.startManager((mgr) => mgr.controller('chained').for(ConfigMap).reconcile(async () => {}));
await env.startManager(async (mgr) => {
  mgr.controller('async').for(ConfigMap).reconcile(async () => {});
});
await env.startManager((mgr: Manager): void => void mgr.controller('void').for(ConfigMap).reconcile(async () => {}));
export {};
`;
  const errors = compileSnippets([{ path: join(here, '__setup_types.ts'), text }]).map((d) => `line ${d.line + 1}: ${d.message(' ')}`);
  assert.deepEqual(errors, []);
});
