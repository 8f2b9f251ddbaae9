// Runs every package's tests with node:test. Node 20 neither finds .ts test files
// nor expands globs by itself, so the files are listed here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : [...findTests('packages'), ...findTests('examples')].sort();
const result = spawnSync(
  process.execPath,
  // A test that awaits something that never comes fails after 3 minutes instead of hanging CI
  // (tests that need longer say so with their own timeout).
  ['--conditions=source', '--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...files],
  // Operators under test log at warn unless asked: info lines would bury the test report.
  { stdio: 'inherit', env: { OPERANT_LOG_LEVEL: 'warn', ...process.env } },
);
process.exit(result.status ?? 1);
