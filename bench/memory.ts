/** Runs memory-child.ts in fresh child processes with --expose-gc: the server, then the plain-JSON baseline. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './processes.js';

export interface MemoryFigures {
  count: number;
  gc: boolean;
  heapPerPod: number;
  rssPerPod: number;
  jsonBytesPerPod: number;
}

/**
 * Runs `script` (a module of bench/) in a fresh process with --expose-gc, so that
 * its heap figures start from a collected heap; resolves with the JSON of its last line.
 */
export function measuringChild<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--conditions=source', '--import', 'tsx', join(repoRoot, 'bench', script), ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as T);
      } catch (e) {
        reject(new Error(`${script} ${args.join(' ')} failed (${(e as Error).message}): ${err}${out}`));
      }
    });
  });
}

function child(args: string[]): Promise<MemoryFigures> {
  return measuringChild<MemoryFigures>('memory-child.ts', args);
}

/** One measurement of `count` pods in a server, and of the same pods as plain JSON. */
export async function memoryPerPod(count: number, workDir: string, run: number): Promise<{ server: MemoryFigures; plain: MemoryFigures }> {
  const file = join(workDir, `memory-pods-${run}.json`);
  const server = await child(['server', String(count), file]);
  const plain = await child(['plain', file]);
  return { server, plain };
}
