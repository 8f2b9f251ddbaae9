#!/usr/bin/env node
// The committed launcher of the `operant` command. npm links a workspace's bins before the
// root `prepare` script has built dist/, and skips a bin whose target does not exist yet, so
// the bin must point at a file that is in the repository, not at build output.
//
// It runs the bundle of dist/bundle/ (scripts/bundle-cli.mjs: one chunk per command, which
// starts faster than the ~150 files of dist/) while the bundle is as new as the tsc output it
// was made from; after a `tsc -b` that changed a package, dist/ itself, until the next build.
import { readFileSync, statSync } from 'node:fs';

function bundleIsCurrent() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(new URL('../dist/bundle/stamp.json', import.meta.url), 'utf8'));
  } catch {
    return false;
  }
  return Object.entries(stamp.inputs).every(([file, mtimeMs]) => {
    try {
      return statSync(new URL(file, new URL('../dist/bundle/', import.meta.url))).mtimeMs === mtimeMs;
    } catch {
      // No build info beside an installed package: its dist/ never changes.
      return true;
    }
  });
}

await import(bundleIsCurrent() ? '../dist/bundle/main.js' : '../dist/main.js');
