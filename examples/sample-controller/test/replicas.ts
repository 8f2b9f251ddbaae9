/**
 * The sample-controller as a Deployment of N replicas runs it: N processes
 * of src/main.ts with --leader-elect on one Lease, each started again when it
 * exits (as the kubelet restarts a container, whatever ended it), and sent
 * SIGTERM, then SIGKILL after a grace period, when stopped. Their JSON log
 * lines say who campaigns under which identity, who took the Lease, and who
 * reconciled what, so that a test can tell a handover happened and that the
 * new leader did the work; the Lease itself says who leads now.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lease, isNotFound, type Client } from '@operant/runtime';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');

/** The election timing the replicas run with, as kube-controller-manager's flags take it. */
export interface ElectionTiming {
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
}

/** Options of {@link Replicas}. */
export interface ReplicasOptions {
  count: number;
  /** The kubeconfig the replicas use (a fault proxy's, say). */
  kubeconfigPath: string;
  /** Where their Lease lives. */
  lease: { name: string; namespace: string };
  timing: ElectionTiming;
  /** Reads the Lease (straight to the server, not through the replicas' proxy). */
  client: Client;
  /** How long a SIGTERM'd replica may take before it gets SIGKILL; default 10 s. */
  gracePeriodMs?: number;
  /** Told of each lifecycle line (started, exited, leading). */
  log?: (line: string) => void;
}

/** One process of a replica slot: `replica-2#3` is slot 2's third process. */
export interface ReplicaProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Its identity in the Lease, once it has said it. */
  identity?: string;
  /** `performance.now()` when it took the Lease, if it did. */
  ledAt?: number;
  /** Reconciles it finished ("Successfully synced"). */
  synced: number;
  /** Watches of its informers that met 410 Expired and relisted (from the proxy's `expire`, or the server's short history). */
  relists: number;
  /** Its last reconcile errors ("Reconciler error" lines: the Foo, and the error's message), oldest first. */
  reconcileErrors: Array<{ at: number; foo: string; error: string }>;
  exited?: { code: number | null; signal: NodeJS.Signals | null };
}

export class Replicas {
  /** Every process started so far, in order. */
  readonly processes: ReplicaProcess[] = [];
  private readonly current: ReplicaProcess[] = [];
  private stopping = false;
  private onLeader: Array<(p: ReplicaProcess) => void> = [];
  private readonly t0 = performance.now();

  constructor(private readonly options: ReplicasOptions) {
    for (let slot = 1; slot <= options.count; slot++) this.current.push(this.spawn(slot, 1));
  }

  /** Resolves once some replica has taken the Lease (said so in its log). */
  firstLeader(timeoutMs = 60_000): Promise<ReplicaProcess> {
    const leader = this.processes.find((p) => p.ledAt !== undefined);
    if (leader) return Promise.resolve(leader);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no replica took the Lease within ${timeoutMs} ms`)), timeoutMs);
      this.onLeader.push((p) => {
        clearTimeout(timer);
        resolve(p);
      });
    });
  }

  /** The live process that holds the Lease now, by the Lease on the server. */
  async leader(): Promise<ReplicaProcess | undefined> {
    const { name, namespace } = this.options.lease;
    const lease = await this.options.client.get(Lease, name, { namespace }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    const holder = lease?.spec?.holderIdentity;
    return holder ? this.current.find((p) => p.identity === holder && !p.exited) : undefined;
  }

  /** The Lease's holder changes (`spec.leaseTransitions`), as the server counts them. */
  async leaseTransitions(): Promise<number> {
    const { name, namespace } = this.options.lease;
    return (await this.options.client.get(Lease, name, { namespace })).spec?.leaseTransitions ?? 0;
  }

  /** Stops restarting, sends every replica SIGTERM (SIGKILL after the grace period) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.current.map((p) => this.terminate(p)));
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace period; resolves when it has exited. */
  async terminate(p: ReplicaProcess): Promise<void> {
    if (p.exited) return;
    const exited = once(p.child, 'exit');
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.log(`${p.name} still running ${this.options.gracePeriodMs ?? 10_000} ms after SIGTERM: SIGKILL`);
      p.child.kill('SIGKILL');
    }, this.options.gracePeriodMs ?? 10_000);
    await exited;
    clearTimeout(timer);
  }

  private spawn(slot: number, generation: number): ReplicaProcess {
    const { kubeconfigPath, lease, timing } = this.options;
    const args = [
      '--conditions=source', '--import', 'tsx', main,
      '--kubeconfig', kubeconfigPath,
      '--leader-elect',
      '--leader-elect-resource-name', lease.name,
      '--leader-elect-resource-namespace', lease.namespace,
      '--leader-elect-lease-duration', timing.leaseDuration,
      '--leader-elect-renew-deadline', timing.renewDeadline,
      '--leader-elect-retry-period', timing.retryPeriod,
    ];
    // Info lines are what tell who leads and who reconciles (the test runner sets warn for its own process).
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPERANT_LOG_LEVEL: 'info' } });
    const p: ReplicaProcess = { name: `replica-${slot}#${generation}`, child, synced: 0, relists: 0, reconcileErrors: [] };
    this.processes.push(p);
    this.log(`${p.name} started (pid ${child.pid})`);
    let partial = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) this.read(p, line);
    });
    child.once('exit', (code, signal) => {
      p.exited = { code, signal };
      this.log(`${p.name} exited (${signal ?? `code ${code}`})`);
      const at = this.current.indexOf(p);
      if (this.stopping || at < 0) return;
      // Started again, as the kubelet restarts a container (without its growing back-off: the run is short).
      setTimeout(() => {
        if (!this.stopping) this.current[at] = this.spawn(slot, generation + 1);
      }, 200);
    });
    return p;
  }

  private read(p: ReplicaProcess, line: string): void {
    let entry: { msg?: string; identity?: string; namespace?: string; name?: string; err?: { message?: string } | string };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    if (entry.msg === 'attempting to acquire leader lease' && entry.identity) p.identity = entry.identity;
    else if (entry.msg === 'successfully acquired lease') {
      p.ledAt = performance.now();
      this.log(`${p.name} took the Lease`);
      for (const wake of this.onLeader.splice(0)) wake(p);
    } else if (entry.msg === 'Successfully synced') p.synced++;
    else if (entry.msg === 'resourceVersion expired; relisting') p.relists++;
    else if (entry.msg?.startsWith('Reconciler error')) {
      const error = typeof entry.err === 'string' ? entry.err : (entry.err?.message ?? '');
      p.reconcileErrors.push({ at: performance.now(), foo: `${entry.namespace ?? ''}/${entry.name ?? ''}`, error });
      if (p.reconcileErrors.length > 20) p.reconcileErrors.shift();
    }
    else if (entry.msg === 'leaderelection lost') this.log(`${p.name} lost the Lease and exits`);
  }

  private log(line: string): void {
    this.options.log?.(`+${((performance.now() - this.t0) / 1000).toFixed(2)}s ${line}`);
  }
}
