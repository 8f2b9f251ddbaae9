/** Starts informer-child.ts in a process of its own and talks to it over the IPC channel. */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { repoRoot } from './processes.js';
import type { ChildCommand, ChildMessage, DoneMessage, InformerMode, SyncedMessage } from './informer-child.js';

type MessageOf<M extends ChildMessage['msg']> = Extract<ChildMessage, { msg: M }>;

interface Waiter {
  msg: ChildMessage['msg'];
  resolve: (m: { message: ChildMessage; at: number }) => void;
  reject: (e: Error) => void;
}

/** A reply and the moment (this process's performance.now()) it arrived. */
export interface Timed<T> {
  message: T;
  at: number;
}

export class InformerProcess {
  private readonly waiters: Waiter[] = [];
  private readonly early: Array<{ message: ChildMessage; at: number }> = [];
  private output = '';
  private readonly exited: Promise<unknown>;

  private constructor(
    readonly mode: InformerMode,
    private readonly child: ChildProcess,
  ) {
    this.exited = once(child, 'exit');
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.on('message', (message: ChildMessage) => this.deliver(message, performance.now()));
    child.once('exit', (code, signal) => this.failAll(new Error(`exited (${signal ?? code})`)));
  }

  /** Forks a child running `mode` and resolves once its informer is built and its baseline heap measured. */
  static async start(mode: InformerMode, kubeconfig: string, namespace: string, count: number): Promise<InformerProcess> {
    // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (node --cpu-prof).
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const child = fork(join(repoRoot, 'bench', 'informer-child.ts'), [mode, kubeconfig, namespace, String(count)], {
      cwd: repoRoot,
      execArgv: ['--expose-gc', '--conditions=source', '--import', 'tsx', ...profile],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const p = new InformerProcess(mode, child);
    await p.next('ready');
    return p;
  }

  /** Starts the informer; resolves with the sync time and heap figures. */
  async sync(): Promise<SyncedMessage> {
    this.send({ cmd: 'sync' });
    return (await this.next('synced')).message;
  }

  /**
   * Starts counting handler calls; resolves once the child has reset its
   * counters, with the promise of its report (`updates` updates seen, or the add of `marker`).
   */
  async expect(phase: string, until: { updates: number } | { marker: string }): Promise<{ done: Promise<Timed<DoneMessage>> }> {
    const done = this.next('done');
    done.catch(() => undefined); // awaited by the caller; failures surface there
    this.send({ cmd: 'expect', phase, ...until });
    await this.next('armed');
    return { done };
  }

  /** Freezes the process (SIGSTOP): its socket buffers fill while events accumulate. */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  /** Stops the informer and waits for the process to exit (killing it if it does not within 5 s). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.resume();
    this.send({ cmd: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }

  private send(command: ChildCommand): void {
    this.child.send(command);
  }

  private next<M extends ChildMessage['msg']>(msg: M): Promise<Timed<MessageOf<M>>> {
    const i = this.early.findIndex((e) => e.message.msg === msg);
    if (i >= 0) return Promise.resolve(this.early.splice(i, 1)[0] as Timed<MessageOf<M>>);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.reject(this.failure(new Error('exited')));
    return new Promise((resolve, reject) => {
      this.waiters.push({ msg, resolve: resolve as (m: { message: ChildMessage; at: number }) => void, reject });
    });
  }

  private deliver(message: ChildMessage, at: number): void {
    if (message.msg === 'failed') {
      this.failAll(new Error(message.error));
      return;
    }
    const i = this.waiters.findIndex((w) => w.msg === message.msg);
    if (i < 0) {
      this.early.push({ message, at });
      return;
    }
    this.waiters.splice(i, 1)[0]!.resolve({ message, at });
  }

  private failAll(e: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(this.failure(e));
  }

  private failure(e: Error): Error {
    return new Error(`informer child ${this.mode}: ${e.message}\n${this.output.slice(-2000)}`);
  }
}
