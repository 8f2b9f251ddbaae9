/**
 * Child processes for the benchmarks: `operant server` started the way a user
 * starts it, and the bare Node servers that serve as baselines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schedCpuMsOf } from './proc.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The committed bin, as `npx operant` runs it (the bundle of dist/bundle/ when it is current). */
export const cliMain = join(repoRoot, 'packages', 'cli', 'bin', 'operant.js');

export interface ReadyProcess {
  child: ChildProcess;
  /** The URL printed on the `ready <url>` line (empty when the line is just `ready`). */
  url: string;
  /** Milliseconds from spawn() to the `ready` line. */
  readyMs: number;
  /** CPU time the process had used when its `ready` line arrived, ms (all threads; NaN without /proc). */
  readyCpuMs: number;
  /** SIGTERM, then wait for exit. */
  stop(): Promise<void>;
}

/** Spawns `command args` and resolves once it prints a line `ready[ <url>]`. */
export async function spawnReady(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<ReadyProcess> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env, cwd: repoRoot });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /^ready(?: (\S+))?$/m.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(m[1] ?? '');
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code} before ready: ${stderr}`)));
  });
  const readyMs = performance.now() - started;
  const readyCpuMs = child.pid === undefined ? NaN : schedCpuMsOf(child.pid);
  return {
    child,
    url,
    readyMs,
    readyCpuMs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `operant server --port 0 --kubeconfig <dir>/kubeconfig [--data-dir <dataDir>]`. */
export function startOperant(kubeconfig: string, dataDir?: string, env?: NodeJS.ProcessEnv): Promise<ReadyProcess> {
  const args = [cliMain, 'server', '--port', '0', '--kubeconfig', kubeconfig];
  if (dataDir) args.push('--data-dir', dataDir);
  return spawnReady(process.execPath, args, env);
}

/** The Node floor: a bare `node -e` that starts an HTTP server and prints `ready`. */
export function startNodeFloor(env?: NodeJS.ProcessEnv): Promise<ReadyProcess> {
  return spawnReady(
    process.execPath,
    ['-e', "require('http').createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', function () { console.log('ready http://127.0.0.1:' + this.address().port) })"],
    env,
  );
}

export interface BareServerOptions {
  certFile: string;
  keyFile: string;
  /** A JSON file served for GET requests that are not watches. */
  listFile?: string;
  /** Stamp namespace and managedFields on creates and keep the objects, as an API server does (see bare-server.ts). */
  kubeFields?: boolean;
}

/** The bare HTTPS server of bare-server.ts, the ceiling for throughput figures. */
export function startBareServer(opts: BareServerOptions): Promise<ReadyProcess> {
  const args = ['--import', 'tsx', join(repoRoot, 'bench', 'bare-server.ts'), opts.certFile, opts.keyFile];
  if (opts.listFile) args.push(opts.listFile);
  return spawnReady(process.execPath, args, opts.kubeFields ? { ...process.env, OPERANT_BARE_KUBE_FIELDS: '1' } : undefined);
}
