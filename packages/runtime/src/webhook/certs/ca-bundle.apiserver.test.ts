/**
 * caBundle injection against the embedded API server: webhook configurations
 * and a CRD with webhook conversion get the bundle, a CRD without it is
 * skipped, a second run writes nothing, a write that conflicts is retried on a
 * fresh read (keeping the other writer's change), and a missing object is NotFound.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isNotFound } from '../../client/index.js';
import { useApiServer } from '../../testdata/api-server.js';
import { injectCABundle, localWebhookClientConfig, type CABundleClient } from './ca-bundle.js';
import { generateServingCertificate } from './generate.js';
import type * as apiextensionsv1 from 'kubernetes-types/apiextensions/v1.js';
import {
  CustomResourceDefinition,
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  type CustomResourceDefinitionObject as CrdObject,
  type Typed,
  type WebhookRule,
} from '../../builtins.js';

type CustomResourceDefinitionObject = Typed<CrdObject>;
type Conversion = apiextensionsv1.CustomResourceConversion | undefined;

const api = useApiServer();

/** A webhook that matches nothing anyone creates here, so the server never calls it. */
function admissionWebhook(name: string, path: string) {
  return {
    name,
    clientConfig: { url: localWebhookClientConfig({ port: 9443, path }).url! },
    rules: [{ operations: ['CREATE'], apiGroups: ['nothing.example.com'], apiVersions: ['v1'], resources: ['things'] } satisfies WebhookRule],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Ignore',
  };
}

function crd(plural: string, conversion: Conversion): CustomResourceDefinitionObject {
  return {
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { plural, singular: plural.slice(0, -1), kind: plural[0].toUpperCase() + plural.slice(1, -1), listKind: 'ThingList' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      ],
      ...(conversion ? { conversion } : {}),
    },
  };
}

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

describe('injectCABundle', () => {
  test('writes the bundle everywhere it belongs, skips CRDs without webhook conversion, and writes nothing the second time', async () => {
    const certs = await generateServingCertificate();
    await api.client.create(MutatingWebhookConfiguration, { metadata: { name: 'm1' }, webhooks: [admissionWebhook('a.example.com', '/mutate-a'), admissionWebhook('b.example.com', '/mutate-b')] });
    await api.client.create(ValidatingWebhookConfiguration, { metadata: { name: 'v1' }, webhooks: [admissionWebhook('c.example.com', '/validate')] });
    await api.client.create(
      CustomResourceDefinition,
      crd('gadgets', { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: localWebhookClientConfig({ port: 9443, path: '/convert' }) } }),
    );
    await api.client.create(CustomResourceDefinition, crd('gizmos', undefined));
    const targets = { mutating: ['m1'], validating: ['v1'], crds: ['gadgets.example.com', 'gizmos.example.com'] };

    const outcomes = await injectCABundle(api.client, certs.caPem, targets);
    assert.deepEqual(outcomes, [
      { kind: 'MutatingWebhookConfiguration', name: 'm1', result: 'updated' },
      { kind: 'ValidatingWebhookConfiguration', name: 'v1', result: 'updated' },
      { kind: 'CustomResourceDefinition', name: 'gadgets.example.com', result: 'updated' },
      { kind: 'CustomResourceDefinition', name: 'gizmos.example.com', result: 'skipped' },
    ]);

    const m1 = await api.client.get(MutatingWebhookConfiguration, 'm1');
    assert.deepEqual(
      m1.webhooks?.map((w) => w.clientConfig),
      [
        { url: 'https://127.0.0.1:9443/mutate-a', caBundle: b64(certs.caPem) },
        { url: 'https://127.0.0.1:9443/mutate-b', caBundle: b64(certs.caPem) },
      ],
    );
    const v1 = await api.client.get(ValidatingWebhookConfiguration, 'v1');
    assert.equal(v1.webhooks?.[0].clientConfig.caBundle, b64(certs.caPem));
    const gadgets = await api.client.get(CustomResourceDefinition, 'gadgets.example.com');
    assert.deepEqual(gadgets.spec.conversion?.webhook?.clientConfig, { url: 'https://127.0.0.1:9443/convert', caBundle: b64(certs.caPem) });
    const gizmos = await api.client.get(CustomResourceDefinition, 'gizmos.example.com');
    assert.equal(gizmos.spec.conversion?.webhook, undefined);

    const versions = [m1, v1, gadgets, gizmos].map((o) => o.metadata.resourceVersion);
    const again = await injectCABundle(api.client, certs.caPem, targets);
    assert.deepEqual(
      again.map((o) => o.result),
      ['unchanged', 'unchanged', 'unchanged', 'skipped'],
    );
    const reread = await Promise.all([
      api.client.get(MutatingWebhookConfiguration, 'm1'),
      api.client.get(ValidatingWebhookConfiguration, 'v1'),
      api.client.get(CustomResourceDefinition, 'gadgets.example.com'),
      api.client.get(CustomResourceDefinition, 'gizmos.example.com'),
    ]);
    assert.deepEqual(
      reread.map((o) => o.metadata.resourceVersion),
      versions,
      'no object was written the second time',
    );

    // A new CA replaces the old bundle.
    const rotated = await generateServingCertificate();
    assert.deepEqual(
      (await injectCABundle(api.client, rotated.caPem, { mutating: ['m1'] })).map((o) => o.result),
      ['updated'],
    );
    assert.ok((await api.client.get(MutatingWebhookConfiguration, 'm1')).webhooks?.every((w) => w.clientConfig.caBundle === b64(rotated.caPem)));
  });

  test('a conflicting write is retried on a fresh read that keeps the other writer’s change', async () => {
    const certs = await generateServingCertificate();
    await api.client.create(ValidatingWebhookConfiguration, { metadata: { name: 'contended' }, webhooks: [admissionWebhook('d.example.com', '/validate')] });
    let interfered = 0;
    // The real client, except that before its first update someone else writes the object: a genuine 409 from the server.
    const racing: CABundleClient = {
      get: (kind, name, opts) => api.client.get(kind, name, opts),
      update: async (kind, obj, opts) => {
        if (interfered++ === 0) {
          await api.client.patch(ValidatingWebhookConfiguration, 'contended', { metadata: { labels: { touched: 'yes' } } });
        }
        return api.client.update(kind, obj, opts);
      },
    };
    const outcomes = await injectCABundle(racing, certs.caPem, { validating: ['contended'] });
    assert.deepEqual(outcomes, [{ kind: 'ValidatingWebhookConfiguration', name: 'contended', result: 'updated' }]);
    assert.equal(interfered, 2, 'the first write conflicted and a second one was made');
    const final = await api.client.get(ValidatingWebhookConfiguration, 'contended');
    assert.equal(final.metadata.labels?.touched, 'yes');
    assert.equal(final.webhooks?.[0].clientConfig.caBundle, b64(certs.caPem));

    // When every attempt conflicts, the conflict surfaces after `retries` attempts.
    const rotated = await generateServingCertificate();
    let attempts = 0;
    const alwaysRacing: CABundleClient = {
      get: (kind, name, opts) => api.client.get(kind, name, opts),
      update: async (kind, obj, opts) => {
        attempts++;
        await api.client.patch(ValidatingWebhookConfiguration, 'contended', { metadata: { labels: { touched: String(attempts) } } });
        return api.client.update(kind, obj, opts);
      },
    };
    await assert.rejects(injectCABundle(alwaysRacing, rotated.caPem, { validating: ['contended'] }, { retries: 3 }), { name: 'ApiError', code: 409 });
    assert.equal(attempts, 3);
  });

  test('a missing object is NotFound; a bundle that is not PEM is refused before any request', async () => {
    const certs = await generateServingCertificate();
    await assert.rejects(injectCABundle(api.client, certs.caPem, { mutating: ['does-not-exist'] }), (e: unknown) => isNotFound(e));
    await assert.rejects(injectCABundle(api.client, 'not a pem', { mutating: ['does-not-exist'] }), { name: 'CertificateError', message: 'the CA bundle does not contain a PEM certificate' });
  });

  test('localWebhookClientConfig points at this machine', () => {
    assert.deepEqual(localWebhookClientConfig({ port: 9443, path: 'convert' }), { url: 'https://127.0.0.1:9443/convert' });
    assert.deepEqual(localWebhookClientConfig({ port: 8443, path: '/validate', host: '::1', caPem: 'PEM' }), { url: 'https://[::1]:8443/validate', caBundle: 'UEVN' });
  });
});
