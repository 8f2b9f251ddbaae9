/**
 * What a whole operator logs (issue 19): a manager with a webhook server,
 * leader election, informers and a controller whose reconciles succeed, fail
 * and are answered by a webhook, run at debug level through the runtime's own
 * pino logger; no line may repeat a key, since pino writes a child's
 * bindings after its parent's and many log pipelines reject such lines.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMap, MutatingWebhookConfiguration } from '../builtins.js';
import { generateServingCertificate } from '../webhook/certs/generate.js';
import { defaulter } from '../webhook/admission/defaulter.js';
import { mutatePath } from '../webhook/admission/paths.js';
import { useApiServer } from '../testdata/api-server.js';
import { jsonLogger } from '../testdata/log-lines.js';
import { Manager } from './manager.js';

describe('the lines a manager logs', () => {
  const api = useApiServer();

  test('repeat no key, from the manager, leader election, informers, controllers and the webhook server', async () => {
    const ns = await api.createNamespace('logs');
    const { logger, lines } = jsonLogger();
    const certs = await generateServingCertificate();
    const mgr = await Manager.create({
      kubeconfig: { kubeconfigText: api.server.kubeconfig },
      logger,
      client: { qps: Infinity },
      healthPort: 0,
      healthHost: '127.0.0.1',
      leaderElection: { id: 'manager-logs', namespace: ns, leaseDurationMs: 1000, renewDeadlineMs: 700, retryPeriodMs: 100 },
      webhook: { port: 0, host: '127.0.0.1', certificates: certs.source },
    });
    const path = mutatePath(ConfigMap);
    mgr.webhookServer.register(
      path,
      defaulter(ConfigMap, {
        default(cm, ctx) {
          ctx.log.info({ configMap: cm.metadata.name }, 'defaulting');
          cm.data = { ...cm.data, defaulted: 'yes' };
        },
      }),
    );
    let failed = false;
    mgr
      .controller('settings')
      .for(ConfigMap, { informer: { namespace: ns } })
      .reconcile((req, { log }) => {
        log.info({ step: 'read' }, 'reconciling settings');
        if (!failed) {
          failed = true;
          throw new Error('first attempt fails');
        }
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const { port } = await mgr.webhookServer.listening();
      await mgr.elected();
      await mgr.apiReader.create(MutatingWebhookConfiguration, {
        metadata: { name: 'manager-logs' },
        webhooks: [
          {
            name: 'configmaps.logs.operant.dev',
            clientConfig: { url: `https://127.0.0.1:${port}${path}`, caBundle: Buffer.from(certs.caPem).toString('base64') },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
            objectSelector: { matchLabels: { logs: 'on' } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      });
      await mgr.apiReader.create(ConfigMap, { metadata: { name: 'settings', namespace: ns, labels: { logs: 'on' } } });
      await lines.next((l) => l.includes('"msg":"Reconciler error"'));
      await lines.next((l) => l.includes('"msg":"Reconcile successful"'));
      await lines.next((l) => l.includes('"msg":"defaulting"'));
    } finally {
      stop.abort();
      await running;
      await mgr.apiReader.delete(MutatingWebhookConfiguration, 'manager-logs');
    }
    const components = new Set(lines.text.map((l) => (JSON.parse(l) as { component?: string }).component));
    for (const component of ['manager', 'leader-election', 'webhook-server']) assert.ok(components.has(component), `a line from ${component}`);
    assert.ok(lines.text.some((l) => l.includes('"informer":"configmaps@')), 'a line from an informer');
    assert.deepEqual(lines.withRepeatedKeys(), []);
  });
});
