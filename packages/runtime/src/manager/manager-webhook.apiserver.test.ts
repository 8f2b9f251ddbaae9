/**
 * The manager's webhook server against the embedded API server: started with
 * the manager (before the caches), reported by /readyz, answering a real
 * MutatingWebhookConfiguration, stopped with the manager; and certificates
 * read from a directory when none are given.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigMap, MutatingWebhookConfiguration } from '../builtins.js';
import { silentLogger } from '../cache/logger.js';
import { useCheckedLogs } from '../testdata/log-lines.js';
import { generateServingCertificate } from '../webhook/certs/generate.js';
import { defaulter } from '../webhook/admission/defaulter.js';
import { mutatePath } from '../webhook/admission/paths.js';
import { useApiServer } from '../testdata/api-server.js';
import { Manager } from './manager.js';

const api = useApiServer();
// Every line the managers with a webhook server log, at every level, is checked for repeated keys.
const logs = useCheckedLogs();
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'manager-webhook-'));
});

after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('Manager with webhooks', () => {
  test('serves a defaulting webhook that the API server calls, with the manager\'s client injected, and reports it in /readyz', async () => {
    const certs = await generateServingCertificate();
    const mgr = await Manager.create({
      kubeconfig: { kubeconfigText: api.server.kubeconfig },
      logger: logs.logger,
      client: { qps: Infinity },
      healthPort: 0,
      healthHost: '127.0.0.1',
      webhook: { port: 0, host: '127.0.0.1', certificates: certs.source },
    });
    const path = mutatePath(ConfigMap);
    assert.equal(path, '/mutate--v1-configmap');
    mgr.webhookServer.register(
      path,
      defaulter(ConfigMap, {
        // The manager hands its client (reading from its cache) to every handler.
        async default(cm, ctx) {
          const settings = await ctx.client.get(ConfigMap, 'webhook-settings', { namespace: 'default' });
          cm.data = { ...cm.data, defaulted: settings.data?.value ?? 'missing' };
        },
      }),
    );
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const { port } = await mgr.webhookServer.listening();
      await mgr.apiReader.create(ConfigMap, { metadata: { name: 'webhook-settings', namespace: 'default' }, data: { value: 'from-settings' } });
      await mgr.apiReader.create(MutatingWebhookConfiguration, {
        metadata: { name: 'configmap-defaults' },
        webhooks: [
          {
            name: 'configmaps.defaults.operant.dev',
            clientConfig: { url: `https://127.0.0.1:${port}${path}`, caBundle: Buffer.from(certs.caPem).toString('base64') },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
            objectSelector: { matchLabels: { defaults: 'on' } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      });
      const created = await mgr.apiReader.create(ConfigMap, {
        metadata: { name: 'defaulted', namespace: 'default', labels: { defaults: 'on' } },
        data: { own: 'value' },
      });
      assert.deepEqual(created.data, { own: 'value', defaulted: 'from-settings' });
      const health = mgr.healthAddress;
      assert.ok(health);
      const readyz = await fetch(`http://127.0.0.1:${health.port}/readyz?verbose`);
      const text = await readyz.text();
      assert.equal(readyz.status, 200, text);
      assert.match(text, /\[\+\]webhook ok/);
    } finally {
      stop.abort();
      await running;
    }
    // Stopped with the manager: the port no longer answers.
    await assert.rejects(mgr.webhookServer.startedChecker()(), /has not been started yet/);
  });

  test('reads the pair from certDir when no certificates are given, and names the files when they are missing', async () => {
    const certs = await generateServingCertificate();
    writeFileSync(join(dir, 'tls.crt'), certs.cert);
    writeFileSync(join(dir, 'tls.key'), certs.key);
    const mgr = await Manager.create({
      kubeconfig: { kubeconfigText: api.server.kubeconfig },
      logger: logs.logger,
      webhook: { port: 0, host: '127.0.0.1', certDir: dir },
    });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    const { port } = await mgr.webhookServer.listening();
    assert.ok(port > 0);
    stop.abort();
    await running;
    await assert.rejects(
      Manager.create({ kubeconfig: { kubeconfigText: api.server.kubeconfig }, logger: silentLogger, webhook: { certDir: join(dir, 'absent') } }),
      (err: Error) => err.message.includes(join(dir, 'absent')),
    );
  });

  test('a manager without webhook options has no webhook server, and says how to get one', async () => {
    const mgr = await Manager.create({ kubeconfig: { kubeconfigText: api.server.kubeconfig }, logger: silentLogger });
    assert.throws(() => mgr.webhookServer, /this manager has no webhook server: pass the webhook option to Manager.create/);
  });
});
