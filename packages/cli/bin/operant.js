#!/usr/bin/env node
// The committed launcher of the `operant` command. npm links a workspace's bins before the
// root `prepare` script has built dist/, and skips a bin whose target does not exist yet, so
// the bin must point at a file that is in the repository, not at build output.
//
// It runs the bundle of dist/bundle/ (scripts/bundle-cli.mjs: one CommonJS script, which
// starts faster than the ~150 files of dist/) while the bundle is as new as the tsc output it
// was made from; after a `tsc -b` that changed a package, dist/ itself, until the next build.
// The bundle is compiled with the V8 code cache the build recorded for that very file, when
// there is one and V8 accepts it (same V8, same flags); otherwise V8 compiles it as usual.
//
// `operant server` first goes to the server's own, smaller bundle (src/server-main.ts), which
// starts without commander and the other commands; it declines a command line that is not
// plainly the server's options (help, an unknown option, --nodes), which the full bundle then
// runs. OPERANT_FULL_BUNDLE=1 skips it (the build records the full bundle's cache so).
//
// It is CommonJS (bin/package.json says so), not an ES module like the rest of the package:
// Node sets up its ES module loader only for an ES module, which costs every start some
// milliseconds that the bundle, itself CommonJS, never needs.
'use strict';
const { readFileSync, statSync, writeFileSync, renameSync } = require('node:fs');
const { createRequire, Module } = require('node:module');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const bundleDir = join(__dirname, '..', 'dist', 'bundle');

function readStamp() {
  try {
    return JSON.parse(readFileSync(join(bundleDir, 'stamp.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

function bundleIsCurrent(stamp) {
  if (!stamp) return false;
  return Object.entries(stamp.inputs).every(([file, mtimeMs]) => {
    try {
      return statSync(join(bundleDir, file)).mtimeMs === mtimeMs;
    } catch {
      // No build info beside an installed package: its dist/ never changes.
      return true;
    }
  });
}

/** The code cache recorded for the bundle file as it is now, if any. */
function codeCacheFor(recorded, bundle) {
  if (!recorded || typeof recorded.file !== 'string' || recorded.file.includes('/')) return undefined;
  try {
    const { size, mtimeMs } = statSync(bundle);
    if (size !== recorded.source?.size || mtimeMs !== recorded.source?.mtimeMs) return undefined;
    return readFileSync(join(bundleDir, recorded.file));
  } catch {
    return undefined;
  }
}

/**
 * Runs a bundle (`file` in dist/bundle/) as a CommonJS module, compiled with its code cache
 * when there is one; returns its exports.
 */
function runBundle({ file, encoding, codeCache }) {
  const bundle = join(bundleDir, file);
  const require = createRequire(bundle);
  const cachedData = codeCacheFor(codeCache, bundle);
  // As Node's CommonJS loader compiles a module; the bundle makes no import() (scripts/bundle-cli.mjs).
  // The build says whether the bundle is ASCII, which reads faster as latin1 (the same text).
  const script = new vm.Script(Module.wrap(readFileSync(bundle, encoding === 'latin1' ? 'latin1' : 'utf8')), { filename: bundle, cachedData });
  // For troubleshooting (and the bin's test): whether V8 took the cache.
  if (process.env.OPERANT_CODE_CACHE_REPORT) process.stderr.write(`code cache: ${!cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used'}\n`);
  const mod = new Module(bundle);
  mod.filename = bundle;
  mod.paths = Module._nodeModulePaths(dirname(bundle));
  mod.loaded = true;
  lastScript = script;
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, bundle, dirname(bundle));
  return mod.exports;
}

/** The bundle that runs the command: the server's own for a command line it takes, else the full one. */
function runCommand(stamp) {
  const server = stamp.server;
  if (process.argv[2] === 'server' && server && typeof server.file === 'string' && !server.file.includes('/') && !process.env.OPERANT_FULL_BUNDLE) {
    if (runBundle(server).serverMain(process.argv.slice(3))) return;
  }
  runBundle({ file: 'operant.cjs', encoding: stamp.encoding, codeCache: stamp.codeCache });
}

// The build records a bundle's cache (scripts/bundle-cli.mjs): what V8 compiled of the bundle that ran
// the command by the time the command exits.
let lastScript;
const recordTo = process.env.OPERANT_WRITE_CODE_CACHE;
if (recordTo) {
  delete process.env.OPERANT_WRITE_CODE_CACHE;
  process.once('exit', () => {
    if (!lastScript) return;
    writeFileSync(`${recordTo}.tmp`, lastScript.createCachedData());
    renameSync(`${recordTo}.tmp`, recordTo);
  });
}

const stamp = readStamp();
if (bundleIsCurrent(stamp)) runCommand(stamp);
// dist/ is ES modules: import() loads them (a failure to load ends the process, as an uncaught error).
else import(pathToFileURL(join(__dirname, '..', 'dist', 'main.js')).href);
