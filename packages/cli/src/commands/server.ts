/** `operant server`: the contract in DESIGN.md section 5. */
import { defaultServingCacheDir, startApiServer, type RunningApiServer } from '@operant/apiserver';

export interface ServerFlags {
  port: string;
  host: string;
  dataDir?: string;
  kubeconfig?: string;
  /** Simulated nodes to run beside the server (with the workload controllers and a scheduler); none without the flag. */
  nodes?: string;
  /** With `nodes`: kube-controller-manager's `--controllers` list, comma-separated; default `*`. */
  controllers?: string;
  /** With `nodes`: how many times faster than the wall the simulated cluster's clock runs; default 1. */
  timeScale?: string;
  /** With `timeScale`: the wall-clock instant (epoch ms) cluster time speeds up from, shared with `operant nodes`; default the start. */
  timeAnchor?: string;
  /** kube-apiserver's --etcd-compaction-interval, a Go duration; default 5m0s, `0` never. */
  etcdCompactionInterval?: string;
}

/** Parses `--etcd-compaction-interval`, a Go duration (`5m0s`, `30s`; `0` never), into milliseconds. */
export async function parseCompactionInterval(text: string): Promise<number> {
  if (text === '5m0s') return 5 * 60_000;
  // Go's own parser, from its own subpath: the runtime's root would pull the whole runtime into the server bundle.
  const { parseDuration } = await import('@operant/runtime/duration');
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (e) {
    throw new Error(`--etcd-compaction-interval: ${(e as Error).message}`);
  }
  if (ms < 0) throw new Error(`--etcd-compaction-interval: invalid duration ${JSON.stringify(text)}: must not be negative`);
  return ms;
}

/** Parses `--time-anchor`, epoch milliseconds. */
export function parseTimeAnchor(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new Error(`--time-anchor: invalid instant ${JSON.stringify(text)}: must be epoch milliseconds`);
  return Number(text);
}

/** The cluster clock the flags ask for: undefined for the wall clock. */
export async function clockOf(timeScale: number, timeAnchor: string | undefined): Promise<import('@operant/runtime').Clock | undefined> {
  if (timeScale === 1) return undefined;
  const { acceleratedClock, acceleratedClockSince } = await import('@operant/controllers');
  return timeAnchor === undefined ? acceleratedClock(timeScale) : acceleratedClockSince(parseTimeAnchor(timeAnchor), timeScale);
}

/** Parses `--time-scale`, a positive number (1 = the wall clock). */
export function parseTimeScale(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0) || n > 100_000) {
    throw new Error(`--time-scale: invalid factor ${JSON.stringify(text)}: must be a number greater than 0 and at most 100000`);
  }
  return n;
}

/** Parses `--nodes`, refusing anything but a count from 0 to 1000. */
export function parseNodes(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 1000) throw new Error(`--nodes: invalid count ${JSON.stringify(text)}: must be an integer from 0 to 1000`);
  return Number(text);
}

/** Parses `--port`, refusing anything but 0-65535. */
export function parsePort(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw new Error(`--port: invalid port ${JSON.stringify(text)}: must be an integer from 0 to 65535`);
  return Number(text);
}

/** Stops the server on SIGTERM/SIGINT and exits once it has closed. */
export function stopOnSignals(server: RunningApiServer, onStop?: () => Promise<void>): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await onStop?.();
      await server.stop();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/**
 * The simulated cluster's flags do nothing without `--nodes` (a bare API server runs no controllers and has no
 * cluster clock): a start that asks for anything but their defaults is refused rather than silently running
 * without what was asked.
 */
function refuseClusterFlags(flags: ServerFlags): void {
  const given = [
    (flags.controllers ?? '*') !== '*' && '--controllers',
    (flags.timeScale ?? '1') !== '1' && '--time-scale',
    flags.timeAnchor !== undefined && '--time-anchor',
  ].filter((name): name is string => name !== false);
  if (given.length > 0) throw new Error(`${given.join(', ')}: only with --nodes (the simulated cluster); without it the server runs no controllers`);
}

export async function runServer(flags: ServerFlags): Promise<void> {
  const nodes = flags.nodes === undefined ? undefined : parseNodes(flags.nodes);
  if (nodes === undefined) refuseClusterFlags(flags);
  const timeScale = parseTimeScale(flags.timeScale ?? '1');
  if (flags.timeAnchor !== undefined) parseTimeAnchor(flags.timeAnchor);
  const controllers = (flags.controllers ?? '*').split(',');
  const simulated = nodes === undefined ? undefined : await import('@operant/controllers');
  // A bad list fails before the server starts, with kube-controller-manager's message.
  simulated?.selectControllers(controllers);
  const etcdCompactionIntervalMs = await parseCompactionInterval(flags.etcdCompactionInterval ?? '5m0s');
  const server = await startApiServer({
    port: parsePort(flags.port),
    host: flags.host,
    dataDir: flags.dataDir,
    kubeconfigPath: flags.kubeconfig,
    etcdCompactionIntervalMs,
    // A server process of its own: after a burst, its memory goes back to the system (issue 14).
    reclaimIdleMemory: true,
    // In memory, the CA and serving certificate come from the user's cache: no certificate is made at each start.
    servingCacheDir: flags.dataDir ? undefined : defaultServingCacheDir(),
    // The simulated cluster's way in (below).
    privateSocket: nodes !== undefined && simulated !== undefined,
  });
  // The simulated cluster runs in a child process, so that the server has a core of its own; it
  // talks to the server with the admin kubeconfig's credentials, as any operator would, but on the
  // server's private socket (a 0700 directory of this user's): TLS on every request and watch byte
  // cost each process a tenth or more of its CPU scaling pods.
  const cluster =
    nodes === undefined || !simulated
      ? undefined
      : await simulated.startSimulatedClusterProcess({
          kubeconfig: { kubeconfigText: server.kubeconfig },
          socketPath: server.socketPath,
          nodes,
          controllers,
          timeScale,
          timeAnchor: flags.timeAnchor === undefined ? undefined : parseTimeAnchor(flags.timeAnchor),
        });
  stopOnSignals(server, cluster && (() => cluster.stop()));
  process.stdout.write(`ready ${server.url}\n`);
}
