/**
 * The developer loop (issue 15's benchmarks), with the real CLI: `operant
 * init` + `operant create api` in an empty directory (aim: under 2 s), against
 * the floor of the same CLI doing nothing (`operant --help`); and `operant dev
 * --embedded` from its start to a manager ready to reconcile (aim: under 3 s),
 * then a sample's reconcile, against the floor of starting the project's
 * manager under tsx alone. kubebuilder's `init` downloads Go modules for tens of
 * seconds and envtest takes 5-15 s to start; neither is on these machines.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { operantCli, timedOperant } from './operant-cli.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;


/** A command whose output lines are awaited in order; `stop()` sends SIGINT to its process group (as Ctrl-C does). */
class Running {
  private text = '';
  private readonly child;
  readonly started = performance.now();

  constructor(command: string, args: string[], cwd: string) {
    this.child = spawn(command, args, { cwd, detached: true, env: { ...process.env, OPERANT_LOG_LEVEL: 'info' } });
    const feed = (d: Buffer): void => void (this.text += d.toString());
    this.child.stdout.on('data', feed);
    this.child.stderr.on('data', feed);
  }

  /** Milliseconds since `since` when a line after the last match matches. */
  async until(pattern: RegExp, since = this.started): Promise<number> {
    const deadline = performance.now() + 60_000;
    for (;;) {
      const m = pattern.exec(this.text);
      if (m) {
        this.text = this.text.slice(m.index + m[0].length);
        return performance.now() - since;
      }
      if (performance.now() > deadline) throw new Error(`no ${pattern} in 60 s: ${this.text}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  stop(): Promise<void> {
    return new Promise((done) => {
      this.child.once('exit', () => done());
      process.kill(-this.child.pid!, 'SIGINT');
    });
  }
}

export async function scaffoldSection(workDir: string, rounds: number, log: Log): Promise<Row[]> {
  const floor: number[] = [];
  const scaffold: number[] = [];
  let project = '';
  for (let r = 0; r < rounds; r++) {
    project = mkdtempSync(join(workDir, 'scaffold-'));
    floor.push(timedOperant(['--help'], project));
    scaffold.push(timedOperant(['init', '--domain', 'kruise.io', '--project-name', 'bench'], project) + timedOperant(['create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'SidecarSet'], project));
  }
  log(`scaffold: init + create api ${scaffold.map((t) => t.toFixed(0)).join(', ')} ms`);
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project, stdio: 'ignore' });
  const serverOnly: number[] = [];
  const devReady: number[] = [];
  const firstReconcile: number[] = [];
  const kubeconfig = join(project, '.operant', 'kubeconfig');
  for (let r = 0; r < rounds; r++) {
    const server = new Running(process.execPath, [operantCli, 'server', '--port', '0'], project);
    serverOnly.push(await server.until(/^ready /m));
    await server.stop();
    const dev = new Running('npm', ['run', 'dev', '--', '--embedded', '--no-watch'], project);
    devReady.push(await dev.until(/"msg":"Starting workers"/));
    const applied = performance.now();
    execFileSync('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-k', 'config/samples'], { cwd: project, stdio: 'ignore' });
    await dev.until(/reconciled SidecarSet/);
    firstReconcile.push(performance.now() - dev.started);
    log(`dev: ready after ${devReady[r].toFixed(0)} ms, sample applied and reconciled ${(performance.now() - applied).toFixed(0)} ms later`);
    await dev.stop();
  }
  return [
    row('init + create api (wall)', scaffold, floor, fmt.ms, 'operant --help', '< 2 s', (v) => v < 2000),
    row('npm run dev: start to controller ready (embedded)', devReady, serverOnly, fmt.ms, 'operant server to ready', '< 3 s', (v) => v < 3000),
    row('npm run dev: start to first reconcile (kubectl apply between)', firstReconcile, serverOnly, fmt.ms, 'operant server to ready'),
  ];
}
