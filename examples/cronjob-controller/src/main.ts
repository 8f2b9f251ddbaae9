/**
 * The CronJob operator's manager (the tutorial's cmd/main.go): the CronJob
 * controller and webhooks on one manager, against the cluster KUBECONFIG (or
 * --kubeconfig, or ~/.kube/config, or the in-cluster service account) names,
 * until SIGTERM or SIGINT.
 *
 *   npm start -w examples/cronjob-controller -- --kubeconfig .operant/kubeconfig
 *
 * Run on a machine (no --webhook-cert-path, not in a pod), it generates
 * webhook certificates into .operant/webhook-certs and installs its own webhook
 * configurations, pointed at itself, for as long as it runs.
 */
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { createLogger, ensureLocalCertificates, handleSignals, Manager, type ManagerWebhookOptions } from '@operant/runtime';
import { setupCronJobController } from './controllers/cronjob-controller.js';
import { setupCronJobWebhookWithManager } from './webhooks/v1/cronjob-webhook.js';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'leader-elect': { type: 'boolean', default: false },
    'health-port': { type: 'string', default: '8081' },
    'webhook-port': { type: 'string', default: '9443' },
    'webhook-cert-path': { type: 'string' },
    // Where the API server reaches this process in a local run: host.docker.internal for a kind cluster.
    'webhook-host': { type: 'string', default: '127.0.0.1' },
  },
});

/** Deployed: the Secret cert-manager fills; on a machine: generated certificates and configurations for this run. */
async function webhookOptions(): Promise<ManagerWebhookOptions> {
  const port = Number(values['webhook-port']);
  if (values['webhook-cert-path']) return { port, certDir: values['webhook-cert-path'] };
  if (process.env.KUBERNETES_SERVICE_HOST) return { port };
  const host = values['webhook-host']!;
  const local = await ensureLocalCertificates('.operant/webhook-certs', isIP(host) ? {} : { dnsNames: ['localhost', host] });
  return { port, certificates: local.source, localConfigurations: { caPem: local.caPem, name: 'cronjob-controller-local', host } };
}

const logger = createLogger({ level: process.env.LOG_LEVEL });
const mgr = await Manager.create({
  kubeconfig: values.kubeconfig ? { path: values.kubeconfig } : undefined,
  logger,
  healthPort: Number(values['health-port']),
  leaderElection: values['leader-elect'] ? { id: '80807133.tutorial.kubebuilder.io' } : undefined,
  webhook: await webhookOptions(),
});
setupCronJobController(mgr);
setupCronJobWebhookWithManager(mgr);

logger.info({}, 'starting manager');
await mgr.start(handleSignals());
