/**
 * The README's TypeScript compiles against the packages as a user's test
 * file would import them (its ```ts blocks, each a module beside this file),
 * and its first example, the test file, runs and passes as a user's would:
 * in a project whose config/crd/bases holds the WebApp CRD it names.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compileSnippets } from '../../../scripts/compile-snippets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');

test('the README examples compile', () => {
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.ok(blocks.length > 0);
  const files = new Map(blocks.map((text, i) => [join(here, `__readme_${i}.ts`), `${text}\nexport {};\n`]));
  const errors = compileSnippets([...files].map(([path, text]) => ({ path, text }))).map(
    (d) => `README block ${d.snippet.path.match(/__readme_(\d+)/)![1]} line ${d.line + 1}: ${d.message(' ')}`,
  );
  assert.deepEqual(errors, []);
});

/** The CRD of the README's WebApp, as `operant generate` would write it into config/crd/bases. */
const webAppCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: webapps.example.com}
spec:
  group: example.com
  names: {kind: WebApp, listKind: WebAppList, plural: webapps, singular: webapp}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
`;

test("the README's test file passes, run as a user runs it", { timeout: 120_000 }, async () => {
  const example = /^## A test file\n[\s\S]*?^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  assert.ok(example, 'the README has a test file under "## A test file"');
  // Inside the repository, so that its package imports resolve as in a project that installed them.
  const project = mkdtempSync(join(here, '.readme-project-'));
  try {
    mkdirSync(join(project, 'config', 'crd', 'bases'), { recursive: true });
    writeFileSync(join(project, 'config', 'crd', 'bases', 'example.com_webapps.yaml'), webAppCrd);
    writeFileSync(join(project, 'webapp.test.ts'), example);
    // A test file of its own, not a subtest of this one: node:test marks the processes it starts with NODE_TEST_CONTEXT.
    const { NODE_TEST_CONTEXT: _nested, ...userEnv } = process.env;
    const run = await promisify(execFile)(process.execPath, ['--conditions=source', '--import', 'tsx', '--test', 'webapp.test.ts'], {
      cwd: project,
      env: { ...userEnv, OPERANT_LOG_LEVEL: 'warn' },
      timeout: 100_000,
    }).catch((err: Error & { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: `${err.message}\n${err.stderr ?? ''}` }));
    const output = `${run.stdout}\n${run.stderr}`;
    assert.match(run.stdout, /^# pass 1$/m, output);
    assert.match(run.stdout, /^# fail 0$/m, output);
    // The play printed its seed first, as the README says.
    assert.match(run.stdout, /^# chaos: seed 1234, 10\.0 s, \d+ faults \(replay: seed 1234\)$/m, output);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
