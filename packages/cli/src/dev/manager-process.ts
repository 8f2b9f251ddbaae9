/**
 * The project's manager as a child process (`node --import tsx src/main.ts`),
 * so a change to the sources restarts it from scratch, as `make run` would,
 * and a crash of the operator does not take the dev loop down with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface ManagerProcessOptions {
  dir: string;
  kubeconfig: string;
  webhookPort: number;
}

export class ManagerProcess {
  private child: ChildProcess | undefined;

  constructor(private readonly options: ManagerProcessOptions) {}

  start(): void {
    const { dir, kubeconfig, webhookPort } = this.options;
    // The health and metrics servers stay off: several dev loops may run on one machine.
    const args = ['--import', 'tsx', 'src/main.ts', '--kubeconfig', kubeconfig, '--health-probe-bind-address=0', '--metrics-bind-address=0', `--webhook-port=${webhookPort}`];
    const child = spawn(process.execPath, args, { cwd: dir, stdio: 'inherit' });
    this.child = child;
    child.on('exit', (code, signal) => {
      // stop() forgets the child before it signals it: an exit of the current child was not asked for.
      if (this.child === child) process.stderr.write(`operant dev: the manager exited (${signal ?? `code ${code}`}); it restarts on the next change in src/\n`);
    });
  }

  /** Stops the manager (SIGTERM, so it shuts down gracefully) and waits for it. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }
}
