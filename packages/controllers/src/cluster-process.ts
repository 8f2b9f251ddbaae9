/**
 * The simulated cluster in a child process of its own, beside the API server
 * it talks to (over the wire, as in one process): the server and the cluster
 * each get a core and a heap. What `operant server --nodes N` runs.
 *
 * The child lives no longer than its parent: it stops when the parent asks,
 * on SIGTERM or SIGINT, and when its IPC channel closes, which is what a
 * parent killed with SIGKILL leaves behind, so no orphan keeps writing to a
 * server that is gone. Its stdout and stderr are the parent's.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { SimulatedClusterOptions } from './cluster.js';

/**
 * Options of {@link startSimulatedClusterProcess}: those of
 * `startSimulatedCluster` that can cross to another process.
 *
 * @example
 * ```ts
 * import type { SimulatedClusterProcessOptions } from '@operant/controllers';
 *
 * const options: SimulatedClusterProcessOptions = { kubeconfig: { path: '.operant/kubeconfig' }, nodes: 100, controllers: ['*', '-cronjob'], timeScale: 10 };
 * ```
 */
export interface SimulatedClusterProcessOptions extends Pick<SimulatedClusterOptions, 'nodes' | 'controllers' | 'shape' | 'timing'> {
  /** The API server: a kubeconfig file, or its text (sent to the child over IPC, never on its command line). */
  kubeconfig: { path: string; context?: string } | { kubeconfigText: string; context?: string };
  /** How many times faster than the wall cluster time runs; default 1 (the wall clock). */
  timeScale?: number;
  /**
   * The API server's private socket (`RunningApiServer.socketPath`, a server
   * started with `privateSocket`): the cluster then reaches it there in plain
   * HTTP, with the kubeconfig's credentials, instead of over TLS at its URL.
   * The server and the cluster process each spent a tenth or more of their
   * CPU on TLS scaling pods. Default: the kubeconfig's URL.
   */
  socketPath?: string;
  /** With `timeScale`: the wall-clock instant (epoch ms) cluster time speeds up from; default now, in the parent. */
  timeAnchor?: number;
  /** How long {@link SimulatedClusterProcess.stop} waits for a graceful stop before SIGKILL; default 15 s (the controllers get 10). */
  stopTimeoutMs?: number;
}

/**
 * A simulated cluster running in a child process.
 *
 * @example
 * ```ts
 * import { startSimulatedClusterProcess, type SimulatedClusterProcess } from '@operant/controllers';
 *
 * const cluster: SimulatedClusterProcess = await startSimulatedClusterProcess({ kubeconfig: { path: '.operant/kubeconfig' }, nodes: 100 });
 * console.log(cluster.pid, cluster.nodes.length); // its own process; 100
 * await cluster.stop();
 * ```
 */
export interface SimulatedClusterProcess {
  /** The simulated nodes' names. */
  readonly nodes: readonly string[];
  /** The child's process id (to watch its memory, say). */
  readonly pid: number;
  /** Resolves when the child exits, for whatever reason, with its exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Stops the controllers and nodes and waits for the child to exit (killing it past the timeout). */
  stop(): Promise<void>;
}

/** What the parent sends the child. */
export type ToClusterChild = { type: 'start'; options: Omit<SimulatedClusterProcessOptions, 'stopTimeoutMs'> & { timeAnchor: number } } | { type: 'stop' };
/** What the child answers. */
export type FromClusterChild = { type: 'ready'; nodes: string[] } | { type: 'failed'; message: string };

/** The child's module, beside this one (a `.ts` one when the parent runs from sources). */
const childModule = new URL(`./cluster-process-child.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

/**
 * Starts a simulated cluster (the controllers, the scheduler and `nodes`
 * simulated nodes, as `startSimulatedCluster`) in a child process; resolves
 * once the nodes are registered and every controller runs there. The child
 * runs with this process's Node options (`--import tsx`, `--cpu-prof`...).
 *
 * @example
 * ```ts
 * import { startSimulatedClusterProcess } from '@operant/controllers';
 *
 * const cluster = await startSimulatedClusterProcess({ kubeconfig: { path: '.operant/kubeconfig' }, nodes: 3, controllers: ['*', '-deployment'] });
 * process.once('SIGTERM', () => void cluster.stop());
 * ```
 */
export async function startSimulatedClusterProcess(options: SimulatedClusterProcessOptions): Promise<SimulatedClusterProcess> {
  const { stopTimeoutMs = 15_000, ...rest } = options;
  const child = fork(childModule, [], { execArgv: childExecArgv(process.execArgv), stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  send(child, { type: 'start', options: { ...rest, timeAnchor: rest.timeAnchor ?? Date.now() } });
  const answer = await Promise.race([
    once(child, 'message').then(([m]) => m as FromClusterChild),
    exited.then(({ code, signal }): FromClusterChild => ({ type: 'failed', message: `the simulated cluster's process exited while starting (${signal ?? `code ${code}`})` })),
  ]);
  if (answer.type !== 'ready') {
    child.kill('SIGKILL');
    throw new Error(answer.message);
  }
  let stopping: Promise<void> | undefined;
  return {
    nodes: answer.nodes,
    pid: child.pid!,
    exited,
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        send(child, { type: 'stop' });
        const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/**
 * This process's Node options, plus a young generation of 64 MiB semi-spaces
 * unless they set one: the cluster decodes every watch event and answer
 * into objects that die young: with V8's default (16 MiB) its collections
 * took 6.6% of its CPU scaling 5,000 pods, with 64 MiB 5.0% (about 70 MiB
 * more RSS at 10,000 pods).
 */
function childExecArgv(own: readonly string[]): string[] {
  if (own.some((a) => a.startsWith('--max-semi-space-size'))) return [...own];
  return [...own, '--max-semi-space-size=64'];
}

function send(child: ChildProcess, message: ToClusterChild): void {
  // A child that is gone has no channel; its exit settles whoever waits.
  if (child.connected) child.send(message);
}
