/**
 * The toolkit works under vitest, not only node:test: vitest itself runs the
 * suite in ./vitest (a TestEnv started and stopped in its hooks, a namespace
 * tied to a test by onTestFinished and gone after it, eventually), once, not
 * watching, every one of its tests passes, and it leaves no process behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

test('a vitest suite using @operant/testing runs and passes under vitest', async (t) => {
  // Its own process group, so that nothing vitest started outlives the test, even if it hangs.
  const child = spawn(process.execPath, [vitestBin, 'run', '--root', join(here, 'vitest')], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
  });
  const group = -child.pid!;
  t.after(() => {
    if (groupAlive(group)) process.kill(group, 'SIGKILL');
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);

  assert.equal(code, 0, `vitest exited with ${code}:\n${output}`);
  assert.match(output, /Test Files\s+1 passed \(1\)/, output);
  assert.match(output, /Tests\s+2 passed \(2\)/, output);
  assert.equal(groupAlive(group), false, 'vitest left processes running');
});

/** Whether any process of the group is still running (signal 0 only checks). */
function groupAlive(group: number): boolean {
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}
