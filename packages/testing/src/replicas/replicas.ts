/**
 * An operator run as a Deployment runs it: `count` processes of any program
 * (an Operant operator's module, or a Go operator's binary), each started
 * again when it exits, whatever ended it, as the kubelet restarts a
 * container; stopped with SIGTERM, then SIGKILL after a grace period, as a
 * pod is deleted. With leader election the replicas campaign for one Lease,
 * and the Lease is what tells which process leads: a replica that prints
 * "successfully acquired lease" (client-go's words, and Operant's) is the
 * holder the Lease names right then, whatever its identity looks like. That
 * is what the operator faults need (kill the leader, SIGTERM it during a
 * reconcile), see {@link Replicas.operatorFaults}.
 *
 * No process outlives the test's: what is still running when the process
 * exits gets SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Lease, isNotFound, type Client } from '@operant/runtime';
import type { FaultScope } from '../chaos/faults.js';
import type { OperatorFaultHandler } from '../chaos/handed-faults.js';
import type { FaultProxy } from '../chaos/proxy.js';
import { ReconcileErrorLog, type ReconcileErrorRecord } from '../env/reconcile-errors.js';
import { acquiredLeaseLine, controllerRuntimeReconcileError, lineReader, type ReconcileErrorLine } from './output.js';

/** Which slot and which start of it a process is, to build its command line from. */
export interface ReplicaSlot {
  /** 1 to `count`. */
  readonly slot: number;
  /** 1 for the slot's first process, 2 for the one started after it exited... */
  readonly generation: number;
  /** `replica-2#3`: slot 2's third process. */
  readonly name: string;
}

/** The program of {@link ReplicasOptions}: a command, or a module that Node runs. */
export type ReplicaProgram =
  | {
      /** An executable (a Go operator's binary, `process.execPath`...), with `args`. */
      command: string;
      args?: readonly string[] | ((replica: ReplicaSlot) => readonly string[]);
    }
  | {
      /** A module run by this Node, with `args` after it. */
      module: string;
      args?: readonly string[] | ((replica: ReplicaSlot) => readonly string[]);
      /**
       * Node's options before the module; default the ones that make this
       * process load modules as it does (`--import`, `--loader`, `--conditions`,
       * `--experimental-*`), so that a `.ts` module the test imports runs too.
       */
      execArgv?: readonly string[];
    };

/**
 * Options of {@link Replicas.start}: the program, and how its replicas run.
 *
 * @example
 * ```ts
 * import type { ReplicasOptions } from '@operant/testing';
 *
 * // A Go operator's binary, three replicas on one Lease.
 * const options: ReplicasOptions = {
 *   command: './bin/manager',
 *   args: ['--leader-elect', '--zap-devel=false'],
 *   count: 3,
 *   kubeconfig: '/tmp/test/kubeconfig',
 *   lease: { name: 'my-operator.example.com', namespace: 'default' },
 * };
 * ```
 */
export type ReplicasOptions = ReplicaProgram & ReplicasSettings;

/**
 * How an operator's replicas run, whatever the program (see {@link ReplicasOptions}).
 *
 * @example
 * ```ts
 * import type { ReplicasSettings } from '@operant/testing';
 *
 * const settings: ReplicasSettings = { count: 3, gracePeriodMs: 5_000, env: (r) => ({ POD_NAME: `my-operator-${r.slot}` }) };
 * ```
 */
export interface ReplicasSettings {
  /** How many processes run at once; default 1. */
  count?: number;
  /** The kubeconfig they use, as `KUBECONFIG` in their environment (a fault proxy's, say). */
  kubeconfig?: string;
  /** More environment variables (this process's are passed on too). */
  env?: Record<string, string> | ((replica: ReplicaSlot) => Record<string, string>);
  /** The Lease they campaign for; without one, only a single replica can be told to lead (it is the manager). */
  lease?: { name: string; namespace: string };
  /** Reads the Lease; needed with `lease` (TestEnv.replicas gives its admin client). */
  client?: Client;
  /** How long a replica may take to exit after SIGTERM before it gets SIGKILL, ms; default 10,000. */
  gracePeriodMs?: number;
  /** How long after an exit the replica is started again, ms; default 200 (no growing back-off: runs are short). */
  restartDelayMs?: number;
  /** The line that says a replica took the Lease; default `/successfully acquired lease/`. */
  leaderLine?: RegExp;
  /** Reads a failed reconcile from a line of output; default controller-runtime's JSON lines ({@link controllerRuntimeReconcileError}). */
  reconcileError?: (line: string) => ReconcileErrorLine | undefined;
  /** Every line a replica writes (standard output and error). */
  onLine?: (replica: ReplicaProcess, line: string) => void;
  /** Told of each lifecycle event (started, exited, took the Lease, killed), a line at a time, with the time since the start. */
  log?: (line: string) => void;
}

/**
 * One process of a replica slot.
 *
 * @example
 * ```ts
 * declare const replicas: import('@operant/testing').Replicas;
 * for (const p of replicas.processes) console.log(p.name, p.child.pid, p.identity, p.exited?.signal);
 * ```
 */
export interface ReplicaProcess extends ReplicaSlot {
  readonly child: ChildProcess;
  /** `performance.now()` when it was started. */
  readonly startedAt: number;
  /** Its identity in the Lease, once it took the Lease. */
  readonly identity?: string;
  /** `performance.now()` when it said it took the Lease. */
  readonly ledAt?: number;
  /** How it ended, once it has. */
  readonly exited?: { code: number | null; signal: NodeJS.Signals | null; at: number };
  /** Resolves when it has exited. */
  readonly exit: Promise<void>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * How {@link Replicas.operatorFaults} carries out `terminate-leader`.
 *
 * @example
 * ```ts
 * import type { OperatorFaultOptions } from '@operant/testing';
 *
 * declare const proxy: import('@operant/testing').FaultProxy;
 * const options: OperatorFaultOptions = { proxy, hold: { verbs: ['create', 'update'], resources: ['deployments.apps'], ms: 1_000 } };
 * ```
 */
export interface OperatorFaultOptions {
  /** The proxy the replicas talk through, which holds a write of a reconcile in flight. */
  proxy?: FaultProxy;
  /**
   * The writes of a reconcile (the leader's: only it reconciles): the next
   * one in the fault's window is held `ms` (default 1,000) in the proxy, and
   * the leader gets SIGTERM while it waits. Without it, the leader gets
   * SIGTERM as the window opens, reconciling or not.
   */
  hold?: FaultScope & { ms?: number };
}

/** Children still running, killed if this process exits first. */
const running = new Set<ChildProcess>();
let exitHook = false;
function watchForExit(child: ChildProcess): void {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** Node's options of this process that say how it loads modules (what a `.ts` module needs to run). */
function loaderArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const takesValue = ['--import', '--loader', '--experimental-loader', '--require', '-r', '--conditions', '-C'];
    if (takesValue.includes(arg) && i + 1 < argv.length) out.push(arg, argv[++i]!);
    else if (/^--(import|loader|experimental-loader|require|conditions)=/.test(arg) || /^--experimental-(strip|transform)-types$/.test(arg)) out.push(arg);
  }
  return out;
}

/**
 * The processes of an operator's replicas (see the module's comment).
 *
 * @example
 * ```ts
 * import { Replicas, TestEnv, chaos, faultKinds, operatorFaultKinds } from '@operant/testing';
 *
 * const env = await TestEnv.start({ crds: 'config/crd/bases' });
 * const proxy = await env.faultProxy();
 * // Three replicas of the operator's main module, on one Lease, talking through the proxy.
 * const replicas = await env.replicas({
 *   module: 'src/main.ts',
 *   args: ['--leader-elect', '--leader-elect-resource-namespace', 'default'],
 *   count: 3,
 *   kubeconfig: proxy,
 *   lease: { name: 'my-operator', namespace: 'default' },
 *   env: { OPERANT_LOG_LEVEL: 'info' }, // the Lease line is an info line
 * });
 * await replicas.firstLeader();
 * const report = await proxy.play(chaos({ seed: 7, duration: 15_000, faults: [...faultKinds, ...operatorFaultKinds] }), {
 *   operator: replicas.operatorFaults({ proxy, hold: { verbs: ['create', 'update', 'patch'], resources: ['deployments.apps'] } }),
 * });
 * console.log(report.timeline()); // +2.70s  hit   #9 kill-leader: replica-1#1 (pid 4242): SIGKILL to the leader
 * await env.stop(); // the replicas stop first
 * ```
 */
export class Replicas implements AsyncDisposable {
  /** Every process started so far, in order. */
  readonly processes: ReplicaProcess[] = [];
  /** The live (or last) process of each slot. */
  private readonly current: Array<Mutable<ReplicaProcess>> = [];
  private readonly restarts = new Set<NodeJS.Timeout>();
  private readonly leaderWaiters: Array<(p: ReplicaProcess) => void> = [];
  private readonly errors = new ReconcileErrorLog();
  private readonly t0 = performance.now();
  private stopping: Promise<void> | undefined;

  private constructor(private readonly options: ReplicasOptions) {
    if (options.lease && !options.client) throw new Error('Replicas: a lease needs a client to read it (options.client)');
  }

  /**
   * Starts `count` processes of the program (they keep running, and are
   * started again when they exit, until {@link stop}).
   *
   * @example
   * ```ts
   * import { Replicas } from '@operant/testing';
   *
   * // One replica of a Go operator, no election: a kill-leader fault kills it, and it is started again.
   * const manager = Replicas.start({ command: './bin/manager', kubeconfig: '/tmp/test/kubeconfig' });
   * const killed = manager.live()[0]!;
   * killed.child.kill('SIGKILL');
   * await killed.exit;
   * await manager.stop();
   * ```
   */
  static start(options: ReplicasOptions): Replicas {
    const count = options.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new Error(`Replicas: count must be a positive integer, not ${count}`);
    const replicas = new Replicas(options);
    for (let slot = 1; slot <= count; slot++) replicas.current.push(replicas.spawn(slot, 1));
    return replicas;
  }

  /** The processes running now, one per slot (a slot between an exit and its restart has none). */
  live(): ReplicaProcess[] {
    return this.current.filter((p) => !p.exited);
  }

  /** The processes that took the Lease, in the order they did. */
  leaders(): ReplicaProcess[] {
    return this.processes.filter((p) => p.ledAt !== undefined).sort((a, b) => a.ledAt! - b.ledAt!);
  }

  /** The reconcile errors their output reported, oldest first (the last 50); with `since` (`performance.now()`), those after it. */
  reconcileErrors(since?: number): ReconcileErrorRecord[] {
    return this.errors.list(since);
  }

  /** Resolves with the first process that says it took the Lease (at once if one did already). */
  firstLeader(timeoutMs = 60_000): Promise<ReplicaProcess> {
    const leader = this.leaders()[0];
    if (leader) return Promise.resolve(leader);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no replica took the Lease within ${timeoutMs} ms`)), timeoutMs);
      this.leaderWaiters.push((p) => {
        clearTimeout(timer);
        resolve(p);
      });
    });
  }

  /**
   * The live process that leads now: the one whose identity the Lease
   * names; without a Lease, the one process when there is one.
   */
  async leader(): Promise<ReplicaProcess | undefined> {
    if (!this.options.lease) {
      const live = this.live();
      return live.length === 1 ? live[0] : undefined;
    }
    const holder = await this.holder();
    return holder ? this.live().find((p) => p.identity === holder) : undefined;
  }

  /** The Lease's holder changes (`spec.leaseTransitions`), as the server counts them; 0 without a Lease. */
  async leaseTransitions(): Promise<number> {
    const lease = await this.readLease();
    return lease?.spec?.leaseTransitions ?? 0;
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace period; resolves when it has exited. */
  async terminate(p: ReplicaProcess): Promise<void> {
    if (p.exited) return;
    const grace = this.options.gracePeriodMs ?? 10_000;
    p.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.log(`${p.name} still running ${grace} ms after SIGTERM: SIGKILL`);
      p.child.kill('SIGKILL');
    }, grace);
    await p.exit;
    clearTimeout(timer);
  }

  /**
   * A handler for a schedule's operator faults (`proxy.play(schedule, { operator })`):
   * `kill-leader` sends SIGKILL to the leader (with one replica and no
   * Lease: the manager), which cannot release the Lease, and is started
   * again; `terminate-leader` sends the leader SIGTERM while a write of its
   * reconcile is held in the proxy (with `hold`), SIGKILL after the grace
   * period. Each names what it struck, or says why nothing (a miss).
   *
   * @example
   * ```ts
   * import { chaos, operatorFaultKinds } from '@operant/testing';
   *
   * declare const env: import('@operant/testing').TestEnv;
   * const replicas = await env.replicas({ command: './bin/manager' }); // one replica, no election
   * const proxy = await env.faultProxy();
   * // SIGKILL to the manager, and SIGTERM, each at its offset; it is started again after each.
   * await proxy.play(chaos({ seed: 3, duration: 10_000, faults: [...operatorFaultKinds] }), { operator: replicas.operatorFaults() });
   * ```
   */
  operatorFaults(options: OperatorFaultOptions = {}): OperatorFaultHandler {
    const named = (p: ReplicaProcess): string => `${p.name} (pid ${p.child.pid})`;
    const whom = (): string => (this.options.lease ? 'the leader' : 'the manager');
    return async (fault, window) => {
      if (fault.kind === 'kill-leader') {
        const leader = await this.leader();
        if (!leader) return { detail: await this.noLeader() };
        leader.child.kill('SIGKILL');
        this.log(`${leader.name}: SIGKILL`);
        return { target: named(leader), detail: `SIGKILL to ${whom()}` };
      }
      const { proxy, hold } = options;
      let during = '';
      let heldWrite: string | undefined;
      if (proxy && hold) {
        const { ms = 1000, ...scope } = hold;
        const held = proxy.inject({ kind: 'latency', ms, ...scope }, { times: 1 });
        await Promise.race([held.ended, window.aborted ? undefined : once(window, 'abort')]);
        held.remove();
        const write = proxy.records.find((r) => r.type === 'hit' && r.faultId === held.id);
        if (!write) return { detail: 'no reconcile wrote during the window' };
        heldWrite = write.request;
        during = ` while its ${heldWrite} was held in flight`;
      }
      const leader = await this.leader();
      if (!leader) return { detail: `${await this.noLeader()}${heldWrite ? ` (the held write: ${heldWrite})` : ''}` };
      this.log(`${leader.name}: SIGTERM${during}`);
      void this.terminate(leader);
      return { target: named(leader), detail: `SIGTERM${during}` };
    };
  }

  /** Stops starting replicas again, sends each SIGTERM (SIGKILL after the grace period), and resolves when all have exited. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const t of this.restarts) clearTimeout(t);
      this.restarts.clear();
      await Promise.all(this.processes.map((p) => this.terminate(p)));
    })();
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private spawn(slot: number, generation: number): Mutable<ReplicaProcess> {
    const o = this.options;
    const id: ReplicaSlot = { slot, generation, name: `replica-${slot}#${generation}` };
    const args = typeof o.args === 'function' ? o.args(id) : (o.args ?? []);
    const [command, argv] = 'module' in o ? [process.execPath, [...(o.execArgv ?? loaderArgv()), o.module, ...args]] : [o.command, [...args]];
    const env = { ...process.env, ...(o.kubeconfig ? { KUBECONFIG: o.kubeconfig } : {}), ...(typeof o.env === 'function' ? o.env(id) : o.env) };
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], env });
    watchForExit(child);
    let exited!: () => void;
    const p: Mutable<ReplicaProcess> = { ...id, child, startedAt: performance.now(), exit: new Promise<void>((resolve) => (exited = resolve)) };
    this.processes.push(p);
    this.log(`${p.name} started (pid ${child.pid})`);
    for (const stream of [child.stdout!, child.stderr!]) {
      const reader = lineReader((line) => this.read(p, line));
      stream.on('data', (chunk: Buffer) => reader.chunk(chunk));
      stream.on('end', () => reader.end());
    }
    const ended = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (p.exited) return;
      p.exited = { code, signal, at: performance.now() };
      exited();
      this.log(`${p.name} exited (${signal ?? `code ${code}`})`);
      if (this.stopping) return;
      const timer = setTimeout(() => {
        this.restarts.delete(timer);
        if (!this.stopping) this.current[slot - 1] = this.spawn(slot, generation + 1);
      }, o.restartDelayMs ?? 200);
      this.restarts.add(timer);
    };
    child.once('exit', ended);
    // A command that cannot start (no such file) ends too, and is started again, as a container whose image is wrong.
    child.once('error', (err) => {
      this.log(`${p.name}: ${err.message}`);
      if (child.pid === undefined) ended(null, null);
    });
    return p;
  }

  private read(p: Mutable<ReplicaProcess>, line: string): void {
    if ((this.options.leaderLine ?? acquiredLeaseLine).test(line)) void this.tookLease(p);
    const failed = (this.options.reconcileError ?? controllerRuntimeReconcileError)(line);
    if (failed) this.errors.add({ ...failed, at: performance.now(), replica: p.name });
    this.options.onLine?.(p, line);
  }

  /** A replica said it took the Lease: the Lease names its identity now. */
  private async tookLease(p: Mutable<ReplicaProcess>): Promise<void> {
    p.ledAt = performance.now();
    if (this.options.lease) {
      const holder = await this.holder().catch(() => undefined);
      // Another live process with that identity would mean the Lease changed hands since: leave it unknown.
      if (holder && !this.live().some((q) => q !== p && q.identity === holder)) p.identity = holder;
    }
    this.log(`${p.name} took the Lease${p.identity ? ` as ${p.identity}` : ''}`);
    for (const wake of this.leaderWaiters.splice(0)) wake(p);
  }

  private async noLeader(): Promise<string> {
    if (!this.options.lease) return `${this.live().length} replicas run and no Lease says which leads`;
    const holder = await this.holder().catch((err: unknown) => `(unreadable: ${err instanceof Error ? err.message : String(err)})`);
    // A replica is known as the holder once it printed its leader line (`leaderLine`).
    return holder ? `the Lease's holder ${holder} is none of the live replicas that said they took it` : 'no replica holds the Lease';
  }

  private async holder(): Promise<string | undefined> {
    return (await this.readLease())?.spec?.holderIdentity ?? undefined;
  }

  private async readLease() {
    const { lease, client } = this.options;
    if (!lease || !client) return undefined;
    return client.get(Lease, lease.name, { namespace: lease.namespace }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
  }

  private log(line: string): void {
    this.options.log?.(`+${((performance.now() - this.t0) / 1000).toFixed(2)}s ${line}`);
  }
}
