/**
 * The sample-controller on @operant/testing's TestEnv with a simulated
 * cluster (2 nodes, the deployment and replicaset controllers, the
 * scheduler): in process (a Foo gets its Deployment, replicas follow the Foo,
 * the Foo's status follows the Deployment's real rollout, events are
 * recorded, a Deployment owned by someone else is refused, deleting the Foo
 * collects the Deployment); with server-side apply sharing its Deployment
 * with a second manager (on an environment without a cluster, so that the
 * writes can be counted: no fight); and as the real `npm start` process
 * driven with the real kubectl.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  Client,
  Deployment,
  EventRecorder,
  EventsV1Event,
  Namespace,
  Pod,
  applyConfiguration,
  createLogger,
  type Informer,
  type Typed,
} from '@operant/runtime';
import { SharedInformerFactory } from '@operant/runtime/cache';
import { TestEnv, eventuallyFound } from '@operant/testing';
import { FooController, MessageResourceSynced, messageResourceExists } from '../src/controller.js';
import { FooKind, type Foo } from '../src/foo.js';
import { scaleFoo } from './scale-foo.js';

const exampleDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(exampleDir, '..', '..');
const kubectlPath = '/usr/bin/kubectl';
const hasKubectl = existsSync(kubectlPath);
const run = promisify(execFile);

const env = await TestEnv.start({ crds: join(exampleDir, 'artifacts/examples/crd.yaml'), cluster: { nodes: 2 } });
after(() => env.stop());
const client = env.client;

/** How long a test waits for the controller and the simulated cluster to get somewhere. */
const patience = 10_000;

type DeploymentObject = Typed<import('kubernetes-types/apps/v1.js').Deployment>;

/**
 * A started Foo controller with its informers and event recorder (`alongside`
 * may add handlers before the informers start); `stop` ends them all.
 */
async function startFooController(opts: { client?: Client; namespace?: string; writes?: 'update' | 'apply'; alongside?: (deployments: Informer<DeploymentObject>) => void } = {}) {
  const client = opts.client ?? env.client;
  const stop = new AbortController();
  const logger = createLogger({ level: 'silent' });
  const informers = new SharedInformerFactory(client, { logger, namespace: opts.namespace });
  const foos = informers.informerFor(FooKind);
  const deployments = informers.informerFor(Deployment);
  const events = informers.informerFor(EventsV1Event);
  const recorder = new EventRecorder(client, { reportingController: 'sample-controller', logger });
  const controller = new FooController({ client, foos, deployments, recorder, logger, writes: opts.writes });
  opts.alongside?.(deployments);
  informers.startAll(stop.signal);
  const running = controller.run(2, stop.signal);
  await informers.waitForCacheSync(stop.signal);
  return {
    foos,
    deployments,
    events,
    async stop(): Promise<void> {
      stop.abort();
      await running;
      await recorder.close();
      await informers.stopAll();
    },
  };
}

describe('the Foo controller in process', () => {
  let foos: Informer<Foo>;
  let deployments: Informer<DeploymentObject>;
  let events: Informer<Typed<import('kubernetes-types/events/v1.js').Event>>;
  let stop: () => Promise<void>;
  const ns = 'default';

  before(async () => {
    ({ foos, deployments, events, stop } = await startFooController());
  });

  after(async () => {
    await stop();
  });

  const eventFor = (fooName: string, reason: string) => () =>
    events.store
      .list()
      .find((e) => e.regarding?.name === fooName && e.reason === reason);

  test('a Foo gets a Deployment it controls, with its replicas, and a Synced event', async () => {
    const foo = await client.create(FooKind, { metadata: { name: 'alpha', namespace: ns }, spec: { deploymentName: 'alpha-web', replicas: 2 } });
    const deployment = await eventuallyFound(() => deployments.store.get(`${ns}/alpha-web`), { message: 'the Deployment', timeout: patience });
    assert.equal(deployment.spec?.replicas, 2);
    assert.deepEqual(deployment.spec?.selector.matchLabels, { app: 'nginx', controller: 'alpha' });
    assert.equal(deployment.spec?.template.spec?.containers[0]?.image, 'nginx:latest');
    assert.deepEqual(deployment.metadata.ownerReferences, [
      { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', name: 'alpha', uid: foo.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    const synced = await eventuallyFound(eventFor('alpha', 'Synced'), { message: 'the Synced event', timeout: patience });
    assert.equal(synced.type, 'Normal');
    assert.equal(synced.note, MessageResourceSynced);
    assert.equal(synced.reportingController, 'sample-controller');
  });

  test('the Deployment follows the Foo\'s replicas, and the Foo\'s status follows the Deployment', async () => {
    await scaleFoo(client, 'alpha', ns, () => 3);
    await eventuallyFound(() => deployments.store.get(`${ns}/alpha-web`)?.spec?.replicas === 3, { message: 'the Deployment at 3 replicas', timeout: patience });
    // The simulated cluster rolls the Deployment out: 3 pods are scheduled, run and become ready,
    // the Deployment counts them available, and the controller copies that into the Foo.
    await eventuallyFound(() => foos.store.get(`${ns}/alpha`)?.status?.availableReplicas === 3, { message: 'the Foo status at 3 available', timeout: 30_000 });
    const pods = await client.list(Pod, { namespace: ns, labelSelector: 'app=nginx,controller=alpha' });
    assert.equal(pods.items.length, 3);
    for (const pod of pods.items) {
      assert.equal(pod.status?.phase, 'Running');
      assert.match(pod.spec?.nodeName ?? '', /^node-[12]$/);
    }
  });

  test('a Deployment of that name that the Foo does not control is left alone, with an ErrResourceExists warning', async () => {
    const taken = await client.create(Deployment, {
      metadata: { name: 'taken', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'other' } },
        template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    });
    await client.create(FooKind, { metadata: { name: 'beta', namespace: ns }, spec: { deploymentName: 'taken', replicas: 1 } });
    const warning = await eventuallyFound(eventFor('beta', 'ErrResourceExists'), { message: 'the ErrResourceExists event', timeout: patience });
    assert.equal(warning.type, 'Warning');
    assert.equal(warning.note, messageResourceExists('taken'));
    const after = await client.get(Deployment, 'taken', { namespace: ns });
    // The deployment controller writes its status; the Foo controller must not have touched its spec.
    assert.equal(after.metadata.generation, taken.metadata.generation);
    assert.deepEqual(after.spec?.template, taken.spec?.template);
    assert.equal(after.metadata.ownerReferences, undefined);
  });

  test('deleting a Foo deletes its Deployment (garbage collection through the owner reference)', async () => {
    await client.delete(FooKind, 'alpha', { namespace: ns });
    await eventuallyFound(() => (deployments.store.get(`${ns}/alpha-web`) ? undefined : true), { message: 'the Deployment to go', timeout: patience });
  });
});

describe('the Foo controller with server-side apply, sharing its Deployment with another manager', () => {
  let foos: Informer<Foo>;
  let deployments: Informer<DeploymentObject>;
  let stop: () => Promise<void>;
  const ns = 'shared';
  const annotation = 'example.com/audited';
  /** The resourceVersions the Deployment went through: one per write. */
  const writes: string[] = [];
  /** The resourceVersions of the Deployment the auditor applied after seeing. */
  const audited: string[] = [];
  const auditorErrors: unknown[] = [];
  // No deployment controller here: the test plays it, so that every write to the Deployment is known.
  let bare: TestEnv;
  let client: Client;

  before(async () => {
    bare = await TestEnv.start({ crds: join(exampleDir, 'artifacts/examples/crd.yaml') });
    client = bare.client;
    await client.create(Namespace, { metadata: { name: ns } });
    // A second controller on the same Deployments: it owns one annotation and applies it on every event.
    const audit = (d: DeploymentObject): void => {
      writes.includes(d.metadata.resourceVersion!) || writes.push(d.metadata.resourceVersion!);
      const config = applyConfiguration(Deployment, d.metadata.name!, ns, { metadata: { annotations: { [annotation]: 'yes' } } });
      client
        .apply(Deployment, config, { fieldManager: 'auditor' })
        .then(() => audited.push(d.metadata.resourceVersion!))
        .catch((err: unknown) => auditorErrors.push(err));
    };
    const alongside = (informer: Informer<DeploymentObject>): void => void informer.addEventHandler({ add: audit, update: (_old, d) => audit(d) });
    ({ foos, deployments, stop } = await startFooController({ client, namespace: ns, writes: 'apply', alongside }));
  });

  after(async () => {
    await stop();
    await bare.stop();
  });

  test('each manager applies only its fields: no write undoes another, and an unchanged apply is no write', async () => {
    await client.create(FooKind, { metadata: { name: 'gamma', namespace: ns }, spec: { deploymentName: 'gamma-web', replicas: 2 } });
    await eventuallyFound(() => deployments.store.get(`${ns}/gamma-web`)?.metadata.annotations?.[annotation], { message: 'the annotated Deployment', timeout: patience });
    await scaleFoo(client, 'gamma', ns, () => 4);
    const scaled = await eventuallyFound(() => {
      const d = deployments.store.get(`${ns}/gamma-web`);
      return d?.spec?.replicas === 4 ? d : undefined;
    }, { message: 'the Deployment at 4 replicas', timeout: patience });
    // Play the deployment controller (a third manager, through the status subresource); the Foo
    // controller's status apply after it shows it synced after every other write.
    const reported = await client.updateStatus(Deployment, { ...scaled, status: { replicas: 4, availableReplicas: 4 } }, { fieldManager: 'deployment-controller' });
    await eventuallyFound(() => foos.store.get(`${ns}/gamma`)?.status?.availableReplicas === 4 || undefined, { message: 'the Foo status at 4', timeout: patience });
    await eventuallyFound(() => audited.includes(reported.metadata.resourceVersion!) || undefined, { message: 'the auditor’s apply after the status write', timeout: patience });
    assert.deepEqual(auditorErrors, []);

    const final = await client.get(Deployment, 'gamma-web', { namespace: ns });
    assert.equal(final.spec?.replicas, 4);
    assert.equal(final.metadata.annotations?.[annotation], 'yes');
    // Created, annotated, scaled, status reported: four writes, though both controllers applied on every event.
    assert.equal(writes.length, 4, `writes: ${writes.join(', ')}`);
    assert.equal(final.metadata.resourceVersion, reported.metadata.resourceVersion);
    assert.ok(audited.length >= 4, 'the auditor applied on every event');
    const managers = (final.metadata.managedFields ?? []).map((e) => [e.manager, e.operation, e.subresource ?? '']).sort();
    assert.deepEqual(managers, [
      ['auditor', 'Apply', ''],
      ['deployment-controller', 'Update', 'status'],
      ['sample-controller', 'Apply', ''],
    ]);
    const owned = final.metadata.managedFields?.find((e) => e.manager === 'sample-controller')?.fieldsV1 as Record<string, Record<string, unknown>>;
    assert.ok(owned['f:spec']?.['f:replicas'], 'the controller owns the replicas');
    assert.equal((owned['f:metadata'] as Record<string, unknown> | undefined)?.['f:annotations'], undefined, 'and not the annotation');
    const fooStatus = (await client.get(FooKind, 'gamma', { namespace: ns })).metadata.managedFields?.find((e) => e.subresource === 'status');
    assert.deepEqual([fooStatus?.manager, fooStatus?.operation, fooStatus?.fieldsV1], ['sample-controller', 'Apply', { 'f:status': { 'f:availableReplicas': {} } }]);
  });
});

describe('npm start -w examples/sample-controller, driven by kubectl', () => {
  test('applies example-foo, makes its Deployment, reports Synced in kubectl describe, and stops on SIGTERM', { timeout: 60_000 }, async (t) => {
    if (!hasKubectl) {
      t.skip(`kubectl not found at ${kubectlPath}`);
      return;
    }
    const kubectl = (...args: string[]) =>
      run(kubectlPath, ['--kubeconfig', env.kubeconfig.path, ...args], { env: { ...process.env, KUBECACHEDIR: join(dirname(env.kubeconfig.path), 'kubectl-cache') } });
    const child = spawn('npm', ['start', '-w', 'examples/sample-controller'], {
      cwd: repoRoot,
      env: { ...process.env, KUBECONFIG: env.kubeconfig.path, OPERANT_LOG_LEVEL: 'info', OPERANT_LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stderr.on('data', (d: Buffer) => (logs += d.toString()));
    child.stdout.on('data', (d: Buffer) => (logs += d.toString()));
    // 'close' waits for the pipes, which node (npm's child) holds until it exits.
    const closed = once(child, 'close');
    const ns = 'kubectl-demo';
    const watching = new AbortController();
    const eventInformers = new SharedInformerFactory(client, { namespace: ns, logger: createLogger({ level: 'silent' }) });
    try {
      await kubectl('create', 'namespace', ns);
      await kubectl('apply', '-f', join(exampleDir, 'artifacts/examples/crd.yaml'));
      await kubectl('apply', '-n', ns, '-f', join(exampleDir, 'artifacts/examples/example-foo.yaml'));
      const { stdout: waited } = await kubectl('wait', '-n', ns, '--for=create', 'deployment/example-foo', '--timeout=30s').catch(async () =>
        // kubectl before 1.31 has no --for=create: wait on a field the controller sets instead.
        kubectl('wait', '-n', ns, '--for=jsonpath={.spec.replicas}=1', 'deployment/example-foo', '--timeout=30s'),
      );
      assert.match(waited, /deployment.apps\/example-foo condition met/);
      const { stdout: deployment } = await kubectl('get', '-n', ns, 'deployment', 'example-foo', '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.spec.replicas}');
      assert.equal(deployment, 'Foo/example-foo 1');
      // The Synced event is sent asynchronously: await it before describing.
      const events = eventInformers.informerFor(EventsV1Event);
      eventInformers.startAll(watching.signal);
      await eventuallyFound(() => events.store.list().find((e) => e.reason === 'Synced'), { message: 'the Synced event', timeout: patience }).catch(async (err: unknown) => {
        // What the server has (was the event written?) beside what the informer saw, and the controller's own account.
        const stored = await client.list(EventsV1Event, { namespace: ns }).then((l) => l.items.map((e) => `${e.reason} ${e.regarding?.name}`).join(', '), (e: Error) => `(list failed: ${e.message})`);
        const seen = events.store.list().map((e) => `${e.reason} ${e.regarding?.name}`).join(', ');
        throw new Error(`${err instanceof Error ? err.message : String(err)}\nevents in ${ns}: [${stored}]; in the informer: [${seen}] (synced: ${events.hasSynced()})\nthe controller's output:\n${logs}`, { cause: err });
      });
      const described = (await kubectl('describe', '-n', ns, 'foo', 'example-foo')).stdout;
      assert.match(described, /Normal\s+Synced\s+.*sample-controller\s+Foo synced successfully/);
      const { stdout: table } = await kubectl('get', '-n', ns, 'foos');
      assert.match(table, /^NAME\s+DEPLOYMENT\s+REPLICAS\s+AVAILABLE\s+AGE\n/);
      assert.match(table, /example-foo\s+example-foo\s+1\s+/);
      assert.match(logs, /"resourceName":"kubectl-demo\/example-foo","msg":"Successfully synced"/);
    } finally {
      // Stopped also when an assertion failed: a running informer would keep the file from ending.
      watching.abort();
      await eventInformers.stopAll();
      // npm passes SIGTERM on to the node process it runs, as a container runtime's stop would reach it.
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    const [code, signal] = (await closed) as [number | null, string | null];
    // npm re-raises the signal it forwarded; the controller itself stops cleanly and says so.
    assert.ok(code === 0 || signal === 'SIGTERM', `npm ended with ${code ?? signal}: ${logs}`);
    assert.match(logs, /sample-controller stopped/);
  });
});
