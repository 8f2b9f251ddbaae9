/**
 * Test harness: starts the embedded server the way a user does
 * (`operant server --port 0 --kubeconfig FILE`), and runs the real kubectl
 * against it.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

export const kubectlPath = '/usr/bin/kubectl';
export const hasKubectl = existsSync(kubectlPath);
// The bin, as users run it (it runs the bundle of dist/bundle/ when that is current).
const cliMain = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');

export interface ServerProcess {
  url: string;
  dir: string;
  kubeconfig: string;
  child: ChildProcess;
  /** Sends SIGTERM and waits for exit. */
  stop(): Promise<number | null>;
  /** kill -9 */
  kill(): Promise<void>;
  /** What the server wrote to stderr so far. */
  stderr(): string;
}

/** Starts `operant server` in a child process and waits for its `ready <url>` line. */
export async function startServer(opts: { dataDir?: string; dir?: string; extraArgs?: string[]; wrapper?: string[] } = {}): Promise<ServerProcess> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'operant-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const args = [cliMain, 'server', '--port', '0', '--kubeconfig', kubeconfig, ...(opts.extraArgs ?? [])];
  if (opts.dataDir) args.push('--data-dir', opts.dataDir);
  // A wrapper (such as nsenter) must exec the server, so that signals reach it.
  const [command, ...commandArgs] = [...(opts.wrapper ?? []), process.execPath, ...args];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^ready (\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before ready: ${stderr}`)));
  });
  const exited = once(child, 'exit');
  return {
    url,
    dir,
    kubeconfig,
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    stderr: () => stderr,
  };
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real kubectl with the server's kubeconfig. */
export function kubectl(server: { kubeconfig: string }, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectlPath,
      ['--kubeconfig', server.kubeconfig, ...args],
      { env: { ...process.env, KUBECACHEDIR: join(dirname(server.kubeconfig), 'cache'), ...opts.env }, timeout: opts.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

/** kubectl that must succeed; returns stdout. */
export async function kubectlOk(server: { kubeconfig: string }, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await kubectl(server, args, opts);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
