/**
 * The committed launcher (bin/operant.js) runs the bundle of dist/bundle/ only
 * while the tsc output it was made from is unchanged, and dist/ otherwise, so
 * that a `tsc -b` alone never leaves `operant` running stale code. It compiles
 * the bundle with the V8 code cache recorded for that very file, and never
 * with one recorded for another. `operant server` goes first to the server's
 * own bundle, which may decline the command line for the full one.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
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
  // The launcher is CommonJS in an ES module package: its own package.json says so.
  copyFileSync(join(dirname(launcher), 'package.json'), join(root, 'bin', 'package.json'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
  writeFileSync(join(root, 'dist', 'main.js'), "console.log('dist');\n");
  const bundle = join(root, 'dist', 'bundle', 'operant.cjs');
  writeFileSync(bundle, "console.log('bundle');\n");
  const buildInfo = join(root, 'tsconfig.tsbuildinfo');
  writeFileSync(buildInfo, '{}');
  const stamp = (inputs: Record<string, number>, extra: Record<string, unknown> = {}): void =>
    writeFileSync(join(root, 'dist', 'bundle', 'stamp.json'), JSON.stringify({ inputs, ...extra }));
  const run = (): string => execFileSync(process.execPath, [join(root, 'bin', 'operant.js')], { encoding: 'utf8' }).trim();
  /** Runs the bin; its output and what it says of the code cache. */
  const runReporting = (env: Record<string, string> = {}): { out: string; cache: string } => {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'operant.js')], { encoding: 'utf8', env: { ...process.env, OPERANT_CODE_CACHE_REPORT: '1', ...env } });
    assert.equal(r.status, 0, r.stderr);
    return { out: r.stdout.trim(), cache: /code cache: (\w+)/.exec(r.stderr)?.[1] ?? '' };
  };
  const cacheFile = join(root, 'dist', 'bundle', 'operant.cjs.cache');
  const cacheFor = (source: { size: number; mtimeMs: number }): Record<string, unknown> => ({ codeCache: { file: 'operant.cjs.cache', source } });

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

  it('reads the bundle as latin1 only when the build found it ASCII', () => {
    const inputs = { '../../tsconfig.tsbuildinfo': statSync(buildInfo).mtimeMs };
    writeFileSync(bundle, "console.log('caf\\u00e9 \\u00e9t\\u00e9'.length, 'bundle');\n");
    stamp(inputs, { encoding: 'latin1' });
    assert.equal(run(), '8 bundle');
    writeFileSync(bundle, "console.log('café été'.length, 'bundle');\n");
    stamp(inputs, { encoding: 'utf8' });
    assert.equal(run(), '8 bundle');
    stamp(inputs);
    assert.equal(run(), '8 bundle');
    writeFileSync(bundle, "console.log('bundle');\n");
  });

  it("runs `operant server` with the server's own bundle when it takes the command line, else with the full one", () => {
    const inputs = { '../../tsconfig.tsbuildinfo': statSync(buildInfo).mtimeMs };
    // A server bundle that takes any command line but `decline`, as server-main.ts takes only the server's options.
    writeFileSync(
      join(root, 'dist', 'bundle', 'operant-server.cjs'),
      "exports.serverMain = (args) => { if (args[0] === 'decline') return false; console.log('server', args.join(' ')); return true; };\n",
    );
    const runWith = (args: string[], env: Record<string, string> = {}): string =>
      execFileSync(process.execPath, [join(root, 'bin', 'operant.js'), ...args], { encoding: 'utf8', env: { ...process.env, ...env } }).trim();
    stamp(inputs, { server: { file: 'operant-server.cjs' } });
    assert.equal(runWith(['server', '--port', '0']), 'server --port 0');
    assert.equal(runWith(['server', 'decline']), 'bundle');
    assert.equal(runWith(['generate']), 'bundle');
    assert.equal(runWith(['server', '--port', '0'], { OPERANT_FULL_BUNDLE: '1' }), 'bundle');
    // A build without the server bundle (an older one): the full bundle runs everything.
    stamp(inputs);
    assert.equal(runWith(['server', '--port', '0']), 'bundle');
  });

  it('compiles the bundle with the code cache recorded for it, and ignores one recorded for another file', () => {
    const inputs = { '../../tsconfig.tsbuildinfo': statSync(buildInfo).mtimeMs };
    stamp(inputs);
    rmSync(cacheFile, { force: true });
    // Recorded as the build records it: the bundle run once, the cache written at exit.
    assert.deepEqual(runReporting({ OPERANT_WRITE_CODE_CACHE: cacheFile }), { out: 'bundle', cache: 'none' });
    const { size, mtimeMs } = statSync(bundle);
    stamp(inputs, cacheFor({ size, mtimeMs }));
    assert.deepEqual(runReporting(), { out: 'bundle', cache: 'used' });
    // The same cache beside a bundle of the same size that changed since: not used.
    writeFileSync(bundle, "console.log('BUNDLE');\n");
    assert.deepEqual(runReporting(), { out: 'BUNDLE', cache: 'none' });
    // A cache that is not V8's: V8 refuses it and compiles the bundle.
    stamp(inputs, cacheFor({ size: statSync(bundle).size, mtimeMs: statSync(bundle).mtimeMs }));
    writeFileSync(cacheFile, 'not a code cache');
    assert.deepEqual(runReporting(), { out: 'BUNDLE', cache: 'rejected' });
  });
});
