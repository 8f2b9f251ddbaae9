/**
 * The generated kinds module compiles against the runtime, and gives the
 * client a typed Kind: a wrong field type in an object of the kind is a
 * compile error.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { kindsOutputs, loadProject, writeOutputs } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
// Inside the repository, so that '@operant/runtime' resolves to the workspace package (its built types).
const dir = mkdtempSync(join(here, '.tmp-kinds-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('zz_generated.kinds.ts type-checks, and types the client\'s objects', () => {
  cpSync(join(here, 'fixtures', 'cronjob', 'src'), join(dir, 'src'), { recursive: true });
  const project = loadProject(['src/**/*.ts'], dir);
  writeOutputs(kindsOutputs(project), dir);
  const usage = join(dir, 'usage.ts');
  writeFileSync(
    usage,
    `import type { Kind } from '@operant/runtime';
import { CronJob } from './src/api/v1/zz_generated.kinds.js';
export const kind: Kind<CronJob> = CronJob;
export const ok: CronJob = { metadata: { name: 'nightly' }, spec: { schedule: '0 0 * * *', jobTemplate: {} } };
// @ts-expect-error schedule is a string
export const bad: CronJob = { metadata: {}, spec: { schedule: 5, jobTemplate: {} } };
`,
  );
  const program = ts.createProgram([usage], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  assert.deepEqual(diagnostics, []);
});
