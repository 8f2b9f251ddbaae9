/**
 * `npm run bench`: measures the embedded API server and prints a table. Each
 * figure comes with a baseline measured in the same run (the Node floor for
 * start-up, a bare Node HTTPS server for throughput and latency, plain parsed
 * JSON for memory), their ratio, and the spread over repeats as the measure
 * of machine noise.
 *
 * Arguments select sections (default: all): start creates list watch crd memory auth informer workqueue webhook policy codegen scaffold testing proxy sidecarset soak scale apply cluster chaos.
 * `scale` grows one data dir to 1,000, 10,000 and 100,000 pods (BENCH_SCALE_SIZES) and
 * measures restart, list, watch, creates and RSS at each size (see scale.ts).
 * `apply` measures server-side apply against update (PUT) for a Deployment and a
 * 52-field CR, and the heap managedFields add per stored object (see apply.ts).
 * `cluster` scales a Deployment to 10,000 pods on 100 simulated nodes (see cluster.ts);
 * with BENCH_CLUSTER_STEADY=1 it first holds 1,000 nodes and 100,000 pods (see cluster-steady.ts;
 * BENCH_CLUSTER_STEADY_ONLY=1 skips the 10,000-pod run).
 * `chaos` runs the sample-controller (3 replicas) under 60 s of every fault kind at once (see chaos.ts).
 * `crd` measures a CRD's schema checks: creates/s and latency of a custom
 * resource under a CRD with a realistic schema and CEL rules, against the same
 * kind under a CRD without checks on the same server, and the in-process time of
 * the validation path step by step. `auth` measures RBAC authorization with 1,000
 * roles and bindings, and the latency added by a mutating and a validating webhook.
 * `informer` measures @operant/runtime's informers against @kubernetes/client-node's
 * makeInformer on the same server and pods (sync time, heap per cached pod, update
 * events/s, spurious events after a server restart); `workqueue` the runtime's work
 * queue against a plain deduplicating FIFO (see informer.ts and workqueue.ts).
 * Environment: BENCH_ROUNDS (default 3) sets the repeats of the throughput
 * figures; BENCH_CONNECTIONS (default 16) the concurrent connections.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, readKubeconfig } from './client.js';
import { coldStart } from './cold-start.js';
import { creates } from './creates.js';
import { countFields, countRules, checkedSchema } from './crd-fixtures.js';
import { crdCreates, installCrds, validationPath } from './crd.js';
import { listPods } from './list.js';
import { fanout, type FanoutRun } from './watch-fanout.js';
import { memoryPerPod, type MemoryFigures } from './memory.js';
import { startBareServer, startOperant, type ReadyProcess } from './processes.js';
import { median } from './stats.js';
import { fmt, render, row, type Row } from './table.js';
import { authSection } from './auth.js';
import { informerSection } from './informer.js';
import { workqueueSection } from './workqueue.js';
import { webhookSection } from './webhook.js';
import { policySection } from './policy.js';
import { codegenSection } from './codegen.js';
import { scaffoldSection } from './scaffold.js';
import { testingSection } from './testing.js';
import { proxySection } from './proxy.js';
import { sidecarsetSection } from './sidecarset.js';
import { soakSection } from './soak.js';
import { perObjectUs, scale } from './scale.js';
import { applySection } from './apply.js';
import { clusterSection } from './cluster.js';
import { chaosSection } from './chaos.js';
import { clusterSteadySection } from './cluster-steady.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** Start-ups are short and the machine is noisy: a median needs many of them. */
const startRounds = 21;
const podCount = 10_000;
const watchers = 100;
const changes = 10_000;
/**
 * A fan-out round takes ~15 s idle (a million event lines through TLS); p99 moves by up to half
 * between rounds, so the watch section takes the median of at least three (plus a warm-up each).
 */
const watchRounds = Math.max(rounds, 3);
const all = ['start', 'creates', 'list', 'watch', 'crd', 'memory', 'auth', 'informer', 'workqueue', 'webhook', 'policy', 'codegen', 'scaffold', 'testing', 'proxy', 'sidecarset', 'soak', 'scale', 'apply', 'cluster', 'chaos'];
const sections = new Set(process.argv.length > 2 ? process.argv.slice(2) : all);
for (const s of sections) if (!all.includes(s)) throw new Error(`unknown section ${s}; sections: ${all.join(' ')}`);

const t0 = performance.now();
const log = (text: string): void => {
  process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${text}\n`);
};
const workDir = mkdtempSync(join(tmpdir(), 'operant-bench-'));
const processes: ReadyProcess[] = [];
const clients: Client[] = [];

async function started(p: Promise<ReadyProcess>): Promise<ReadyProcess> {
  const ready = await p;
  processes.push(ready);
  return ready;
}

function client(endpoint: ConstructorParameters<typeof Client>[0], conns: number): Client {
  const c = new Client(endpoint, conns);
  clients.push(c);
  return c;
}

async function main(): Promise<Row[]> {
  const rows: Row[] = [];
  let pkiDataDir: string | undefined;

  if (sections.has('start')) {
    log(`cold start: ${startRounds} rounds`);
    const cold = await coldStart(workDir, startRounds);
    const floor = '(node -e HTTP server)';
    rows.push(row('Cold start to ready, in memory', cold.memory, cold.floor, fmt.ms, floor, '< 100 ms', (v) => v < 100));
    rows.push(row('Cold start to ready, new data dir', cold.dataDirFirst, cold.floor, fmt.ms, floor));
    rows.push(row('Cold start to ready, existing data dir', cold.dataDirRestart, cold.floor, fmt.ms, floor));
    if (cold.withoutExtraCaCerts.memory.length > 0) {
      const plainFloor = '(node -e HTTP server, same env)';
      rows.push(row('Cold start to ready, in memory, NODE_EXTRA_CA_CERTS unset', cold.withoutExtraCaCerts.memory, cold.withoutExtraCaCerts.floor, fmt.ms, plainFloor, '< 100 ms', (v) => v < 100));
    }
    // CPU time to ready: what a start costs on an idle machine, less disturbed by the load than wall time.
    if (cold.cpu.memory.every((v) => !Number.isNaN(v))) {
      const floorCpu = '(node -e HTTP server, CPU)';
      rows.push(row('  CPU time to ready, in memory', cold.cpu.memory, cold.cpu.floor, fmt.ms, floorCpu));
      rows.push(row('  CPU time to ready, new data dir', cold.cpu.dataDirFirst, cold.cpu.floor, fmt.ms, floorCpu));
      rows.push(row('  CPU time to ready, existing data dir', cold.cpu.dataDirRestart, cold.cpu.floor, fmt.ms, floorCpu));
    }
    pkiDataDir = cold.dataDir;
  }
  if (!sections.has('creates') && !sections.has('list') && !sections.has('watch')) return rows;

  // The bare servers borrow the API server's certificate (pki/ of a data dir).
  if (!pkiDataDir) {
    pkiDataDir = join(workDir, 'pki-source');
    await (await startOperant(join(workDir, 'kc-pki'), pkiDataDir)).stop();
  }
  const pki = join(pkiDataDir, 'pki');
  const tls = { certFile: join(pki, 'apiserver.crt'), keyFile: join(pki, 'apiserver.key'), caPem: readFileSync(join(pki, 'ca.crt'), 'utf8') };
  const memoryServer = await started(startOperant(join(workDir, 'kc-memory')));
  const memory = client(readKubeconfig(join(workDir, 'kc-memory')), connections);
  const bareServer = await started(startBareServer(tls));
  const bare = client({ url: bareServer.url, caPem: tls.caPem, token: 'unused' }, connections);
  const ceiling = `(bare HTTPS, ${connections} conns)`;

  if (sections.has('creates')) {
    log(`creates/s: ${rounds} rounds of 2 s each, ${connections} connections`);
    const sqliteServer = await started(startOperant(join(workDir, 'kc-sqlite'), join(workDir, 'sqlite-data')));
    const sqlite = client(readKubeconfig(join(workDir, 'kc-sqlite')), connections);
    const c = await creates({ bare, memory, sqlite }, { rounds, concurrency: connections, durationMs: 2000, pids: { memory: memoryServer.child.pid!, sqlite: sqliteServer.child.pid! } });
    for (const name of ['bare', 'memory', 'sqlite'] as const) log(`  ${name}: ${c[name].map(fmt.rate).join(', ')}`);
    rows.push(row('Creates/s, in memory', c.memory, c.bare, fmt.rate, ceiling, '≥ 5,000/s', (v) => v >= 5000));
    rows.push(row('Creates/s, SQLite (group commit)', c.sqlite, c.bare, fmt.rate, ceiling));
    // Durable against in memory, round by round (each SQLite round runs right after its in-memory one).
    log(`  SQLite ÷ in memory by round: ${c.sqlite.map((v, i) => fmt.ratio(v / c.memory[i])).join(', ')}`);
    const memoryMedian = median(c.memory);
    rows.push(row('Creates/s, SQLite ÷ in memory', c.sqlite, c.memory, fmt.rate, '(in memory, same run)', '≥ 0.8× in memory', (v) => v / memoryMedian >= 0.8));
    rows.push(row('Server CPU per create, SQLite', c.cpuUs.sqlite, c.cpuUs.memory, fmt.us, '(in memory, same run)'));
    // The same against twice the writers: each batch's fsync, transaction and wake-ups are then
    // shared by more creates, so the ratio shows how much of the gap is the wait for each fsync.
    const wide = connections * 2;
    log(`creates/s: ${rounds} rounds of 2 s each, ${wide} connections`);
    const wideClients = { bare: client({ url: bareServer.url, caPem: tls.caPem, token: 'unused' }, wide), memory: client(readKubeconfig(join(workDir, 'kc-memory')), wide), sqlite: client(readKubeconfig(join(workDir, 'kc-sqlite')), wide) };
    const w = await creates(wideClients, { rounds, concurrency: wide, durationMs: 2000, pids: { memory: memoryServer.child.pid!, sqlite: sqliteServer.child.pid! }, tag: 'wide' });
    log(`  SQLite ÷ in memory by round, ${wide} connections: ${w.sqlite.map((v, i) => fmt.ratio(v / w.memory[i])).join(', ')}`);
    rows.push(row(`Creates/s, SQLite ÷ in memory, ${wide} connections`, w.sqlite, w.memory, fmt.rate, '(in memory, same run)'));
    rows.push(row(`  Server CPU per create, SQLite, ${wide} connections`, w.cpuUs.sqlite, w.cpuUs.memory, fmt.us, '(in memory, same run)'));
    for (const c of Object.values(wideClients)) c.close();
    sqlite.close();
    await sqliteServer.stop();
  }

  if (sections.has('list')) {
    log(`list: ${podCount} pods`);
    const list = await listPods(memory, tls, { count: podCount, repeats: 7, workDir });
    log(`  created ${podCount} pods in ${(list.populateMs / 1000).toFixed(1)} s (${fmt.rate((podCount / list.populateMs) * 1000)}); the list is ${fmt.bytes(list.bytes)}`);
    const what = '(bare HTTPS sending the same bytes)';
    rows.push(row(`List ${podCount.toLocaleString('en-US')} pods (${fmt.bytes(list.bytes)} JSON), time`, list.ours, list.bare, fmt.ms, what));
    const perSecond = (ms: number[]): number[] => ms.map((v) => (podCount / v) * 1000);
    rows.push(row(`List ${podCount.toLocaleString('en-US')} pods, pods/s`, perSecond(list.ours), perSecond(list.bare), fmt.rate, what));
  }

  if (sections.has('watch')) {
    log(`watch fan-out: ${watchers} watchers, ${changes} changes, a warm-up round and ${watchRounds} rounds per server, unpaced and paced`);
    await memory.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fanout' } }));
    // A bare server of its own, stamping what the API server stamps on each create (see bare-server.ts).
    const fanoutBareServer = await started(startBareServer({ ...tls, kubeFields: true }));
    const fanoutBare = client({ url: fanoutBareServer.url, caPem: tls.caPem, token: 'unused' }, connections);
    const collection = '/api/v1/namespaces/fanout/configmaps';
    const oursRound = async (tag: string, ratePerSecond?: number): Promise<FanoutRun> => {
      const list = JSON.parse((await memory.ok('GET', `${collection}?limit=1`)).toString('utf8')) as { metadata: { resourceVersion: string } };
      return fanout(memory, collection, list.metadata.resourceVersion, { watchers, changes, writers: 4, tag, serverPid: memoryServer.child.pid, ratePerSecond });
    };
    const bareRound = (tag: string, ratePerSecond?: number): Promise<FanoutRun> =>
      fanout(fanoutBare, collection, undefined, { watchers, changes, writers: 4, tag, serverPid: fanoutBareServer.child.pid, ratePerSecond });
    /** `watchRounds` rounds of each, the first server alternating (what runs second meets a warmer machine, a fuller page cache). */
    const alternate = async (tag: string, ratePerSecond?: number): Promise<{ ours: FanoutRun[]; base: FanoutRun[] }> => {
      const ours: FanoutRun[] = [];
      const base: FanoutRun[] = [];
      for (let r = 0; r < watchRounds; r++) {
        if (r % 2 === 0) {
          base.push(await bareRound(`${tag}${r}`, ratePerSecond));
          ours.push(await oursRound(`${tag}${r}`, ratePerSecond));
        } else {
          ours.push(await oursRound(`${tag}${r}`, ratePerSecond));
          base.push(await bareRound(`${tag}${r}`, ratePerSecond));
        }
        log(`  ${ratePerSecond ? `paced (${ratePerSecond}/s) ` : ''}round ${r + 1}: ours p50 ${fmt.ms(ours[r].p50)} p99 ${fmt.ms(ours[r].p99)} CPU ${fmt.us(ours[r].serverCpuUsPerEvent)}/event; bare p50 ${fmt.ms(base[r].p50)} p99 ${fmt.ms(base[r].p99)} CPU ${fmt.us(base[r].serverCpuUsPerEvent)}/event (load ${loadavg()[0].toFixed(1)})`);
      }
      return { ours, base };
    };
    // A warm-up round each, not counted: a fresh API server's first round runs its create and
    // fan-out paths before V8 has optimized them (~1.3x the later rounds), the bare server has
    // little to warm up.
    await bareRound('warm');
    await oursRound('warm');
    const { ours, base } = await alternate('f');
    const what = '(bare HTTPS fan-out, same bytes)';
    rows.push(row(`Watch fan-out ${watchers}×${changes.toLocaleString('en-US')}, latency p50`, ours.map((x) => x.p50), base.map((x) => x.p50), fmt.ms, what));
    rows.push(row('Watch fan-out, latency p99', ours.map((x) => x.p99), base.map((x) => x.p99), fmt.ms, what));
    rows.push(row('Watch fan-out, events delivered/s', ours.map((x) => x.deliveredPerSecond), base.map((x) => x.deliveredPerSecond), fmt.rate, what));
    rows.push(row('Watch fan-out, creates/s (writers unpaced)', ours.map((x) => x.writesPerSecond), base.map((x) => x.writesPerSecond), fmt.rate, what));
    // CPU, not wall time: what a delivery costs the server, less disturbed by the machine's load than latency.
    if (ours.every((x) => !Number.isNaN(x.serverCpuUsPerEvent))) {
      rows.push(row('  Server CPU per event delivered', ours.map((x) => x.serverCpuUsPerEvent), base.map((x) => x.serverCpuUsPerEvent), fmt.us, '(bare HTTPS fan-out, CPU)'));
    }
    // The unpaced rounds compare latency under different loads when one server
    // answers creates faster (its watchers then receive more events per second).
    // Paced rounds offer both the same rate: 80% of the slower one's.
    const rate = Math.round(0.8 * Math.min(median(ours.map((x) => x.writesPerSecond)), median(base.map((x) => x.writesPerSecond))));
    const paced = await alternate('p', rate);
    const pacedWhat = `(bare HTTPS fan-out, same bytes, same ${fmt.rate(rate)} creates)`;
    rows.push(row(`Watch fan-out at ${fmt.rate(rate)} creates, latency p50`, paced.ours.map((x) => x.p50), paced.base.map((x) => x.p50), fmt.ms, pacedWhat));
    rows.push(row(`Watch fan-out at ${fmt.rate(rate)} creates, latency p99`, paced.ours.map((x) => x.p99), paced.base.map((x) => x.p99), fmt.ms, pacedWhat, '≤ 1.05× bare', (v) => v <= 1.05 * median(paced.base.map((x) => x.p99))));
    if (paced.ours.every((x) => !Number.isNaN(x.serverCpuUsPerEvent))) {
      rows.push(row(`  Server CPU per event delivered at ${fmt.rate(rate)} creates`, paced.ours.map((x) => x.serverCpuUsPerEvent), paced.base.map((x) => x.serverCpuUsPerEvent), fmt.us, '(bare HTTPS fan-out, CPU)'));
    }
  }
  for (const c of clients.splice(0)) c.close();
  for (const p of processes.splice(0)) await p.stop();
  return rows;
}

async function crdSection(): Promise<Row[]> {
  const fields = countFields(checkedSchema);
  const rules = countRules(checkedSchema);
  log(`crd: creates/s of a custom resource (${fields} fields, ${rules} CEL rules) vs. a CRD without checks: ${rounds} rounds of 2 s each, ${connections} connections`);
  await started(startOperant(join(workDir, 'kc-crd')));
  const c = client(readKubeconfig(join(workDir, 'kc-crd')), connections);
  await installCrds(c);
  const http = await crdCreates(c, { rounds, concurrency: connections, durationMs: 2000 });
  for (const [side, rs] of Object.entries(http)) {
    log(`  ${side}: ${rs.map((r) => `${fmt.rate(r.perSecond)} p50 ${fmt.ms(r.p50)} p99 ${fmt.ms(r.p99)}`).join('; ')}`);
  }
  c.close();
  for (const p of processes.splice(0)) await p.stop();

  const batch = 5000;
  log(`crd: validation path in process, ${rounds} batches of ${batch} objects per schema`);
  const path = validationPath({ repeats: rounds, batch });
  const pick = (side: 'checked' | 'unchecked', k: keyof (typeof path.checked)[number]): number[] => path[side].map((t) => t[k]);
  log(`  compileSchemaRules of the checked schema (once per CRD write): ${fmt.ms(path.compileMs)}`);
  for (const side of ['unchecked', 'checked'] as const) {
    log(`  ${side}: ${path[side].map((t) => `prune ${fmt.us(t.prune)} defaults ${fmt.us(t.defaults)} validate ${fmt.us(t.validate)} cel ${fmt.us(t.cel)} = ${fmt.us(t.total)}, response defaulting ${fmt.us(t.readDefaults)}`).join('; ')}`);
  }
  const rate = (side: 'checked' | 'unchecked'): number[] => http[side].map((r) => r.perSecond);
  const perCreateUs = (side: 'checked' | 'unchecked'): number[] => rate(side).map((v) => 1e6 / v);
  const extraUs = median(perCreateUs('checked')) - median(perCreateUs('unchecked'));
  const extraPathUs = median(pick('checked', 'total')) - median(pick('unchecked', 'total'));
  log(`  server time per create (1 ÷ creates/s): checked ${fmt.us(median(perCreateUs('checked')))}, unchecked ${fmt.us(median(perCreateUs('unchecked')))}: checks add ${fmt.us(extraUs)}, the in-process path ${fmt.us(extraPathUs)} of it`);

  const what = '(same kind, CRD without checks)';
  const unchecked = median(rate('unchecked'));
  const latency = (side: 'checked' | 'unchecked', k: 'p50' | 'p99'): number[] => http[side].map((r) => r[k]);
  const inProcess = '(same path, schema without checks)';
  const share = '(server time per checked create, 1 ÷ creates/s)';
  const step = (name: string, values: number[]): Row => row(`  ${name}`, values, perCreateUs('checked'), fmt.us, share);
  return [
    row(`CR creates/s, ${fields}-field schema + ${rules} CEL rules`, rate('checked'), rate('unchecked'), fmt.rate, what, 'checks cost < 2× (ratio > 0.5)', (v) => v / unchecked > 0.5),
    row('CR create latency p50', latency('checked', 'p50'), latency('unchecked', 'p50'), fmt.ms, what),
    row('CR create latency p99', latency('checked', 'p99'), latency('unchecked', 'p99'), fmt.ms, what),
    row('CR validation path in process, per object', pick('checked', 'total'), pick('unchecked', 'total'), fmt.us, inProcess),
    step('prune (pruneValue)', pick('checked', 'prune')),
    step('default (applyDefaults)', pick('checked', 'defaults')),
    step('validate (validateValue)', pick('checked', 'validate')),
    step(`CEL, ${rules} rules on create (evaluateRules)`, pick('checked', 'cel')),
    step('CEL on update (transition rule too)', path.celOnUpdate),
    step('response defaulting (deepCopy + applyDefaults)', pick('checked', 'readDefaults')),
  ];
}

/** Cost per object at each size, against the smallest size: a ratio near 1 is linear growth, above it worse. */
async function scaleSection(): Promise<Row[]> {
  const sizes = (process.env.BENCH_SCALE_SIZES ?? '1000,10000,100000').split(',').map(Number);
  log(`scale: a data dir grown to ${sizes.map((n) => n.toLocaleString('en-US')).join(', ')} pods; 2 restarts at each`);
  const points = await scale(workDir, { sizes, runs: 2, connections, log });
  const base = points[0];
  const at = (n: number): string => `${n.toLocaleString('en-US')} pods`;
  const what = `(per pod at ${at(base.objects)})`;
  const rows: Row[] = [];
  for (const p of points) {
    rows.push(row(`Restart ready, ${at(p.objects)}, per pod`, perObjectUs(p.startMs, p.objects), perObjectUs(base.startMs, base.objects), fmt.us, what));
    rows.push(row(`Restart ready, ${at(p.objects)}, CPU per pod`, perObjectUs(p.startCpuMs, p.objects), perObjectUs(base.startCpuMs, base.objects), fmt.us, what));
    rows.push(row(`List, ${at(p.objects)}, per pod`, perObjectUs(p.listMs, p.objects), perObjectUs(base.listMs, base.objects), fmt.us, what));
    rows.push(row(`List, ${at(p.objects)}, server CPU per pod`, perObjectUs(p.listCpuMs, p.objects), perObjectUs(base.listCpuMs, base.objects), fmt.us, what));
    rows.push(row(`Watch from 0, ${at(p.objects)}, per pod`, perObjectUs(p.watchMs, p.objects), perObjectUs(base.watchMs, base.objects), fmt.us, what));
    rows.push(row(`Watch from 0, ${at(p.objects)}, server CPU per pod`, perObjectUs(p.watchCpuMs, p.objects), perObjectUs(base.watchCpuMs, base.objects), fmt.us, what));
    rows.push(row(`Create, ${at(p.objects)} stored, per create`, [1e6 / p.createsPerSecond], [1e6 / base.createsPerSecond], fmt.us, `(with ${at(base.objects)})`));
    rows.push(row(`Create, ${at(p.objects)} stored, server CPU per create`, [p.createCpuMs * 1000], [base.createCpuMs * 1000], fmt.us, `(with ${at(base.objects)})`));
    rows.push(row(`RSS after list + watch, ${at(p.objects)}, per pod`, [p.rssAfter / p.objects], [base.rssAfter / base.objects], fmt.bytes, what));
  }
  const last = points[points.length - 1];
  rows.push(row(`Restart ready, ${at(last.objects)}`, last.startMs, base.startMs, fmt.ms, `(${at(base.objects)})`, '< 2 s', (v) => v < 2000));
  rows.push(row(`Restart ready, ${at(last.objects)}, server CPU time`, last.startCpuMs, base.startCpuMs, fmt.ms, `(${at(base.objects)})`, '< 2 s', (v) => v < 2000));
  rows.push(row(`RSS at ready, ${at(last.objects)}`, [last.rssReady], [base.rssReady], fmt.bytes, `(${at(base.objects)})`));
  return rows;
}

async function memorySection(): Promise<{ rows: Row[]; jsonBytesPerPod: number }> {
  const runs = Math.max(2, rounds - 1);
  log(`memory per pod: ${runs} runs of ${podCount} pods (fresh child processes with --expose-gc)`);
  const mem: Array<{ server: MemoryFigures; plain: MemoryFigures }> = [];
  for (let r = 0; r < runs; r++) mem.push(await memoryPerPod(podCount, workDir, r));
  const what = `(same pods as parsed JSON in a Map${mem[0].server.gc ? '' : '; no gc: rough'})`;
  const pick = (side: 'server' | 'plain', k: 'heapPerPod' | 'rssPerPod'): number[] => mem.map((m) => m[side][k]);
  return {
    rows: [
      row('Memory per stored pod, heap', pick('server', 'heapPerPod'), pick('plain', 'heapPerPod'), fmt.bytes, what),
      row('Memory per stored pod, RSS', pick('server', 'rssPerPod'), pick('plain', 'rssPerPod'), fmt.bytes, what),
    ],
    jsonBytesPerPod: mem[0].server.jsonBytesPerPod,
  };
}

const loadBefore = loadavg()[0];
try {
  const rows = await main();
  if (sections.has('crd')) rows.push(...(await crdSection()));
  let podJson = '';
  if (sections.has('memory')) {
    const m = await memorySection();
    rows.push(...m.rows);
    podJson = `; a pod is ${fmt.bytes(m.jsonBytesPerPod)} of JSON`;
  }
  if (sections.has('auth')) rows.push(...(await authSection(workDir, rounds, log)));
  if (sections.has('informer')) rows.push(...(await informerSection(workDir, rounds, log)));
  if (sections.has('codegen')) rows.push(...codegenSection(workDir, rounds, log));
  if (sections.has('scaffold')) rows.push(...(await scaffoldSection(workDir, rounds, log)));
  if (sections.has('testing')) rows.push(...(await testingSection(rounds, log)));
  if (sections.has('proxy')) rows.push(...(await proxySection(rounds, connections, log)));
  if (sections.has('workqueue')) rows.push(...(await workqueueSection(rounds, log)));
  if (sections.has('webhook')) rows.push(...(await webhookSection(rounds, log)));
  if (sections.has('policy')) rows.push(...(await policySection(rounds, log)));
  if (sections.has('sidecarset')) rows.push(...(await sidecarsetSection(rounds, log)));
  if (sections.has('soak')) rows.push(...(await soakSection(workDir, log)));
  if (sections.has('scale')) rows.push(...(await scaleSection()));
  if (sections.has('apply')) rows.push(...(await applySection(workDir, rounds, log)));
  if (sections.has('cluster')) {
    // The steady state of 1,000 nodes and 100,000 pods takes many minutes: only when asked.
    if (process.env.BENCH_CLUSTER_STEADY === '1') rows.push(...(await clusterSteadySection(log)));
    else log('cluster: the steady state of 1,000 nodes and 100,000 pods is left out (BENCH_CLUSTER_STEADY=1 runs it; see cluster-steady.ts)');
    if (process.env.BENCH_CLUSTER_STEADY_ONLY !== '1') rows.push(...(await clusterSection(log)));
  }
  if (sections.has('chaos')) rows.push(...(await chaosSection(log)));
  const cpu = cpus();
  process.stdout.write(
    `\nOperant API server benchmarks: node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'cpu'}; ` +
      `${startRounds} start rounds, ${rounds} rounds otherwise (${watchRounds} for watch), ${connections} connections${podJson}; ` +
      `load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after.\n` +
      'Ratio = Operant ÷ baseline (times: multiple of the floor; rates: fraction of the ceiling). ' +
      'Noise = (max − min) ÷ median over the repeats, Operant / baseline.' +
      (sections.has('crd')
        ? ' CR rows: the baseline is the same kind under a CRD without checks; indented rows are steps of the validation path in process, their ratio a share of the server time per checked create.'
        : '') +
      (sections.has('informer')
        ? ' Informer rows: the baseline is @kubernetes/client-node 1.4.0 makeInformer on the same server and pods, each informer in its own process.'
        : '') +
      (sections.has('workqueue') ? ' Workqueue rows: the baseline is a Set-deduplicated array FIFO with the same async get.' : '') +
      (sections.has('webhook') ? ' Webhook rows: the baseline is a bare node:https server answering a fixed AdmissionReview; in the "same defaulter" rows, a bare node:https server running the same defaulter handler (what the WebhookServer adds).' : '') +
      (sections.has('policy') ? ' Policy rows: the baseline is the same creates into a namespace no policy applies to, same server, same run.' : '') +
      (sections.has('testing') ? ' Testing rows: the baseline is the embedded server started alone (startApiServer), the floor TestEnv builds on; for the converges rows, the standalone converges on the same client and kinds (watches of its own per call).' : '') +
      (sections.has('sidecarset') ? ' SidecarSet rows: each names its baseline; the upgrade row compares with the ideal of its restart rounds.' : '') +
      (sections.has('soak') ? ' Soak rows: an ordinary GET workload during each attack against the same workload idle, and the server process RSS.' : '') +
      (sections.has('scale') ? ' Scale rows: the cost per pod at each size against the cost per pod at the smallest; a ratio near 1 is linear growth.' : '') +
      (sections.has('proxy') ? ' Proxy rows: CPU per request is this process\'s (process.cpuUsage) plus, for `operant chaos`, its process\'s (/proc); it moves much less with the machine\'s load than the throughput rows do, and the CPU rows take each route\'s least disturbed round. "Operator in its own process" rows send the same GETs from a process of their own (as `operant chaos` is used) and add that process\'s CPU; their "GETs/s the CPU allows" is bounded by the busiest process and, with a proxy (three processes on two cores), by half the sum of all three.' : '') +
      (sections.has('chaos') ? ' Chaos rows: one run of the sample-controller scenario; latency windows include the 1 s holds of terminate-leader.' : '') +
      (sections.has('apply') ? ' Apply rows: the baseline is the plain update path (PUT) of the same objects and changes; managedFields rows compare with the stored object without them.' : '') +
      '\n\n',
  );
  process.stdout.write(`${render(rows)}\n`);
  log('done');
} finally {
  for (const c of clients) c.close();
  for (const p of processes) await p.stop().catch(() => undefined);
  rmSync(workDir, { recursive: true, force: true });
}
