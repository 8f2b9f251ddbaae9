/**
 * The operator's side of the proxy bench (proxy.ts) in a process of its own,
 * as `operant chaos` is used: between an operator and a cluster that run in
 * different processes. Forked with an IPC channel:
 *
 *   proxy-client-child.ts NAMESPACE ROUTES_JSON
 *
 * ROUTES_JSON is a list of `{ name, kubeconfig, bareUrl? }`: a client per
 * route, made from the kubeconfig file (with `bareUrl`: the bare forwarder of
 * bare-proxy.ts at that URL in front of that kubeconfig's server). Each GETs
 * the ConfigMap `probe` of NAMESPACE.
 *
 * Protocol (parent -> child, child -> parent):
 *   (on start)                                   -> { msg: 'ready' }
 *   { cmd: 'latency', route, count }             -> { msg: 'latency', p50Ms }
 *   { cmd: 'rate', route, connections, ms }      -> { msg: 'rate', done, cpuUs, voluntary, involuntary }
 *                                                   GETs done, this process's CPU (all threads) and
 *                                                   its main thread's context switches over them
 *   { cmd: 'stop' }                              -> the child closes its clients and exits
 */
import { readFileSync } from 'node:fs';
import { ConfigMap, Client, loadKubeConfig } from '@operant/runtime';
import { processCertificates } from '@operant/testing';
import { bareProxyConfig } from './bare-proxy.js';
import { median } from './stats.js';

export interface ClientRoute {
  name: string;
  kubeconfig: string;
  /** The bare forwarder's URL, in front of `kubeconfig`'s server. */
  bareUrl?: string;
}

export type ClientCommand =
  | { cmd: 'latency'; route: string; count: number }
  | { cmd: 'rate'; route: string; connections: number; ms: number }
  | { cmd: 'stop' };

export type ClientMessage =
  | { msg: 'ready' }
  | { msg: 'latency'; p50Ms: number }
  | { msg: 'rate'; done: number; cpuUs: number; voluntary: number; involuntary: number }
  | { msg: 'failed'; error: string };

/** Voluntary and involuntary context switches of a thread so far (/proc/<pid>/status of a process is its main thread's; Linux). */
export function threadSwitches(status: string): { voluntary: number; involuntary: number } {
  const count = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { voluntary: count('voluntary_ctxt_switches'), involuntary: count('nonvoluntary_ctxt_switches') };
}

async function main(): Promise<void> {
  const [namespace, routesJson] = process.argv.slice(2);
  const routes = JSON.parse(routesJson!) as ClientRoute[];
  const caPem = (await processCertificates()).caPem;
  const clients = new Map<string, Client>();
  for (const r of routes) {
    const upstream = await loadKubeConfig({ path: r.kubeconfig });
    clients.set(r.name, Client.fromConfig(r.bareUrl ? bareProxyConfig(upstream, r.bareUrl, caPem) : upstream, { qps: Infinity }));
  }
  const send = (m: ClientMessage): void => void process.send!(m);
  const get = (route: string): Promise<unknown> => clients.get(route)!.get(ConfigMap, 'probe', { namespace: namespace! });

  const handle = async (command: ClientCommand): Promise<void> => {
    if (command.cmd === 'stop') {
      for (const c of clients.values()) c.close();
      process.exit(0);
    }
    if (command.cmd === 'latency') {
      const times: number[] = [];
      for (let i = 0; i < command.count; i++) {
        const t = performance.now();
        await get(command.route);
        times.push(performance.now() - t);
      }
      return send({ msg: 'latency', p50Ms: median(times) });
    }
    const end = performance.now() + command.ms;
    const cpu = process.cpuUsage();
    const before = threadSwitches(readFileSync('/proc/self/status', 'utf8'));
    let done = 0;
    await Promise.all(
      Array.from({ length: command.connections }, async () => {
        while (performance.now() < end) {
          await get(command.route);
          done++;
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    const after = threadSwitches(readFileSync('/proc/self/status', 'utf8'));
    send({ msg: 'rate', done, cpuUs: used.user + used.system, voluntary: after.voluntary - before.voluntary, involuntary: after.involuntary - before.involuntary });
  };
  process.on('disconnect', () => process.exit(1));
  process.on('message', (command: ClientCommand) => {
    void handle(command).catch((e: unknown) => send({ msg: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) }));
  });
  send({ msg: 'ready' });
}

// Only when run as the child (proxy.ts imports the types and threadSwitches).
if (process.send !== undefined && process.argv[1]?.endsWith('proxy-client-child.ts')) await main();
