/**
 * Every ```ts example in the runtime's TSDoc compiles (issue 19: the
 * ReconcileFunc example called an `ignoreNotFound` that nothing exported).
 * scripts/check-examples.mjs does the checking; the build runs it for every
 * package, and this runs it for the runtime with the runtime's tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('every TSDoc example of the runtime type-checks as a module of its own', async () => {
  const run = await promisify(execFile)(process.execPath, ['scripts/check-examples.mjs', 'packages/runtime'], { cwd: root }).catch(
    (err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
  assert.equal(run.stderr, '');
  assert.match(run.stdout, /^check-examples: \d+ examples compile/);
});
