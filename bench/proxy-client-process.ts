/** Starts proxy-client-child.ts (the operator's side of the proxy bench) in a process of its own and asks it, one command at a time. */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { ClientCommand, ClientMessage, ClientRoute } from './proxy-client-child.js';
import { repoRoot } from './processes.js';

type Reply<M extends ClientMessage['msg']> = Extract<ClientMessage, { msg: M }>;

export class ClientProcess {
  private waiting: { resolve: (m: ClientMessage) => void; reject: (e: Error) => void } | undefined;
  private output = '';
  private readonly exited: Promise<unknown>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = once(child, 'exit');
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.on('message', (m: ClientMessage) => {
      const w = this.waiting;
      this.waiting = undefined;
      if (m.msg === 'failed') w?.reject(this.failure(m.error));
      else w?.resolve(m);
    });
    child.once('exit', (code, signal) => this.waiting?.reject(this.failure(`exited (${signal ?? code})`)));
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Forks the child with a client per route; resolves once they are made. */
  static async start(namespace: string, routes: ClientRoute[]): Promise<ClientProcess> {
    const child = fork(join(repoRoot, 'bench', 'proxy-client-child.ts'), [namespace, JSON.stringify(routes)], {
      cwd: repoRoot,
      execArgv: ['--conditions=source', '--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const p = new ClientProcess(child);
    await p.reply('ready');
    return p;
  }

  /** Median latency of `count` GETs one after another through `route`, ms. */
  async latency(route: string, count: number): Promise<number> {
    this.child.send({ cmd: 'latency', route, count } satisfies ClientCommand);
    return (await this.reply('latency')).p50Ms;
  }

  /** GETs through `route` with `connections` loops for `ms`: how many, and what they cost this child. */
  async rate(route: string, connections: number, ms: number): Promise<Reply<'rate'>> {
    this.child.send({ cmd: 'rate', route, connections, ms } satisfies ClientCommand);
    return this.reply('rate');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.send({ cmd: 'stop' } satisfies ClientCommand);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }

  private async reply<M extends ClientMessage['msg']>(msg: M): Promise<Reply<M>> {
    const m = await new Promise<ClientMessage>((resolve, reject) => (this.waiting = { resolve, reject }));
    if (m.msg !== msg) throw this.failure(`wanted ${msg}, got ${m.msg}`);
    return m as Reply<M>;
  }

  private failure(text: string): Error {
    return new Error(`proxy client child: ${text}\n${this.output.slice(-2000)}`);
  }
}
