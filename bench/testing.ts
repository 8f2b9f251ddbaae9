/**
 * The testing toolkit (issue 20): `TestEnv.start()` to ready, with the
 * sample-controller's CRD installed and Established, the first in a process
 * (aim: under 150 ms) and the following ones (aim: under 50 ms), each against
 * the embedded server's own start (`startApiServer` alone), the floor it is
 * built on; the same with webhooks installed, and with a simulated cluster of
 * 3 nodes (its controllers synced and its nodes registered). The fault proxy's overhead is
 * the `proxy` section (proxy.ts). Then what one `env.converges` call costs (a check that
 * passes at once, quiet 50 ms): wall, CPU and the connections the server accepts, against the
 * standalone `converges` on the same client and kinds, which opens watches of its own per call
 * (what `env.converges` did before it kept the environment's open): see converges-cost.ts.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startApiServer } from '@operant/apiserver';
import { TestEnv } from '@operant/testing';
import { convergesCost } from './converges-cost.js';
import { median } from './stats.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

const root = process.cwd();
const crd = join(root, 'examples', 'sample-controller', 'artifacts', 'examples', 'crd.yaml');
const webhooks = join(root, 'packages', 'testing', 'test', 'testdata', 'webhook-manifests.yaml');
const webhookCrds = join(root, 'packages', 'testing', 'test', 'testdata', 'crds');

interface ChildFigures {
  importMs: number;
  firstMs: number;
  secondMs: number;
  /** CPU time of the first start, all threads. */
  firstCpuMs: number;
}

/** What one start cost: wall time to ready, and the CPU time it took (this process, all threads). */
interface StartCost {
  ms: number;
  cpuMs: number;
}

function cpuSince(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

function child(args: string[]): ChildFigures {
  const out = execFileSync(process.execPath, ['--conditions=source', '--import', 'tsx', join(root, 'bench', 'testing-child.ts'), ...args], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildFigures;
}

async function serverStart(): Promise<StartCost> {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const server = await startApiServer({ port: 0 });
  const ms = performance.now() - t;
  const cpuMs = cpuSince(cpu);
  await server.stop();
  return { ms, cpuMs };
}

async function envStart(options: Parameters<typeof TestEnv.start>[0]): Promise<StartCost> {
  const cpu = process.cpuUsage();
  const env = await TestEnv.start(options);
  const cpuMs = cpuSince(cpu);
  const ms = env.startMs;
  await env.stop();
  return { ms, cpuMs };
}

export async function testingSection(rounds: number, log: Log): Promise<Row[]> {
  const processes = Math.max(5, rounds + 2);
  log(`testing: first TestEnv.start() in ${processes} fresh processes each, and the embedded server's first start`);
  const envFirst: ChildFigures[] = [];
  const serverFirst: ChildFigures[] = [];
  for (let i = 0; i < processes; i++) {
    envFirst.push(child(['env', crd]));
    serverFirst.push(child(['server']));
  }
  const pick = (xs: ChildFigures[], k: keyof ChildFigures): number[] => xs.map((x) => x[k]);
  log(`  TestEnv first ${pick(envFirst, 'firstMs').map((v) => v.toFixed(0)).join(', ')} ms (import ${fmt.ms(median(pick(envFirst, 'importMs')))}); server first ${pick(serverFirst, 'firstMs').map((v) => v.toFixed(0)).join(', ')} ms`);

  const warm = 25;
  log(`testing: ${warm} warm starts each, interleaved`);
  await envStart({ crds: crd });
  await envStart({ crds: webhookCrds, webhooks: { manifests: webhooks } });
  await envStart({ crds: crd, cluster: { nodes: 3 } });
  const envWarm: StartCost[] = [];
  const hooksWarm: StartCost[] = [];
  const clusterWarm: StartCost[] = [];
  const serverWarm: StartCost[] = [];
  for (let i = 0; i < warm; i++) {
    serverWarm.push(await serverStart());
    envWarm.push(await envStart({ crds: crd }));
    hooksWarm.push(await envStart({ crds: webhookCrds, webhooks: { manifests: webhooks } }));
    clusterWarm.push(await envStart({ crds: crd, cluster: { nodes: 3 } }));
  }
  const ms = (xs: StartCost[]): number[] => xs.map((x) => x.ms);
  const cpu = (xs: StartCost[]): number[] => xs.map((x) => x.cpuMs);
  log(`  TestEnv ${fmt.ms(median(ms(envWarm)))}, with webhooks ${fmt.ms(median(ms(hooksWarm)))}, with 3 simulated nodes ${fmt.ms(median(ms(clusterWarm)))}, server alone ${fmt.ms(median(ms(serverWarm)))}`);
  log(`  CPU: TestEnv ${fmt.ms(median(cpu(envWarm)))}, with webhooks ${fmt.ms(median(cpu(hooksWarm)))}, with 3 simulated nodes ${fmt.ms(median(cpu(clusterWarm)))}, server alone ${fmt.ms(median(cpu(serverWarm)))}`);

  const calls = 10;
  log(`testing: converges per call (passes at once, quiet 50 ms), ${rounds} rounds of ${calls} calls each way, interleaved; without a cluster and with 3 simulated nodes`);
  const bare = await convergesCost({ cluster: false, calls, rounds });
  const nodes = await convergesCost({ cluster: true, calls, rounds });
  log(`  connections per call: env.converges ${median(bare.env.connections)} (${median(nodes.env.connections)} with nodes), standalone ${median(bare.standalone.connections)} (${median(nodes.standalone.connections)})`);
  const standaloneWay = '(standalone converges: watches of its own per call)';

  return [
    row('TestEnv.start() to ready, first in a process (1 CRD)', pick(envFirst, 'firstMs'), pick(serverFirst, 'firstMs'), fmt.ms, "(startApiServer's first start)", '< 150 ms', (v) => v < 150),
    row('  CPU time of that start (all threads)', pick(envFirst, 'firstCpuMs'), pick(serverFirst, 'firstCpuMs'), fmt.ms, "(startApiServer's first start)", '< 150 ms', (v) => v < 150),
    row('TestEnv.start() to ready, warm (1 CRD)', ms(envWarm), ms(serverWarm), fmt.ms, '(startApiServer alone, warm)', '< 50 ms', (v) => v < 50),
    row('  CPU time of that start', cpu(envWarm), cpu(serverWarm), fmt.ms, '(startApiServer alone, warm)', '< 50 ms', (v) => v < 50),
    row('TestEnv.start() to ready, warm (2 CRDs + webhooks)', ms(hooksWarm), ms(serverWarm), fmt.ms, '(startApiServer alone, warm)'),
    row('  CPU time of that start', cpu(hooksWarm), cpu(serverWarm), fmt.ms, '(startApiServer alone, warm)'),
    row('TestEnv.start() to ready, warm (1 CRD + 3 simulated nodes)', ms(clusterWarm), ms(serverWarm), fmt.ms, '(startApiServer alone, warm)', '< 50 ms', (v) => v < 50),
    row('  CPU time of that start', cpu(clusterWarm), cpu(serverWarm), fmt.ms, '(startApiServer alone, warm)', '< 50 ms', (v) => v < 50),
    row('  import @operant/testing (tsx, sources)', pick(envFirst, 'importMs'), pick(serverFirst, 'importMs'), fmt.ms, '(import @operant/apiserver)'),
    row('env.converges per call, passes at once, quiet 50 ms', bare.env.ms, bare.standalone.ms, fmt.ms, standaloneWay),
    row('  CPU time of that call', bare.env.cpuMs, bare.standalone.cpuMs, fmt.ms, standaloneWay),
    row('  connections the server accepts per call (TLS handshakes)', bare.env.connections, bare.standalone.connections, (v) => v.toFixed(0), standaloneWay),
    row('env.converges per call, with 3 simulated nodes', nodes.env.ms, nodes.standalone.ms, fmt.ms, standaloneWay),
    row('  CPU time of that call', nodes.env.cpuMs, nodes.standalone.cpuMs, fmt.ms, standaloneWay),
  ];
}
