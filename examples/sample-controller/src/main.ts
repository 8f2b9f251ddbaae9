/**
 * Runs the Foo controller against the cluster that KUBECONFIG (or
 * --kubeconfig, or ~/.kube/config, or the in-cluster service account) names,
 * until SIGTERM or SIGINT.
 *
 *   npm start -w examples/sample-controller -- --kubeconfig .operant/kubeconfig
 *
 * `--server-side-apply` makes it write with server-side apply (see FooControllerDeps.writes).
 *
 * `--leader-elect` runs it as one of several replicas (kube-controller-manager's
 * flags): the informers start at once on every replica, so that a new leader
 * has a warm cache, but only the replica holding the Lease runs the workers.
 * A leader that cannot renew in time exits at once with status 1, as kube's
 * controllers do ("leaderelection lost"): another replica may already lead. On
 * SIGTERM the leader lets its workers drain (the reconcile in flight finishes)
 * and only then releases the Lease, as controller-runtime's manager does, so
 * its successor starts at once and never beside it.
 */
import { parseArgs } from 'node:util';
import {
  Client,
  Deployment,
  EventRecorder,
  LeaderElector,
  LeaseLock,
  createLogger,
  handleSignals,
  leaderIdentity,
  loadKubeConfig,
  parseDuration,
} from '@operant/runtime';
import { SharedInformerFactory } from '@operant/runtime/cache';
import { FooController } from './controller.js';
import { FooKind } from './foo.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    workers: { type: 'string', default: '2' },
    'server-side-apply': { type: 'boolean', default: false },
    'leader-elect': { type: 'boolean', default: false },
    'leader-elect-lease-duration': { type: 'string', default: '15s' },
    'leader-elect-renew-deadline': { type: 'string', default: '10s' },
    'leader-elect-retry-period': { type: 'string', default: '2s' },
    'leader-elect-resource-name': { type: 'string', default: 'sample-controller' },
    'leader-elect-resource-namespace': { type: 'string', default: 'kube-system' },
  },
});
const workers = Number(values.workers);
if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a positive integer, not ${values.workers}`);

const logger = createLogger();
const signal = handleSignals();
const client = Client.fromConfig(await loadKubeConfig(values.kubeconfig ? { path: values.kubeconfig } : {}));
// A resync every 30 s, as the original's informer factory has: handlers see every object again.
const informers = new SharedInformerFactory(client, { logger, resyncPeriodMs: 30_000 });
const recorder = new EventRecorder(client, { reportingController: 'sample-controller', logger });
const controller = new FooController({
  client,
  foos: informers.informerFor(FooKind),
  deployments: informers.informerFor(Deployment),
  recorder,
  logger,
  writes: values['server-side-apply'] ? 'apply' : 'update',
});

informers.startAll(signal);
try {
  if (values['leader-elect']) await runElected();
  else await controller.run(workers, signal);
} finally {
  await informers.stopAll();
  await recorder.close();
  client.close();
  logger.info({}, 'sample-controller stopped');
}

/** Campaigns for the Lease and runs the workers while leading; resolves after a SIGTERM (Lease released), exits 1 when leadership is lost. */
async function runElected(): Promise<void> {
  const name = values['leader-elect-resource-name']!;
  const lock = new LeaseLock(client, { name, namespace: values['leader-elect-resource-namespace']!, identity: leaderIdentity() });
  // The elector stops (and releases) only once the workers have drained, not when the signal comes.
  const election = new AbortController();
  let running: Promise<void> | undefined;
  const elector = new LeaderElector(lock, {
    name,
    leaseDurationMs: parseDuration(values['leader-elect-lease-duration']!),
    renewDeadlineMs: parseDuration(values['leader-elect-renew-deadline']!),
    retryPeriodMs: parseDuration(values['leader-elect-retry-period']!),
    logger,
    onStartedLeading: (leading) => {
      running = controller.run(workers, AbortSignal.any([signal, leading]));
    },
  });
  const stopWhenDrained = async (): Promise<void> => {
    await running;
    election.abort();
  };
  signal.addEventListener('abort', () => void stopWhenDrained(), { once: true });
  if ((await elector.run(election.signal)) === 'lost') {
    logger.error({ identity: lock.identity }, 'leaderelection lost');
    process.exit(1);
  }
}
