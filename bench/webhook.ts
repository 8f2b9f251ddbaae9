/**
 * The webhook server (issue 6's benchmark): AdmissionReviews for a defaulting
 * webhook on a 50-field object, posted over HTTPS with keep-alive from this
 * process to a WebhookServer in a child process, against peers measured the
 * same way in the same run (same certificate code, each in its own process):
 * - a bare node:https server that reads the body and answers a fixed allowed
 *   review (the issue's baseline: what HTTPS alone costs);
 * - a bare node:https server that hands the parsed body to the same defaulter
 *   handler and writes its answer: the cost of the WebhookServer itself (routing,
 *   the HTTP rules, deadlines, metrics) apart from the defaulting.
 *
 * All three run the TypeScript sources through tsx, as this file does: the
 * built `dist` measured the same within noise (load ~10; session 9), and the
 * sources need no build first.
 *
 * - Reviews/s and p99 latency, BENCH_CONNECTIONS (default 16) connections.
 * - The JSON Patch share: `compare` timed in process over the same original
 *   and defaulted objects, against the whole in-process handling of a review
 *   (parse the body, decode, clone, default, compare, encode the answer).
 *
 * Alone: `node --conditions=source --import tsx bench/webhook.ts` prints a table;
 * `webhookSection(rounds, log)` gives the rows to bench/run.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent, createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fastJsonPatch from 'fast-json-patch';
import { Registry } from 'prom-client';
import type { KubeObject } from '@operant/apimachinery';
// Until @operant/runtime's index exports the webhook module, the bench reads it from source.
import { defaulter, defineKind, generateServingCertificate, mutatePath, WebhookServer, type WebhookHandler } from '@operant/runtime';
import { PrometheusWebhookMetrics } from '@operant/runtime/metrics';
import { median } from './stats.js';
import { fmt, render, row, type Row } from './table.js';

type Log = (text: string) => void;

const fieldCount = 50;
/** Fields the defaulter fills in (absent from the request): the patch has this many operations. */
const defaultedCount = 10;
const requestsPerRound = Number(process.env.BENCH_WEBHOOK_REQUESTS ?? 5_000);
const warmup = 2_000;
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface WidgetObject extends KubeObject {
  spec: Record<string, unknown>;
}
const Widget = defineKind<WidgetObject>({ group: 'bench.operant.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** The i-th field's default: strings, numbers, booleans, lists and maps in turn. */
function fieldValue(i: number): unknown {
  switch (i % 5) {
    case 0:
      return `value-${i}`;
    case 1:
      return i * 7;
    case 2:
      return i % 2 === 0;
    case 3:
      return [`a-${i}`, `b-${i}`];
    default:
      return { key: `k-${i}`, weight: i };
  }
}

/** A Widget with the last `defaultedCount` of its 50 spec fields missing. */
function sparseWidget(): WidgetObject {
  const spec: Record<string, unknown> = {};
  for (let i = 0; i < fieldCount - defaultedCount; i++) spec[`field${i}`] = fieldValue(i);
  return { apiVersion: 'bench.operant.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', uid: '5f0c2b8e-1111-4c3a-9d5e-000000000001' }, spec };
}

function defaultWidget(obj: WidgetObject): void {
  for (let i = 0; i < fieldCount; i++) obj.spec[`field${i}`] ??= fieldValue(i);
}

function reviewJson(): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '7d0e4b5a-2222-4c3a-9d5e-000000000002',
      kind: { group: 'bench.operant.dev', version: 'v1', kind: 'Widget' },
      resource: { group: 'bench.operant.dev', version: 'v1', resource: 'widgets' },
      namespace: 'default',
      name: 'w',
      operation: 'CREATE',
      userInfo: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
      object: sparseWidget(),
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  });
}

function widgetDefaulter(): WebhookHandler {
  return defaulter(Widget, { default: defaultWidget });
}

// ---- The child: serves one kind of server and reports its port and CA.

type Kind = 'ours' | 'bare' | 'bare-defaulter';

async function serve(kind: Kind): Promise<void> {
  const certs = await generateServingCertificate();
  let port: number;
  if (kind === 'ours') {
    const server = new WebhookServer({ certificates: certs.source, host: '127.0.0.1', port: 0, logger: quiet, metrics: new PrometheusWebhookMetrics(new Registry()) });
    server.register(mutatePath(Widget), widgetDefaulter());
    void server.start(new AbortController().signal);
    port = (await server.listening()).port;
  } else if (kind === 'bare-defaulter') {
    const handler = widgetDefaulter();
    const ctx = { signal: new AbortController().signal, log: quiet };
    const server = createHttpsServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const answer = JSON.stringify(await handler(JSON.parse(Buffer.concat(chunks).toString()) as unknown, ctx));
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
          res.end(answer);
        })();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  } else {
    const answer = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: '7d0e4b5a-2222-4c3a-9d5e-000000000002', allowed: true } });
    const server = createHttpsServer({ cert: certs.cert, key: certs.key }, (req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(answer) });
        res.end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }
  process.send!({ port, ca: certs.caPem });
  // The parent asks for the CPU this process has used (µs), to count it per review.
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuUs: user + system });
  });
  process.on('disconnect', () => process.exit(0));
}

// ---- The parent: load over HTTPS.

interface Target {
  child: ChildProcess;
  port: number;
  ca: string;
}

async function startTarget(kind: Kind): Promise<Target> {
  // BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each server there (node --cpu-prof).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = fork(fileURLToPath(import.meta.url), ['--serve', kind], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...profile] });
  const [message] = (await once(child, 'message')) as [{ port: number; ca: string }];
  return { child, ...message };
}

/** The CPU time (user + system, µs) the target's process has used so far. */
async function cpuUs(t: Target): Promise<number> {
  t.child.send({ cpu: true });
  const [message] = (await once(t.child, 'message')) as [{ cpuUs: number }];
  return message.cpuUs;
}

async function stopTarget(t: Target): Promise<void> {
  const exited = once(t.child, 'exit');
  t.child.disconnect();
  await exited;
}

function post(agent: Agent, t: Target, path: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: t.port, path, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString()}`));
          else resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `count` reviews over `connections` keep-alive connections: reviews/s and p99 latency (ms). */
async function load(t: Target, path: string, body: string, count: number): Promise<{ rate: number; p99: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, ca: t.ca });
  try {
    let next = 0;
    const latencies: number[] = [];
    const worker = async (): Promise<void> => {
      while (next < count) {
        next++;
        const start = performance.now();
        await post(agent, t, path, body);
        latencies.push(performance.now() - start);
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: connections }, worker));
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return { rate: count / seconds, p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]! };
  } finally {
    agent.destroy();
  }
}

/** Mean µs of `fn` over `iterations` runs (after a warm-up). */
async function timeUs(iterations: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(1000, iterations); i++) await fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  return ((performance.now() - start) * 1000) / iterations;
}

/** In process: `compare` alone vs the whole handling of one review. */
async function patchShare(): Promise<{ compareUs: number; handleUs: number }> {
  const original = sparseWidget();
  const mutated = structuredClone(original);
  defaultWidget(mutated);
  const ops = fastJsonPatch.compare(original, mutated);
  if (ops.length !== defaultedCount) throw new Error(`expected ${defaultedCount} patch operations, got ${ops.length}`);
  const compareUs = await timeUs(20_000, () => fastJsonPatch.compare(original, mutated));
  const handler = widgetDefaulter();
  const body = reviewJson();
  const ctx = { signal: new AbortController().signal, log: quiet };
  const handleUs = await timeUs(20_000, async () => JSON.stringify(await handler(JSON.parse(body) as unknown, ctx)));
  return { compareUs, handleUs };
}

/** The webhook rows of the benchmark table. */
export async function webhookSection(rounds: number, log: Log): Promise<Row[]> {
  const path = mutatePath(Widget);
  const body = reviewJson();
  log(`webhook: ${rounds} rounds of ${requestsPerRound} reviews (${Buffer.byteLength(body)} B each), ${connections} connections`);
  const ours = await startTarget('ours');
  const bare = await startTarget('bare');
  const bareDefaulter = await startTarget('bare-defaulter');
  const rates: Record<Kind, number[]> = { ours: [], bare: [], 'bare-defaulter': [] };
  const p99s: Record<Kind, number[]> = { ours: [], bare: [], 'bare-defaulter': [] };
  // Server CPU per review: what the machine's load does not change much, unlike rates.
  const cpuPerReview: Record<Kind, number[]> = { ours: [], bare: [], 'bare-defaulter': [] };
  const compare: number[] = [];
  const handle: number[] = [];
  try {
    await load(ours, path, body, warmup);
    await load(bare, path, body, warmup);
    await load(bareDefaulter, path, body, warmup);
    for (let r = 0; r < rounds; r++) {
      // Alternate the order, so that none always meets a warmer machine.
      const forward: Array<[Kind, Target]> = [['ours', ours], ['bare', bare], ['bare-defaulter', bareDefaulter]];
      const order = r % 2 === 0 ? forward : forward.reverse();
      for (const [name, target] of order) {
        const cpuBefore = await cpuUs(target);
        const result = await load(target, path, body, requestsPerRound);
        cpuPerReview[name].push(((await cpuUs(target)) - cpuBefore) / requestsPerRound);
        rates[name].push(result.rate);
        p99s[name].push(result.p99);
      }
      const share = await patchShare();
      compare.push(share.compareUs);
      handle.push(share.handleUs);
      log(`webhook round ${r + 1}: ${Math.round(rates.ours.at(-1)!)}/s vs ${Math.round(rates.bare.at(-1)!)}/s bare`);
    }
  } finally {
    await stopTarget(ours);
    await stopTarget(bare);
    await stopTarget(bareDefaulter);
  }
  const share = median(compare) / median(handle);
  return [
    row(`Webhook reviews/s, defaulting a ${fieldCount}-field object, ${connections} conns`, rates.ours, rates.bare, fmt.rate, '(bare node:https, fixed review)'),
    row('Webhook p99 latency', p99s.ours, p99s.bare, fmt.ms, '(bare node:https, fixed review)'),
    row('Webhook server CPU per review', cpuPerReview.ours, cpuPerReview.bare, fmt.us, '(bare node:https, fixed review)'),
    row('Webhook reviews/s, against the same defaulter without the WebhookServer', rates.ours, rates['bare-defaulter'], fmt.rate, '(bare node:https + the same handler)'),
    row('Webhook server CPU per review, same', cpuPerReview.ours, cpuPerReview['bare-defaulter'], fmt.us, '(bare node:https + the same handler)'),
    row(
      `JSON Patch (compare) per review, ${defaultedCount} ops`,
      compare,
      handle,
      fmt.us,
      `(whole in-process handling; share ${fmt.pct(share)})`,
    ),
  ];
}

const serveIndex = process.argv.indexOf('--serve');
if (serveIndex >= 0) {
  const kind = process.argv[serveIndex + 1];
  await serve(kind === 'bare' || kind === 'bare-defaulter' ? kind : 'ours');
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const t0 = performance.now();
  const rows = await webhookSection(rounds, (text) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1)}s] ${text}\n`));
  process.stdout.write(`\nWebhook server benchmark: node ${process.version}; ${rounds} rounds; ratio = ours ÷ baseline.\n${render(rows)}\n`);
}
