/**
 * Runs the Foo controller against the cluster that KUBECONFIG (or
 * --kubeconfig, or ~/.kube/config, or the in-cluster service account) names,
 * until SIGTERM or SIGINT.
 *
 *   npm start -w examples/sample-controller -- --kubeconfig .operant/kubeconfig
 *
 * `--server-side-apply` makes it write with server-side apply (see FooControllerDeps.writes).
 */
import { parseArgs } from 'node:util';
import { Client, Deployment, EventRecorder, createLogger, handleSignals, loadKubeConfig } from '@operant/runtime';
import { SharedInformerFactory } from '@operant/runtime/cache';
import { FooController } from './controller.js';
import { FooKind } from './foo.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    workers: { type: 'string', default: '2' },
    'server-side-apply': { type: 'boolean', default: false },
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
  await controller.run(workers, signal);
} finally {
  await informers.stopAll();
  await recorder.close();
  client.close();
  logger.info({}, 'sample-controller stopped');
}
