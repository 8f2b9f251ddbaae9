/**
 * The manager of the sidecarset operator (kubebuilder's cmd/main.go): it runs the
 * controllers and webhooks registered below. `operant create api` and
 * `operant create webhook` add theirs at the scaffold markers.
 */
import { parseArgs } from 'node:util';
import { Manager, createLogger, ensureLocalCertificates, handleSignals, type ManagerOptions } from '@operant/runtime';
import { setupSidecarSetController } from './controllers/sidecarset-controller.js';
import { setupSidecarSetDefaultingWebhook } from './webhooks/v1alpha1/sidecarset-webhook.js';
import { setupPodDefaultingWebhook } from './webhooks/v1/pod-webhook.js';
import { setupSidecarSetValidatingWebhook } from './webhooks/v1alpha1/sidecarset-webhook.js';
// +kubebuilder:scaffold:imports

const { values } = parseArgs({
  options: {
    'metrics-bind-address': { type: 'string', default: '0' },
    'health-probe-bind-address': { type: 'string', default: ':8081' },
    'leader-elect': { type: 'boolean', default: false },
    'metrics-cert-path': { type: 'string' },
    'webhook-cert-path': { type: 'string' },
    'webhook-port': { type: 'string', default: '9443' },
    kubeconfig: { type: 'string' },
  },
});

/** `:8081` or `127.0.0.1:8081`; `0` turns the server off, as in kubebuilder. */
function bindAddress(flag: string, text: string): { host?: string; port: number } | undefined {
  if (text === '0') return undefined;
  const m = /^(.*):(\d+)$/.exec(text);
  if (!m) throw new Error(`--${flag} ${JSON.stringify(text)}: expected [host]:port, or 0 to disable`);
  return { host: m[1] || undefined, port: Number(m[2]) };
}

const controllers: Array<(mgr: Manager) => void> = [
  setupSidecarSetController,
  // +kubebuilder:scaffold:builder
];
const webhooks: Array<(mgr: Manager) => void> = [
  setupSidecarSetDefaultingWebhook,
  setupPodDefaultingWebhook,
  setupSidecarSetValidatingWebhook,
  // +kubebuilder:scaffold:webhook
];

const logger = createLogger();
const metrics = bindAddress('metrics-bind-address', values['metrics-bind-address']!);
const health = bindAddress('health-probe-bind-address', values['health-probe-bind-address']!);

/** Webhook certificates: a mounted directory in a cluster, generated ones for a local run. */
async function webhookOptions(): Promise<ManagerOptions['webhook']> {
  if (webhooks.length === 0) return undefined;
  const port = Number(values['webhook-port']);
  if (values['webhook-cert-path']) return { port, certDir: values['webhook-cert-path'] };
  if (process.env.KUBERNETES_SERVICE_HOST) return { port };
  return { port, certificates: (await ensureLocalCertificates('.operant/webhook-certs')).source };
}
if (values['metrics-cert-path']) logger.warn({}, '--metrics-cert-path: metrics are served over plain HTTP for now; the certificate is not used');

const mgr = await Manager.create({
  kubeconfig: values.kubeconfig ? { path: values.kubeconfig } : undefined,
  logger,
  metricsPort: metrics?.port,
  metricsHost: metrics?.host,
  healthPort: health?.port,
  healthHost: health?.host,
  leaderElection: values['leader-elect'] ? { id: '8d75265e.kruise.io' } : undefined,
  webhook: await webhookOptions(),
});
for (const setup of controllers) setup(mgr);
for (const setup of webhooks) setup(mgr);

logger.info({}, 'starting manager');
await mgr.start(handleSignals());
