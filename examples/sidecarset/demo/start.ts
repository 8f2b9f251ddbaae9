/**
 * `npm start` at the repository root: the SidecarSet operator on an embedded
 * Kubernetes API server with 3 simulated nodes, on this machine.
 *
 *  1. starts the API server, its data and kubeconfig under `.operant/`
 *     (`--dir DIR` elsewhere), and the simulated cluster (a scheduler, the
 *     deployment and replicaset controllers, 3 nodes whose kubelets run pods);
 *  2. installs the operator: its CRD, its ServiceAccount with the generated
 *     ClusterRole, its manager (controller and webhooks) in this process, and
 *     the webhook configurations pointed at it;
 *  3. applies the sample SidecarSet and a 3-replica Deployment it selects
 *     (kept if they are there: a second start reuses the data);
 *  4. shows the pods with their injected sidecar and `kubectl get sidecarsets`
 *     at 3/3/3, then the kubectl commands to try next;
 *  5. runs until Ctrl-C.
 */
import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiServer } from '@operant/apiserver';
import { startSimulatedCluster } from '@operant/controllers';
import { Client, createLogger, Deployment, ensureLocalCertificates, isAlreadyExists, loadKubeConfig, Manager, Pod, type Kind, type KubeObject, type Typed } from '@operant/runtime';
import { readManifests } from '@operant/testing/install';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { setupSidecarSetController } from '../src/controllers/sidecarset-controller.js';
import { setupSidecarSetDefaultingWebhook, setupSidecarSetValidatingWebhook } from '../src/webhooks/v1alpha1/sidecarset-webhook.js';
import { setupPodDefaultingWebhook } from '../src/webhooks/v1/pod-webhook.js';
import { installCrds, installLocalWebhooks, installOperatorIdentity, operatorNamespace, operatorServiceAccount, projectFile, removeLocalWebhooks } from './local-operator.js';
import { formatTable, getTable } from './table.js';

const { values } = parseArgs({ options: { dir: { type: 'string', default: '.operant' }, nodes: { type: 'string', default: '3' } } });
const dir = resolve(values.dir!);
const nodes = Number(values.nodes);
if (!Number.isInteger(nodes) || nodes < 1) {
  process.stderr.write(`npm start: --nodes ${JSON.stringify(values.nodes)}: expected a whole number of nodes, at least 1\n`);
  process.exit(2);
}
const shown = (path: string) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.');
const say = (...lines: string[]) => void process.stdout.write(lines.map((l) => `${l}\n`).join(''));
// The components' own logs: warnings and errors only, unless asked for (OPERANT_LOG_LEVEL=info).
const logger = createLogger({ level: process.env.OPERANT_LOG_LEVEL || 'warn' });

// Ctrl-C from here on stops everything cleanly (the data stays).
const interrupted = new Promise<void>((done) => {
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
});
const stopping = new AbortController();
void interrupted.then(() => stopping.abort());

await mkdir(dir, { recursive: true, mode: 0o700 });
const kubeconfigPath = resolve(dir, 'kubeconfig');
const server = await startApiServer({ port: 0, dataDir: resolve(dir, 'data'), kubeconfigPath });
const admin = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
const client = Client.fromConfig(admin);

// The operator, as deployed: its CRD, its identity, its manager and its webhooks.
await installCrds(client);
const operatorConfig = await installOperatorIdentity(client, admin);
const certificates = await ensureLocalCertificates(resolve(dir, 'webhook-certs'));
const manager = await Manager.create({
  kubeconfig: operatorConfig,
  logger,
  webhook: { host: '127.0.0.1', port: 0, certificates: certificates.source },
});
for (const setup of [setupSidecarSetController, setupSidecarSetDefaultingWebhook, setupPodDefaultingWebhook, setupSidecarSetValidatingWebhook]) setup(manager);
const stopManager = new AbortController();
const managerDone = manager.start(stopManager.signal);
const { port } = await manager.webhookServer.listening();
const webhooks = await installLocalWebhooks(client, { port, caPem: certificates.caPem });

// Pods run once there are nodes: after the webhooks, so that every pod gets its sidecars.
const cluster = await startSimulatedCluster({ kubeconfig: admin, nodes, logger });

const [sample] = (await readManifests(projectFile('config/samples/apps_v1alpha1_sidecarset.yaml'))) as SidecarSet[];
const [deployment] = (await readManifests(projectFile('demo/guestbook.yaml'))) as Array<Typed<appsv1.Deployment>>;
if (!sample || !deployment) throw new Error('the demo needs config/samples/apps_v1alpha1_sidecarset.yaml and demo/guestbook.yaml');
const applied = [await createIfAbsent(SidecarSet, sample), await createIfAbsent(Deployment, deployment)];
const sidecarSetName = sample.metadata.name!;
const replicas = deployment.spec?.replicas ?? 1;
const selector = Object.entries(deployment.spec?.selector.matchLabels ?? {})
  .map(([k, v]) => `${k}=${v}`)
  .join(',');

say(
  `Operant: the SidecarSet operator on an embedded Kubernetes API server with ${cluster.nodes.length} simulated nodes.`,
  '',
  `  API server  ${server.url}  (data in ${shown(resolve(dir, 'data'))}, kubeconfig ${shown(kubeconfigPath)})`,
  `  operator    the SidecarSet controller and its webhooks, as ServiceAccount ${operatorNamespace}/${operatorServiceAccount}`,
  `  samples     ${applied.join(', ')}`,
  '',
);

await settled();
if (!stopping.signal.aborted) await showWhatHappened();
await interrupted;
await cluster.stop();
await removeLocalWebhooks(client, webhooks);
stopManager.abort();
await managerDone;
client.close();
await server.stop();
say('stopped');

/** The pods with their sidecars, the SidecarSet as kubectl shows it, and what to try next. */
async function showWhatHappened(): Promise<void> {
  const pods = (await client.list(Pod, { namespace: 'default', labelSelector: selector })).items.sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
  say(`The pods of deployment/${deployment.metadata.name}, with the sidecar the webhook injected:`);
  for (const pod of pods) {
    const containers = pod.spec!.containers.map((c) => `${c.name} (${c.image})`).join(', ');
    const ready = pod.status?.containerStatuses?.filter((c) => c.ready).length ?? 0;
    say(`  ${pod.metadata.name}  ${pod.spec!.nodeName ?? '<pending>'}  ${ready}/${pod.spec!.containers.length} ${pod.status?.phase ?? ''}  ${containers}`);
}
say('', '$ kubectl get sidecarsets', ...formatTable(await getTable(server, '/apis/apps.kruise.io/v1alpha1/sidecarsets')), '');
const k = `kubectl --kubeconfig ${shown(kubeconfigPath)}`;
say(
  'Try next, in another terminal:',
  `  ${k} patch sidecarset ${sidecarSetName} --type=json -p '[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:1.37"}]'`,
  `  ${k} get pods -l ${selector} -w      # the sidecars restart in place, one pod at a time`,
  `  ${k} get sidecarsets -w               # UPDATED climbs to ${replicas}`,
  `  ${k} describe pod -l ${selector}`,
  `  ${k} get controllerrevisions -n ${operatorNamespace}`,
  '',
  `Press Ctrl-C to stop; the data stays in ${shown(dir)} for the next npm start.`,
);
}

/** Creates the sample unless there is one of that name; says which. */
async function createIfAbsent<T extends KubeObject>(kind: Kind<T>, obj: T): Promise<string> {
  const name = `${kind.kind.toLowerCase()}/${obj.metadata.name}`;
  try {
    await client.create(kind, obj);
    return `${name} created`;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return `${name} kept (from the last run)`;
  }
}

/** Resolves once the SidecarSet counts every replica as matched, updated and ready (or on Ctrl-C). */
async function settled(timeoutMs = 60_000): Promise<void> {
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping.signal]);
  const done = (s: SidecarSet) => {
    const st = s.status;
    return st?.matchedPods === replicas && st.updatedPods === replicas && st.readyPods === replicas && st.observedGeneration === s.metadata.generation;
  };
  try {
    if (done(await client.get(SidecarSet, sidecarSetName))) return;
    for await (const event of client.watch(SidecarSet, { fieldSelector: `metadata.name=${sidecarSetName}`, signal })) {
      if ((event.type === 'ADDED' || event.type === 'MODIFIED') && done(event.object)) return;
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
  if (stopping.signal.aborted) return;
  const status = (await client.get(SidecarSet, sidecarSetName)).status;
  say(`The SidecarSet has not settled after ${timeoutMs / 1000} s: ${JSON.stringify(status)}; it keeps running.`);
}

