/**
 * A CRD with two versions and a conversion webhook: a real HTTPS webhook server
 * in this test, verified against the CRD's caBundle, converting between
 * v1 (spec.host + spec.port, the storage version) and v2 (spec.address).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { generateCertificateAuthority, issueServingCertificate } from '../src/tls/certificates.js';
import { TestApi, type Json } from './support/api-client.js';

type Obj = Record<string, any>;

function convert(obj: Obj, desired: string): Obj {
  const spec = { ...obj.spec };
  if (desired.endsWith('/v2')) {
    spec.address = `${spec.host}:${spec.port}`;
    delete spec.host;
    delete spec.port;
  } else {
    const [host, port] = String(spec.address).split(':');
    spec.host = host;
    spec.port = Number(port);
    delete spec.address;
  }
  return { ...obj, apiVersion: desired, spec };
}

describe('CRD conversion webhook', () => {
  let api: TestApi;
  let webhook: Server;
  let caPem: string;
  const reviews: Obj[] = [];
  const base = '/apis/conv.example.com';

  function crd(url: string, caBundle: string): Obj {
    const version = (name: string, storage: boolean, spec: Obj) => ({
      name,
      served: true,
      storage,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
    });
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'backends.conv.example.com' },
      spec: {
        group: 'conv.example.com',
        scope: 'Namespaced',
        names: { plural: 'backends', singular: 'backend', kind: 'Backend' },
        versions: [
          version('v1', true, { host: { type: 'string' }, port: { type: 'integer' } }),
          version('v2', false, { address: { type: 'string' } }),
        ],
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle } } },
      },
    };
  }

  before(async () => {
    api = await TestApi.start();
    const ca = await generateCertificateAuthority('conversion-test-ca');
    caPem = ca.certPem;
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    webhook = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as Obj;
        reviews.push(review);
        const { uid, desiredAPIVersion, objects } = review.request;
        const body = {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: { uid, result: { status: 'Success' }, convertedObjects: objects.map((o: Obj) => convert(o, desiredAPIVersion)) },
        };
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    webhook.listen(0, '127.0.0.1');
    await once(webhook, 'listening');
    const url = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/convert`;
    await api.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(url, Buffer.from(caPem).toString('base64')), 201);
  });

  after(async () => {
    webhook.close();
    await api.stop();
  });

  it('stores in v1 and serves both versions through the webhook', async () => {
    const created: Json = await api.ok('POST', `${base}/v2/namespaces/default/backends`, {
      apiVersion: 'conv.example.com/v2',
      kind: 'Backend',
      metadata: { name: 'db' },
      spec: { address: 'db.local:5432' },
    }, 201);
    assert.equal(created.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(created.spec, { address: 'db.local:5432' });
    const asV1: Json = await api.ok('GET', `${base}/v1/namespaces/default/backends/db`);
    assert.equal(asV1.apiVersion, 'conv.example.com/v1');
    assert.deepEqual(asV1.spec, { host: 'db.local', port: 5432 });
    assert.equal(asV1.metadata.uid, created.metadata.uid);
    const listV2: Json = await api.ok('GET', `${base}/v2/namespaces/default/backends`);
    assert.deepEqual(listV2.items.map((i: Obj) => i.spec.address), ['db.local:5432']);
    const review = reviews.find((r) => r.request.desiredAPIVersion === 'conv.example.com/v1');
    assert.ok(review, 'the webhook was asked to convert to the storage version');
    const crdNow: Json = await api.ok('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/backends.conv.example.com');
    assert.deepEqual(crdNow.status.storedVersions, ['v1']);
  });

  it('a change made in v1 reaches a v2 watch converted, in order', async () => {
    const start: Json = await api.ok('GET', `${base}/v2/namespaces/default/backends`);
    const watch = await api.watch(`${base}/v2/namespaces/default/backends?watch=true&resourceVersion=${start.metadata.resourceVersion}`);
    await api.ok('POST', `${base}/v1/namespaces/default/backends`, { apiVersion: 'conv.example.com/v1', kind: 'Backend', metadata: { name: 'cache' }, spec: { host: 'redis', port: 6379 } }, 201);
    await api.ok('PATCH', `${base}/v1/namespaces/default/backends/cache`, { spec: { port: 6380 } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    const events = await watch.take(2);
    watch.close();
    assert.deepEqual(events.map((e) => [e.type, e.object.apiVersion, e.object.spec.address]), [
      ['ADDED', 'conv.example.com/v2', 'redis:6379'],
      ['MODIFIED', 'conv.example.com/v2', 'redis:6380'],
    ]);
  });

  it('a webhook that cannot be verified fails the request with kube\'s words, and nothing is stored', async () => {
    const other = await generateCertificateAuthority('someone-else');
    const current: Json = await api.ok('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/backends.conv.example.com');
    current.spec.conversion.webhook.clientConfig.caBundle = Buffer.from(other.certPem).toString('base64');
    await api.ok('PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/backends.conv.example.com', current, 200);
    const r = await api.request('POST', `${base}/v2/namespaces/default/backends`, {
      apiVersion: 'conv.example.com/v2',
      kind: 'Backend',
      metadata: { name: 'unverified' },
      spec: { address: 'x:1' },
    });
    assert.equal(r.status, 500);
    assert.equal(r.body.reason, 'InternalError');
    assert.match(r.body.message, /conversion webhook for conv\.example\.com\/v2, Kind=Backend failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert": tls: failed to verify certificate: x509: certificate signed by unknown authority/);
    const missing = await api.request('GET', `${base}/v1/namespaces/default/backends/unverified`);
    assert.equal(missing.status, 404);
  });
});
