/**
 * The SidecarSet operator (examples/sidecarset, issue 16):
 *
 * - the pod webhook's injection: pod creates through the API server with the
 *   operator's webhooks and 10 SidecarSets (3 of which select the pod), p50
 *   and p99, against the same creates through a webhook on the same server
 *   that answers "allowed" without work;
 * - the status of one SidecarSet over 10,000 injected pods (calculateStatus),
 *   against selecting the same pods with the SidecarSet's label selector alone;
 * - an in-place upgrade of 1,000 pods (BENCH_SIDECARSET_PODS) on simulated
 *   nodes with maxUnavailable 10%: wall time from the image change to every
 *   pod updated and ready, against the ideal, the rounds times the simulated
 *   restart time.
 */
import { startApiServer } from '@operant/apiserver';
import { labelSelectorFromObject } from '@operant/apimachinery';
import { startSimulatedCluster } from '@operant/controllers';
import {
  admissionHandler,
  allowed,
  Client,
  Deployment,
  generateServingCertificate,
  loadKubeConfig,
  localWebhookClientConfig,
  Manager,
  MutatingWebhookConfiguration,
  Namespace,
  Pod,
  silentLogger,
} from '@operant/runtime';
import type { Pod as PodType } from 'kubernetes-types/core/v1.js';
import { installCrds, installLocalWebhooks, installOperatorIdentity, removeLocalWebhooks } from '../examples/sidecarset/demo/local-operator.js';
import { SidecarSet } from '../examples/sidecarset/src/api/v1alpha1/zz_generated.kinds.js';
import { setupSidecarSetController } from '../examples/sidecarset/src/controllers/sidecarset-controller.js';
import { setupSidecarSetDefaultingWebhook, setupSidecarSetValidatingWebhook } from '../examples/sidecarset/src/webhooks/v1alpha1/sidecarset-webhook.js';
import { setupPodDefaultingWebhook } from '../examples/sidecarset/src/webhooks/v1/pod-webhook.js';
import { defaultSidecarSet } from '../examples/sidecarset/src/sidecarset/defaults/sidecarset-defaults.js';
import { injectSidecarSets } from '../examples/sidecarset/src/sidecarset/injection/inject.js';
import { calculateStatus } from '../examples/sidecarset/src/sidecarset/status/status.js';
import { fmt, row, type Row } from './table.js';

type Log = (text: string) => void;

/** The value at quantile `q` of `xs`. */
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** An operator on a fresh embedded server, with its webhooks and the no-op one side by side. */
async function operatorServer() {
  const server = await startApiServer({ port: 0 });
  const admin = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
  const client = Client.fromConfig(admin, { qps: Infinity });
  await installCrds(client);
  const operatorConfig = await installOperatorIdentity(client, admin);
  const certs = await generateServingCertificate();
  const mgr = await Manager.create({ kubeconfig: operatorConfig, logger: silentLogger, webhook: { port: 0, host: '127.0.0.1', certificates: certs.source } });
  for (const setup of [setupSidecarSetController, setupSidecarSetDefaultingWebhook, setupPodDefaultingWebhook, setupSidecarSetValidatingWebhook]) setup(mgr);
  mgr.webhookServer.register('/allow', admissionHandler(async () => allowed()));
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  const { port } = await mgr.webhookServer.listening();
  return {
    admin,
    client,
    port,
    caPem: certs.caPem,
    async close() {
      stop.abort();
      await done;
      client.close();
      await server.stop();
    },
  };
}

async function webhookLatency(rounds: number, log: Log): Promise<Row[]> {
  const op = await operatorServer();
  try {
    const { client } = op;
    await client.create(Namespace, { metadata: { name: 'bench' } });
    let ours = await installLocalWebhooks(client, op);
    for (let i = 0; i < 10; i++) {
      await client.create(SidecarSet, {
        metadata: { name: `set-${i}` },
        spec: { selector: { matchLabels: { app: i < 3 ? 'web' : `other-${i}` } }, containers: [{ name: `sidecar-${i}`, image: `example.com/sidecar-${i}:1.0`, volumeMounts: [{ name: `data-${i}`, mountPath: `/data/${i}` }] }], volumes: [{ name: `data-${i}`, emptyDir: {} }] },
      });
    }
    const noop = {
      metadata: { name: 'bench-allow' },
      webhooks: [
        {
          name: 'allow.bench.operant.dev',
          clientConfig: localWebhookClientConfig({ port: op.port, path: '/allow', caPem: op.caPem }),
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
        },
      ],
    };
    let n = 0;
    const creates = async (count: number): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        const pod = await client.create(Pod, { metadata: { name: `p-${n++}`, namespace: 'bench', labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } });
        times.push(performance.now() - t);
        if (i === 0 && ours.length > 0 && pod.spec!.containers.length !== 4) throw new Error(`the pod got ${pod.spec!.containers.length - 1} sidecars, not 3`);
      }
      return times;
    };
    // Warm up both paths (connections, caches, JIT).
    await creates(50);
    const p50 = { ours: [] as number[], base: [] as number[] };
    const p99 = { ours: [] as number[], base: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      log(`sidecarset: webhook round ${r + 1}/${rounds}: 300 creates through the operator's webhooks, 300 through the no-op one`);
      const withOurs = await creates(300);
      await removeLocalWebhooks(client, ours);
      ours = [];
      await client.create(MutatingWebhookConfiguration, noop as never);
      const withNoop = await creates(300);
      await client.delete(MutatingWebhookConfiguration, 'bench-allow');
      ours = await installLocalWebhooks(client, op);
      p50.ours.push(quantile(withOurs, 0.5));
      p50.base.push(quantile(withNoop, 0.5));
      p99.ours.push(quantile(withOurs, 0.99));
      p99.base.push(quantile(withNoop, 0.99));
    }
    const what = '(a webhook that allows without work)';
    return [
      row('Pod create with injection (10 SidecarSets, 3 match), p50', p50.ours, p50.base, fmt.ms, what),
      row('Pod create with injection (10 SidecarSets, 3 match), p99', p99.ours, p99.base, fmt.ms, what),
    ];
  } finally {
    await op.close();
  }
}

function statusCalculation(rounds: number, log: Log): Row[] {
  const count = 10_000;
  log(`sidecarset: status of one SidecarSet over ${count} pods`);
  const set: SidecarSet = { metadata: { name: 'log-agent' }, spec: { selector: { matchLabels: { app: 'web' } }, containers: [{ name: 'log-agent', image: 'busybox:1.36' }] } };
  defaultSidecarSet(set);
  const pods: PodType[] = [];
  for (let i = 0; i < count; i++) {
    const pod: PodType = { metadata: { name: `web-${i}`, namespace: 'default', labels: { app: 'web', shard: String(i % 7) } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } };
    const injected = injectSidecarSets(pod, [set], new Date())!;
    pods.push({
      ...injected,
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: injected.spec!.containers.map((c) => ({ name: c.name, image: c.image!, imageID: '', ready: true, restartCount: 0 })),
      },
    });
  }
  const namespaceLabels = () => ({});
  const ours: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < Math.max(5, rounds); r++) {
    let t = performance.now();
    const status = calculateStatus(set, pods, namespaceLabels);
    ours.push(performance.now() - t);
    if (status.readyPods !== count) throw new Error(`status counted ${status.readyPods} ready pods of ${count}`);
    t = performance.now();
    const selector = labelSelectorFromObject(set.spec!.selector);
    const selected = pods.filter((p) => selector.matches(p.metadata?.labels ?? {})).length;
    base.push(performance.now() - t);
    if (selected !== count) throw new Error('selector');
  }
  return [row(`Status of one SidecarSet over ${count.toLocaleString('en-US')} pods`, ours, base, fmt.ms, '(selecting them by label alone)')];
}

async function inPlaceUpgrade(log: Log): Promise<Row[]> {
  const pods = Number(process.env.BENCH_SIDECARSET_PODS ?? 1000);
  const restartSeconds = 1;
  const op = await operatorServer();
  const cluster = await startSimulatedCluster({ kubeconfig: op.admin, nodes: Math.ceil(pods / 100), timing: { restartSeconds }, logger: silentLogger });
  try {
    const { client } = op;
    await installLocalWebhooks(client, op);
    await client.create(SidecarSet, { metadata: { name: 'mesh' }, spec: { selector: { matchLabels: { app: 'shop' } }, containers: [{ name: 'proxy', image: 'envoyproxy/envoy:v1.30.0' }], updateStrategy: { maxUnavailable: '10%' } } });
    log(`sidecarset: ${pods} pods on ${cluster.nodes.length} simulated nodes`);
    await client.create(Deployment, {
      metadata: { name: 'shop', namespace: 'default' },
      spec: { replicas: pods, selector: { matchLabels: { app: 'shop' } }, template: { metadata: { labels: { app: 'shop' } }, spec: { containers: [{ name: 'shop', image: 'nginx:1.27' }] } } },
    });
    await until(client, (s) => s.status?.updatedReadyPods === pods, 600_000);
    log('sidecarset: changing the sidecar image');
    const t = performance.now();
    await client.patch(SidecarSet, 'mesh', [{ op: 'replace', path: '/spec/containers/0/image', value: 'envoyproxy/envoy:v1.31.0' }], { patchType: 'json' });
    await until(client, (s) => s.status?.observedGeneration === 2 && s.status.updatedReadyPods === pods, 600_000);
    const wall = performance.now() - t;
    const perRound = Math.ceil(pods * 0.1);
    const ideal = Math.ceil(pods / perRound) * restartSeconds * 1000;
    return [row(`In-place upgrade of ${pods} pods, maxUnavailable 10%`, [wall], [ideal], fmt.ms, `(ideal: ${Math.ceil(pods / perRound)} rounds × ${restartSeconds} s restart)`)];
  } finally {
    await cluster.stop();
    await op.close();
  }
}

/** Resolves once the SidecarSet `mesh` satisfies `done`, watching it. */
async function until(client: Client, done: (s: SidecarSet) => boolean, timeoutMs: number): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  if (done(await client.get(SidecarSet, 'mesh'))) return;
  for await (const event of client.watch(SidecarSet, { fieldSelector: 'metadata.name=mesh', signal })) {
    if ((event.type === 'ADDED' || event.type === 'MODIFIED') && done(event.object)) return;
  }
}

export async function sidecarsetSection(rounds: number, log: Log): Promise<Row[]> {
  const rows = await webhookLatency(rounds, log);
  rows.push(...statusCalculation(rounds, log));
  rows.push(...(await inPlaceUpgrade(log)));
  return rows;
}
