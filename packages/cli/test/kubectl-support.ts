/**
 * Shared pieces of the kubectl test files: one server per file, tests that
 * skip loudly without kubectl, and a way to follow a long-running kubectl
 * (`get -w`, `wait`) line by line.
 */
import { after, before, it, type TestContext } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { hasKubectl, kubectl, kubectlOk, kubectlPath, startServer, type KubectlResult, type ServerProcess } from './harness.js';

export const noKubectl = 'kubectl not found at /usr/bin/kubectl';

/**
 * Starts one server for the calling test file (in `before`, stopped in `after`)
 * and returns a getter for it. Without kubectl nothing is started.
 */
export function serverForFile(): () => ServerProcess {
  let server: ServerProcess | undefined;
  before(async () => {
    if (hasKubectl) server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('server not started');
    return server;
  };
}

type TestOptions = { todo?: string | boolean; timeout?: number };

/** A test that needs kubectl: skipped, with the reason, when kubectl is missing. */
export function kit(name: string, fn: (t: TestContext) => Promise<void>, opts: TestOptions = {}): void {
  it(name, { timeout: 30_000, ...opts }, async (t) => {
    if (!hasKubectl) {
      t.skip(noKubectl);
      return;
    }
    await fn(t);
  });
}

/** `kubectl apply -f -` of a YAML document (or several). */
export function applyYaml(server: ServerProcess, yaml: string, extra: string[] = []): Promise<string> {
  return kubectlOk(server, ['apply', '-f', '-', ...extra], { input: yaml });
}

/** kubectl that must fail; returns its stderr (and stdout) for inspection. */
export async function kubectlFails(server: ServerProcess, args: string[], opts: { input?: string } = {}): Promise<KubectlResult> {
  const r = await kubectl(server, args, opts);
  if (r.code === 0) throw new Error(`kubectl ${args.join(' ')} succeeded but was expected to fail: ${r.stdout}`);
  return r;
}

/** A kubectl left running (get -w, wait), whose output lines can be awaited. */
export class RunningKubectl {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  private partial = '';
  private waiters: Array<() => void> = [];
  private readonly exited: Promise<unknown>;

  constructor(server: ServerProcess, args: string[]) {
    this.child = spawn(kubectlPath, ['--kubeconfig', server.kubeconfig, ...args], {
      env: { ...process.env, KUBECACHEDIR: join(dirname(server.kubeconfig), 'cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = once(this.child, 'exit');
    this.child.stdout!.on('data', (d: Buffer) => {
      this.partial += d.toString();
      const parts = this.partial.split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts);
      this.wake();
    });
    this.child.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString();
      this.wake();
    });
    this.child.on('exit', () => this.wake());
  }

  private wake(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  /**
   * Resolves with the first output line at or after index `from` that matches;
   * rejects after `timeoutMs` (a deadline, not a sleep) or if kubectl exits first.
   */
  async waitForLine(pattern: RegExp, from = 0, timeoutMs = 10_000): Promise<{ line: string; index: number }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let i = from; i < this.lines.length; i++) if (pattern.test(this.lines[i])) return { line: this.lines[i], index: i };
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`kubectl exited (${this.child.exitCode ?? this.child.signalCode}) before printing ${pattern}; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${pattern}; stdout so far:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves once kubectl's stderr (e.g. its -v=6 request log) matches; rejects after `timeoutMs`. */
  async waitForStderr(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stderr)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`kubectl exited before logging ${pattern}:\n${this.stderr}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${pattern} on stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for kubectl to exit by itself; returns its exit code. */
  async exit(timeoutMs = 15_000): Promise<number | null> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
    return this.child.exitCode;
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** Splits a kubectl table into rows of whitespace-separated cells (header first). */
export function tableRows(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s{2,}/));
}

/** The header cells of a kubectl table. */
export function header(out: string): string[] {
  return tableRows(out)[0];
}

/** The row whose first cell (or the cell at `col`) equals `name`. */
export function row(out: string, name: string, col = 0): string[] {
  const r = tableRows(out).find((cells) => cells[col] === name);
  if (!r) throw new Error(`no row ${name} in:\n${out}`);
  return r;
}

/** Issuer and Certificate as schemaless CRDs: enough of cert-manager for a dry run to map the kinds. */
export async function installCertManagerKinds(server: ServerProcess): Promise<void> {
  for (const k of ['Issuer', 'Certificate']) {
    const plural = `${k.toLowerCase()}s`;
    await applyYaml(
      server,
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: ${k}, listKind: ${k}List, plural: ${plural}, singular: ${k.toLowerCase()}}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`,
    );
  }
  await kubectlOk(server, ['wait', '--for=condition=Established', 'crd/issuers.cert-manager.io', 'crd/certificates.cert-manager.io', '--timeout=10s']);
}
