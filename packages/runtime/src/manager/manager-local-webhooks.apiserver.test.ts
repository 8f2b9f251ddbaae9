/**
 * The webhook builder (`mgr.webhook(kind).defaulter(...).validator(...)`) and
 * a local run's webhook configurations against the embedded API server: the
 * builder registers at kubebuilder's paths and fails at a faulty call; with
 * `webhook.localConfigurations` the manager installs configurations that the
 * API server calls, replaces the stale ones a killed run left (which make
 * every write of the kind fail), and deletes its own at shutdown, leaving
 * one another run took over; without the option, or where it does not
 * belong (a certDir, a CA that did not sign the certificate), nothing is
 * touched.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fieldErrors } from '@operant/apimachinery';
import { ConfigMap, MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../builtins.js';
import { ApiError, isNotFound } from '../client/api-error.js';
import type { Kind } from '../kind.js';
import { useApiServer } from '../testdata/api-server.js';
import { useCheckedLogs } from '../testdata/log-lines.js';
import { ValidationError } from '../webhook/admission/validation-error.js';
import { WebhookBuilder, type TypedWebhook } from '../webhook/builder.js';
import { generateServingCertificate, type GeneratedCertificates } from '../webhook/certs/generate.js';
import { CertificateError } from '../webhook/certs/pair.js';
import { Manager } from './manager.js';
import type { ManagerWebhookOptions } from './options.js';

const api = useApiServer();
// Every line these managers log is checked for repeated keys.
const logs = useCheckedLogs();
const label = 'app.kubernetes.io/managed-by=operant-local';

function create(webhook?: ManagerWebhookOptions): Promise<Manager> {
  return Manager.create({ kubeconfig: { kubeconfigText: api.server.kubeconfig }, logger: logs.logger, client: { qps: Infinity }, webhook });
}

/** ConfigMaps get `defaulted: yes`; one with `forbidden` data is refused with kube's Invalid. */
function configMapWebhooks(mgr: Manager): void {
  mgr
    .webhook(ConfigMap)
    .defaulter({
      default(cm) {
        cm.data = { ...cm.data, defaulted: 'yes' };
      },
    })
    .validator({
      validateCreate(cm) {
        if (cm.data?.['forbidden']) throw new ValidationError(fieldErrors.forbidden('data.forbidden', 'not in this namespace'));
      },
    });
}

async function localConfigurations(): Promise<string[]> {
  const names = async (kind: Kind): Promise<string[]> =>
    (await api.client.list(kind, { labelSelector: label })).items.map((c) => `${kind.kind}/${c.metadata.name}`);
  return [...(await names(MutatingWebhookConfiguration)), ...(await names(ValidatingWebhookConfiguration))];
}

/** Runs a manager until `body` is done, then stops it and waits for it. */
async function running(mgr: Manager, body: () => Promise<void>): Promise<void> {
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  try {
    await Promise.race([mgr.elected(), done]);
    await body();
  } finally {
    stop.abort();
    await done;
  }
}

describe('mgr.webhook(kind): the webhook builder', () => {
  test('registers the defaulter and the validator at kubebuilder\'s paths, once per kind, and needs a webhook server', async () => {
    const certs = await generateServingCertificate();
    const mgr = await create({ port: 0, host: '127.0.0.1', certificates: certs.source });
    const builder = mgr.webhook(ConfigMap).defaulter({ default: () => {} });
    builder.validator({});
    assert.deepEqual(mgr.webhookServer.paths(), ['/mutate--v1-configmap', '/validate--v1-configmap']);
    assert.throws(() => builder.defaulter({ default: () => {} }), /a webhook is already registered at \/mutate--v1-configmap/);
    assert.throws(() => mgr.webhook(ConfigMap).validator({}), /a webhook is already registered at \/validate--v1-configmap/);
    const bare = await create();
    assert.throws(() => bare.webhook(ConfigMap), /this manager has no webhook server: pass the webhook option to Manager.create/);
  });
});

describe('what the builder tells a webhook configuration', () => {
  test('kubebuilder\'s names and verbs by default, DELETE for a validator that validates deletes, and the options over both', () => {
    const seen: TypedWebhook[] = [];
    new WebhookBuilder(ConfigMap, (w) => seen.push(w))
      .defaulter({ default: () => {} })
      .validator({ validateDelete: () => undefined });
    new WebhookBuilder(ConfigMap, (w) => seen.push(w)).validator({}, { operations: ['DELETE'], failurePolicy: 'Ignore', name: 'protect.example.com' });
    assert.deepEqual(
      seen.map(({ type, path, name, operations, failurePolicy }) => ({ type, path, name, operations, failurePolicy })),
      [
        { type: 'mutating', path: '/mutate--v1-configmap', name: 'mconfigmap-v1.kb.io', operations: ['CREATE', 'UPDATE'], failurePolicy: 'Fail' },
        { type: 'validating', path: '/validate--v1-configmap', name: 'vconfigmap-v1.kb.io', operations: ['CREATE', 'UPDATE', 'DELETE'], failurePolicy: 'Fail' },
        { type: 'validating', path: '/validate--v1-configmap', name: 'protect.example.com', operations: ['DELETE'], failurePolicy: 'Ignore' },
      ],
    );
  });
});

describe('webhook.localConfigurations: a local run installs its webhook configurations', () => {
  let certs: GeneratedCertificates;

  test('the API server calls the webhooks through them while the manager runs; at shutdown they are gone, and writes of the kind work again', async () => {
    certs = await generateServingCertificate();
    const ns = await api.createNamespace('local');
    const mgr = await create({ port: 0, host: '127.0.0.1', certificates: certs.source, localConfigurations: { caPem: certs.caPem, name: 'configmaps-local' } });
    configMapWebhooks(mgr);
    assert.deepEqual(await localConfigurations(), [], 'nothing is installed before start');
    await running(mgr, async () => {
      const { port } = await mgr.webhookServer.listening();
      const mutating = await api.client.get(MutatingWebhookConfiguration, 'configmaps-local');
      assert.deepEqual(mutating.metadata.labels, { 'app.kubernetes.io/managed-by': 'operant-local' });
      assert.deepEqual(mutating.webhooks?.map(({ name, clientConfig, rules, failurePolicy, sideEffects, admissionReviewVersions }) => ({ name, clientConfig, rules, failurePolicy, sideEffects, admissionReviewVersions })), [
        {
          name: 'mconfigmap-v1.kb.io',
          clientConfig: { url: `https://127.0.0.1:${port}/mutate--v1-configmap`, caBundle: Buffer.from(certs.caPem).toString('base64') },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' }],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ]);
      const validating = await api.client.get(ValidatingWebhookConfiguration, 'configmaps-local');
      assert.deepEqual(validating.webhooks?.map((w) => [w.name, w.clientConfig.url]), [['vconfigmap-v1.kb.io', `https://127.0.0.1:${port}/validate--v1-configmap`]]);

      const created = await api.client.create(ConfigMap, { metadata: { name: 'defaulted', namespace: ns }, data: { own: 'value' } });
      assert.deepEqual(created.data, { own: 'value', defaulted: 'yes' });
      await assert.rejects(api.client.create(ConfigMap, { metadata: { name: 'refused', namespace: ns }, data: { forbidden: 'x' } }), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.code, 422);
        assert.match(err.message, /ConfigMap "refused" is invalid: data.forbidden: Forbidden: not in this namespace/);
        return true;
      });
    });
    assert.deepEqual(await localConfigurations(), []);
    const after = await api.client.create(ConfigMap, { metadata: { name: 'after-shutdown', namespace: ns }, data: { own: 'value' } });
    assert.deepEqual(after.data, { own: 'value' }, 'no webhook is called any more, and none fails the write');
  });

  test('a configuration left by a killed run (same name, a dead port) fails every write of the kind; the next run replaces it, then removes it', async () => {
    const ns = await api.createNamespace('stale');
    await api.client.create(MutatingWebhookConfiguration, {
      metadata: { name: 'configmaps-local', labels: { 'app.kubernetes.io/managed-by': 'operant-local' } },
      webhooks: [
        {
          name: 'mconfigmap-v1.kb.io',
          clientConfig: { url: 'https://127.0.0.1:1/mutate--v1-configmap', caBundle: Buffer.from(certs.caPem).toString('base64') },
          rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    });
    await assert.rejects(api.client.create(ConfigMap, { metadata: { name: 'blocked', namespace: ns } }), /failed calling webhook "mconfigmap-v1.kb.io"/);

    const mgr = await create({ port: 0, host: '127.0.0.1', certificates: certs.source, localConfigurations: { caPem: certs.caPem, name: 'configmaps-local' } });
    configMapWebhooks(mgr);
    await running(mgr, async () => {
      const created = await api.client.create(ConfigMap, { metadata: { name: 'unblocked', namespace: ns } });
      assert.deepEqual(created.data, { defaulted: 'yes' });
    });
    assert.deepEqual(await localConfigurations(), []);
    await api.client.create(ConfigMap, { metadata: { name: 'after', namespace: ns } });
  });

  test('a configuration another run took over while this one ran is left to that run', async () => {
    const mgr = await create({ port: 0, host: '127.0.0.1', certificates: certs.source, localConfigurations: { caPem: certs.caPem, name: 'taken-over' } });
    mgr.webhook(ConfigMap).validator({});
    await running(mgr, async () => {
      // Another run of the operator replaces it (delete and create: a new uid).
      const theirs = await api.client.get(ValidatingWebhookConfiguration, 'taken-over');
      await api.client.delete(ValidatingWebhookConfiguration, 'taken-over');
      await api.client.create(ValidatingWebhookConfiguration, { metadata: { name: 'taken-over' }, webhooks: theirs.webhooks?.map((w) => ({ ...w, failurePolicy: 'Ignore' as const })) });
    });
    const left = await api.client.get(ValidatingWebhookConfiguration, 'taken-over');
    assert.equal(left.webhooks?.[0]?.failurePolicy, 'Ignore');
    await api.client.delete(ValidatingWebhookConfiguration, 'taken-over');
  });

  test('a manager without the option never touches configurations (in a cluster, or under operant dev)', async () => {
    const mgr = await create({ port: 0, host: '127.0.0.1', certificates: certs.source });
    configMapWebhooks(mgr);
    await running(mgr, async () => {
      assert.deepEqual(await localConfigurations(), []);
      assert.equal((await api.client.list(MutatingWebhookConfiguration)).items.length, 0);
    });
  });

  test('refused where it does not belong: with a certDir, without certificates, or with a CA that did not sign the serving certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-webhooks-'));
    try {
      await assert.rejects(create({ certDir: dir, localConfigurations: { caPem: certs.caPem } }), {
        name: 'TypeError',
        message: /^webhook.localConfigurations is for a local run with generated certificates/,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await assert.rejects(create({ localConfigurations: { caPem: certs.caPem } }), { name: 'TypeError', message: /needs webhook.certificates/ });

    const other = await generateServingCertificate();
    const mgr = await create({ port: 0, host: '127.0.0.1', certificates: certs.source, localConfigurations: { caPem: other.caPem } });
    configMapWebhooks(mgr);
    await assert.rejects(mgr.start(new AbortController().signal), (err: unknown) => {
      assert.ok(err instanceof CertificateError);
      assert.match(err.message, /caPem did not sign the webhook server's certificate .*: the API server would refuse to call it/);
      return true;
    });
    assert.deepEqual(await localConfigurations(), []);
    await api.client.get(MutatingWebhookConfiguration, 'operant-local-webhooks').then(
      () => assert.fail('nothing may be installed'),
      (err: unknown) => assert.ok(isNotFound(err)),
    );
  });
});
