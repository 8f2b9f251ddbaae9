/**
 * What one `converges` call costs (issue 20): the connections it opens to the
 * server (counted on the server's side: every TCP connection the process
 * accepts; on the HTTPS port each is a TLS handshake), its wall time and the
 * CPU time of the process, for a check that passes at once with a short
 * quiet period. `env.converges` is measured against the standalone
 * `converges` on the same client and kinds (a tracker of its own per call),
 * interleaved, on an environment without a cluster and one with 3 simulated
 * nodes.
 *
 * node --conditions=source --import tsx bench/converges-cost.ts [calls per round] [rounds]
 */
import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { ConfigMap, CronJob, DaemonSet, Deployment, Job, Pod, ReplicaSet, Secret, Service, ServiceAccount, StatefulSet, type Kind } from '@operant/runtime';
import { converges, TestEnv } from '@operant/testing';
import { median } from './stats.js';

export interface ConvergesCost {
  /** Per call. */
  ms: number[];
  cpuMs: number[];
  /** TCP connections the server accepted per call (TLS handshakes on its HTTPS port). */
  connections: number[];
  /** Connections on its private Unix socket (plain HTTP, no TLS). */
  socketConnections: number[];
}

const workloadKinds: readonly Kind[] = [Pod, Service, ConfigMap, Secret, ServiceAccount, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob];

let accepted = 0;
let acceptedOnSocket = 0;
subscribe('net.server.socket', (message) => {
  const socket = (message as { socket: Socket }).socket;
  // A Unix domain socket has no remote port.
  if (socket.remotePort !== undefined) accepted++;
  else acceptedOnSocket++;
});

/** One call of `run`: its wall time, CPU time and server-side connections. */
async function measure(run: () => Promise<unknown>, into: ConvergesCost): Promise<void> {
  const before = accepted;
  const beforeOnSocket = acceptedOnSocket;
  const cpu = process.cpuUsage();
  const t = performance.now();
  await run();
  const ms = performance.now() - t;
  const d = process.cpuUsage(cpu);
  into.ms.push(ms);
  into.cpuMs.push((d.user + d.system) / 1000);
  into.connections.push(accepted - before);
  into.socketConnections.push(acceptedOnSocket - beforeOnSocket);
}

const empty = (): ConvergesCost => ({ ms: [], cpuMs: [], connections: [], socketConnections: [] });

/**
 * The first call on a new environment (the one that starts the watches), each way on an
 * environment of its own, `rounds` times, interleaved.
 */
export async function firstConvergesCost(options: { cluster: boolean; rounds: number }): Promise<{ env: ConvergesCost; standalone: ConvergesCost }> {
  const out = { env: empty(), standalone: empty() };
  for (let r = 0; r < options.rounds; r++) {
    for (const way of ['env', 'standalone'] as const) {
      const env = await TestEnv.start({ ...(options.cluster ? { cluster: { nodes: 3 } } : {}) });
      try {
        const ns = await env.namespace();
        const check = async (): Promise<boolean> => (await env.client.list(ConfigMap, { namespace: ns.name })).items.length >= 0;
        await check();
        const kinds = [...env.crdKinds, ...workloadKinds];
        await measure(() => (way === 'env' ? env.converges(check, { namespace: ns.name, quiet: 50 }) : converges(env.client, check, { kinds, namespace: ns.name, quiet: 50 })), out[way]);
      } finally {
        await env.stop();
      }
    }
  }
  return out;
}

/** `calls` calls of each way per round, interleaved, on one environment. */
export async function convergesCost(options: { cluster: boolean; calls: number; rounds: number }): Promise<{ env: ConvergesCost; standalone: ConvergesCost }> {
  const env = await TestEnv.start({ ...(options.cluster ? { cluster: { nodes: 3 } } : {}) });
  try {
    const ns = await env.namespace();
    const kinds = [...env.crdKinds, ...workloadKinds];
    const check = async (): Promise<boolean> => (await env.client.list(ConfigMap, { namespace: ns.name })).items.length >= 0;
    const viaEnv = (): Promise<unknown> => env.converges(check, { namespace: ns.name, quiet: 50 });
    const standalone = (): Promise<unknown> => converges(env.client, check, { kinds, namespace: ns.name, quiet: 50 });
    // Warm both ways (first calls load code and open the client's first connections).
    await viaEnv();
    await standalone();
    const out = { env: empty(), standalone: empty() };
    for (let r = 0; r < options.rounds; r++) {
      for (let i = 0; i < options.calls; i++) await measure(viaEnv, out.env);
      for (let i = 0; i < options.calls; i++) await measure(standalone, out.standalone);
    }
    return out;
  } finally {
    await env.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const calls = Number(process.argv[2] ?? 10);
  const rounds = Number(process.argv[3] ?? 3);
  for (const cluster of [false, true]) {
    const { env, standalone } = await convergesCost({ cluster, calls, rounds });
    const line = (name: string, c: ConvergesCost): string =>
      `${name}: ${median(c.ms).toFixed(1)} ms wall, ${median(c.cpuMs).toFixed(1)} ms CPU, TCP (TLS) connections per call median ${median(c.connections)} (min ${Math.min(...c.connections)}, max ${Math.max(...c.connections)}), Unix-socket ones ${median(c.socketConnections)}`;
    console.log(`${cluster ? 'with 3 simulated nodes' : 'no cluster'} (${rounds} rounds x ${calls} calls each, interleaved by round), load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
    console.log(`  ${line('env.converges       ', env)}`);
    console.log(`  ${line('standalone converges', standalone)}`);
    const first = await firstConvergesCost({ cluster, rounds: Math.max(rounds, 5) });
    console.log(`  first call on a new environment (${Math.max(rounds, 5)} environments each way):`);
    console.log(`  ${line('env.converges       ', first.env)}`);
    console.log(`  ${line('standalone converges', first.standalone)}`);
  }
}
