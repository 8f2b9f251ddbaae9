/** The real `operant` command, run and timed as a user runs it (the codegen and scaffold sections). */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const operantCli = join(process.cwd(), 'packages', 'cli', 'bin', 'operant.js');

/** Runs `operant <args>` in `cwd` to completion; the wall time in milliseconds. */
export function timedOperant(args: string[], cwd: string): number {
  const t = performance.now();
  execFileSync(process.execPath, [operantCli, ...args], { cwd, stdio: 'ignore' });
  return performance.now() - t;
}
