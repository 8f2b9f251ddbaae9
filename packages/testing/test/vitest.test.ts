/**
 * The toolkit works under vitest, not only node:test, as a user installs it:
 * vitest itself runs the suite in ./vitest (a TestEnv started and stopped in
 * its hooks, a namespace tied to a test by onTestFinished and gone after it,
 * eventually), once, not watching, on the packages' built `dist` (what the
 * packages' exports give without the `source` condition, run by Node as an
 * installed dependency is); every one of its tests passes, and it leaves no
 * process behind. The `dist` must be built from the sources as they are:
 * `npm ci` (prepare) and `npm test` (build) do it; after editing the sources,
 * `npm run build` or `npx tsc -b packages/testing`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const packagesDir = join(here, '..', '..');
const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
/** The packages whose `dist` the suite runs: the toolkit and what it imports. */
const builtPackages = ['apimachinery', 'apiserver', 'controllers', 'runtime', 'testing'];

test('a vitest suite using @operant/testing runs and passes under vitest, on the built dist', async (t) => {
  const stale = builtPackages.filter(isStale);
  assert.deepEqual(stale, [], `the dist of ${stale.join(', ')} is older than its sources: run npm run build (or npx tsc -b packages/testing) first`);
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
  // What the suite's imports resolved to (printed by its vitest.config.ts): the built files, not the sources.
  assert.match(output, /^resolved @operant\/testing -> .*\/packages\/testing\/dist\/index\.js$/m, output);
  assert.match(output, /^resolved @operant\/runtime -> .*\/packages\/runtime\/dist\/index\.js$/m, output);
  assert.equal(groupAlive(group), false, 'vitest left processes running');
});

/** Whether a package's sources (what its tsconfig builds) changed after its last build, or it was never built. */
function isStale(name: string): boolean {
  const dir = join(packagesDir, name);
  const built = statSync(join(dir, 'tsconfig.tsbuildinfo'), { throwIfNoEntry: false })?.mtimeMs;
  return built === undefined || newestSource(join(dir, 'src')) > built;
}

/** The latest modification time of the files under `dir` that a build compiles (tests and testdata are left out). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testdata') newest = Math.max(newest, newestSource(path));
    } else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether any process of the group is still running (signal 0 only checks). */
function groupAlive(group: number): boolean {
  try {
    process.kill(group, 0);
    return true;
  } catch {
    return false;
  }
}
