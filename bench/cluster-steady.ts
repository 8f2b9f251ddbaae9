/**
 * The steady state of a large simulated cluster (BENCH_CLUSTER_STEADY=1; it
 * takes many minutes, so the default `cluster` run leaves it out): 1,000
 * nodes (BENCH_CLUSTER_STEADY_NODES) are filled with 100,000 pods
 * (BENCH_CLUSTER_STEADY_PODS) from ten Deployments, then held for a minute
 * (BENCH_CLUSTER_STEADY_HOLD_S). Reported: the RSS of the server and of the
 * cluster's process as pods come, and per pod once held (projected to
 * 100,000 pods when a smaller count is asked for or the fill is cut short by
 * BENCH_CLUSTER_STEADY_TIMEOUT_S); their CPU while held; and whether the
 * heartbeats keep up, while filling and while held: every node's Lease
 * renewed within its renew interval (10 s, with 5 s for sampling) and no
 * node NotReady.
 */
import { loadavg } from 'node:os';
import { startApiServer } from '@operant/apiserver';
import { startSimulatedClusterProcess } from '@operant/controllers';
import { Client, Deployment, Lease, loadKubeConfig, Node } from '@operant/runtime';
import { cpuMsOf, rssOf } from './proc.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const nodes = env('BENCH_CLUSTER_STEADY_NODES', 1000);
const pods = env('BENCH_CLUSTER_STEADY_PODS', 100_000);
const timeoutMs = env('BENCH_CLUSTER_STEADY_TIMEOUT_S', 1800) * 1000;
const holdMs = env('BENCH_CLUSTER_STEADY_HOLD_S', 60) * 1000;
const deployments = 10;
/** The kubelet renews its Lease every 10 s (a quarter of its 40 s duration). */
const renewIntervalMs = 10_000;
const aimBytes = 4 * 1024 ** 3;
/** The aim's pod count, which a smaller run's RSS is projected to. */
const aimPods = 100_000;

interface Sample {
  /** Pods that exist (the Deployments' status.replicas): what the processes hold, Ready or not. */
  pods: number;
  server: number;
  cluster: number;
}

/** The least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');

export async function clusterSteadySection(log: Log): Promise<Row[]> {
  log(`cluster steady state: ${nodes.toLocaleString('en-US')} nodes, ${pods.toLocaleString('en-US')} pods (cap ${(timeoutMs / 1000).toFixed(0)} s), load average ${load()}`);
  const server = await startApiServer({ port: 0 });
  const client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
  const registering = performance.now();
  const cluster = await startSimulatedClusterProcess({ kubeconfig: { kubeconfigText: server.kubeconfig }, nodes });
  const samples: Sample[] = [];
  const sample = (existing: number): Sample => {
    const s = { pods: existing, server: rssOf(process.pid), cluster: rssOf(cluster.pid) };
    samples.push(s);
    return s;
  };
  try {
    const empty = sample(0);
    log(`  ${nodes} nodes registered in ${((performance.now() - registering) / 1000).toFixed(1)} s; RSS server ${fmt.bytes(empty.server)}, cluster ${fmt.bytes(empty.cluster)}`);
    const start = performance.now();
    const each = Math.ceil(pods / deployments);
    for (let d = 0; d < deployments; d++) {
      const labels = { app: `steady-${d}` };
      await client.create(Deployment, {
        metadata: { name: `steady-${d}`, namespace: 'default' },
        spec: { replicas: Math.min(each, pods - d * each), selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
      });
    }
    /** The oldest Lease renewal and the NotReady nodes seen so far. */
    let heartbeats = { worstLagMs: 0, notReady: 0, leases: 0 };
    const sampleHeartbeats = async (): Promise<void> => {
      const now = Date.now();
      const leases = (await client.list(Lease, { namespace: 'kube-node-lease' })).items;
      heartbeats.leases = leases.length;
      for (const l of leases) heartbeats.worstLagMs = Math.max(heartbeats.worstLagMs, now - Date.parse(l.spec?.renewTime ?? '1970-01-01T00:00:00Z'));
      const nodeList = (await client.list(Node)).items;
      heartbeats.notReady = Math.max(heartbeats.notReady, nodeList.filter((n) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True').length);
    };
    let ready = 0;
    let existing = 0;
    let nextSample = pods / 10;
    const deadline = start + timeoutMs;
    // Polled (a list of ten Deployments every 5 s), not watched: the figure is a count, and a watch would add its own load.
    while (performance.now() < deadline) {
      const list = await client.list(Deployment, { namespace: 'default' });
      ready = list.items.reduce((n, d) => n + (d.status?.readyReplicas ?? 0), 0);
      existing = list.items.reduce((n, d) => n + (d.status?.replicas ?? 0), 0);
      if (existing >= nextSample || ready >= pods) {
        const s = sample(existing);
        log(`  ${((performance.now() - start) / 1000).toFixed(0)} s: ${existing.toLocaleString('en-US')} pods, ${ready.toLocaleString('en-US')} Ready; RSS server ${fmt.bytes(s.server)}, cluster ${fmt.bytes(s.cluster)}; load average ${load()}`);
        while (nextSample <= existing) nextSample += pods / 10;
      }
      if (ready >= pods) break;
      await new Promise((resolve) => setTimeout(resolve, 5000));
      await sampleHeartbeats();
    }
    const fillSeconds = (performance.now() - start) / 1000;
    if (ready < pods) log(`  gave up filling after ${fillSeconds.toFixed(0)} s at ${ready.toLocaleString('en-US')} Ready`);
    else log(`  all ${pods.toLocaleString('en-US')} Ready in ${fillSeconds.toFixed(0)} s (${(pods / fillSeconds).toFixed(0)}/s)`);
    log(`  while filling: oldest Lease renewal ${(heartbeats.worstLagMs / 1000).toFixed(1)} s old, at most ${heartbeats.notReady} nodes NotReady`);

    const fillHeartbeats = { ...heartbeats };
    // The hold: CPU of each process, and the heartbeats' lag, sampled every 5 s.
    const cpuBefore = { server: cpuMsOf(process.pid), cluster: cpuMsOf(cluster.pid) };
    const holdStart = performance.now();
    heartbeats = { worstLagMs: 0, notReady: 0, leases: 0 };
    while (performance.now() - holdStart < holdMs) {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      await sampleHeartbeats();
    }
    const { worstLagMs, notReady, leases: leaseCount } = heartbeats;
    const heldSeconds = (performance.now() - holdStart) / 1000;
    const cpu = { server: (cpuMsOf(process.pid) - cpuBefore.server) / 1000 / heldSeconds, cluster: (cpuMsOf(cluster.pid) - cpuBefore.cluster) / 1000 / heldSeconds };
    const held = sample(existing);
    const keepUp = leaseCount === nodes && worstLagMs <= renewIntervalMs + 5000 && notReady === 0;
    log(
      `  held ${heldSeconds.toFixed(0)} s at ${existing.toLocaleString('en-US')} pods (${ready.toLocaleString('en-US')} Ready): CPU server ${(cpu.server * 100).toFixed(0)}%, cluster ${(cpu.cluster * 100).toFixed(0)}% of a core; ` +
        `RSS server ${fmt.bytes(held.server)}, cluster ${fmt.bytes(held.cluster)}; ${leaseCount} leases, oldest renewal ${(worstLagMs / 1000).toFixed(1)} s old (renewed every 10 s), ${notReady} nodes NotReady; load average ${load()}`,
    );
    // Per pod from no pods to the held state (every pod Ready, its status written): the samples taken while
    // filling have many pods still Pending, smaller than they end, so a fit through them would flatter.
    const perPod = existing > 0 ? (held.server + held.cluster - empty.server - empty.cluster) / existing : NaN;
    const projected = empty.server + empty.cluster + perPod * aimPods;
    log(
      `  RSS per pod ${fmt.bytes(perPod)} (server ${fmt.bytes((held.server - empty.server) / existing)}, cluster ${fmt.bytes((held.cluster - empty.cluster) / existing)}); ` +
        `at ${aimPods.toLocaleString('en-US')} pods: ${fmt.bytes(projected)}; while filling the slope was ${fmt.bytes(slope(samples.map((x) => x.pods), samples.map((x) => x.server + x.cluster)))} per pod`,
    );
    const at = `${existing.toLocaleString('en-US')} pods (${ready.toLocaleString('en-US')} Ready) on ${nodes.toLocaleString('en-US')} nodes`;
    return [
      row(`Steady state, ${at}: RSS of server + cluster`, [held.server + held.cluster], [empty.server + empty.cluster], fmt.bytes, '(no pods)', ready >= aimPods ? '< 4 GiB' : '', (v) => v < aimBytes),
      row(`  RSS at ${aimPods.toLocaleString('en-US')} pods, projected per pod`, [projected], [aimBytes], fmt.bytes, '(the aim)', '< 4 GiB', (v) => v < aimBytes),
      row(`  heartbeats: oldest Lease renewal while held`, [worstLagMs], [renewIntervalMs], fmt.ms, '(renew interval)', 'kept up', () => keepUp),
      row(`  heartbeats: oldest Lease renewal while filling`, [fillHeartbeats.worstLagMs], [renewIntervalMs], fmt.ms, `(renew interval; ${fillHeartbeats.notReady} NotReady)`),
      row(`  CPU while held, server`, [cpu.server * 1000], [1000], fmt.ms, '(ms per s: one core)'),
      row(`  CPU while held, cluster`, [cpu.cluster * 1000], [1000], fmt.ms, '(ms per s: one core)'),
    ];
  } finally {
    client.close();
    await cluster.stop();
    await server.stop();
  }
}
