/**
 * The committed launcher (bin/operant.js) runs the bundle of dist/bundle/ only
 * while the tsc output it was made from is unchanged, and dist/ otherwise, so
 * that a `tsc -b` alone never leaves `operant` running stale code.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';

const launcher = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');

describe('bin/operant.js', () => {
  // A package laid out as packages/cli is, with entry points that say which one ran.
  const root = mkdtempSync(join(tmpdir(), 'operant-bin-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist', 'bundle'), { recursive: true });
  copyFileSync(launcher, join(root, 'bin', 'operant.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(root, 'dist', 'main.js'), "console.log('dist');\n");
  writeFileSync(join(root, 'dist', 'bundle', 'main.js'), "console.log('bundle');\n");
  const buildInfo = join(root, 'tsconfig.tsbuildinfo');
  writeFileSync(buildInfo, '{}');
  const stamp = (inputs: Record<string, number>): void => writeFileSync(join(root, 'dist', 'bundle', 'stamp.json'), JSON.stringify({ inputs }));
  const run = (): string => execFileSync(process.execPath, [join(root, 'bin', 'operant.js')], { encoding: 'utf8' }).trim();

  it('runs the bundle while its inputs are as they were', () => {
    stamp({ '../../tsconfig.tsbuildinfo': statSync(buildInfo).mtimeMs });
    assert.equal(run(), 'bundle');
  });

  it('runs dist/ once a package was rebuilt after the bundle', () => {
    stamp({ '../../tsconfig.tsbuildinfo': statSync(buildInfo).mtimeMs });
    const later = new Date(Date.now() + 60_000);
    utimesSync(buildInfo, later, later);
    assert.equal(run(), 'dist');
  });

  it('runs dist/ without a bundle, and the bundle of an installed package (no build info)', () => {
    rmSync(join(root, 'dist', 'bundle', 'stamp.json'));
    assert.equal(run(), 'dist');
    stamp({ '../../../apiserver/tsconfig.tsbuildinfo': 1 });
    assert.equal(run(), 'bundle');
  });
});
