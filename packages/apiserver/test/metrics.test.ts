/**
 * `/metrics` on the API server (issue 17, bug 6): kube-apiserver 1.32's core
 * families with their names and labels, served in Prometheus' text format to
 * users allowed to GET the path (cluster-admin, the system:monitoring group),
 * and refused to others with kube's 403.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generateCertificateAuthority, issueServingCertificate } from '../src/tls/certificates.js';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;
let webhook: Server;
let webhookCa = '';

before(async () => {
  api = await TestApi.start();
  const ca = await generateCertificateAuthority('metrics-test-ca');
  webhookCa = ca.certPem;
  const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  // Allows everything but ConfigMaps named `denied`.
  webhook = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Json;
      const allowed = review.request.name !== 'denied';
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed } });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  webhook.listen(0, '127.0.0.1');
  await once(webhook, 'listening');
});
after(async () => {
  await api?.stop();
  webhook?.close();
});

/** The value of the sample `name{labels}` in an exposition text, or undefined; the labels must match exactly. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) got[k] = v;
    if (JSON.stringify(Object.entries(got).sort()) === JSON.stringify(Object.entries(labels).sort())) return Number(m[3]);
  }
  return undefined;
}

async function scrape(headers: Record<string, string> = {}): Promise<string> {
  const r = await api.request('GET', '/metrics', undefined, { Accept: 'text/plain', ...headers });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return r.text;
}

const cmLabels = { dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver' };

describe('/metrics', () => {
  it('counts requests by verb, scope, dry run and code, and times them', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    await api.ok('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } }, 201);
    await api.ok('POST', `${cms}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'two' } }, 201);
    await api.ok('GET', `${cms}/one`);
    await api.ok('GET', cms);
    await api.ok('GET', '/api/v1/configmaps');
    assert.equal((await api.request('GET', `${cms}/missing`)).status, 404);

    const text = await scrape();
    assert.equal(sample(text, 'apiserver_request_total', { ...cmLabels, verb: 'POST', scope: 'resource', code: '201' }), 1);
    assert.equal(sample(text, 'apiserver_request_total', { ...cmLabels, verb: 'POST', scope: 'resource', code: '201', dry_run: 'All' }), 1);
    assert.equal(sample(text, 'apiserver_request_total', { ...cmLabels, verb: 'GET', scope: 'resource', code: '200' }), 1);
    assert.equal(sample(text, 'apiserver_request_total', { ...cmLabels, verb: 'GET', scope: 'resource', code: '404' }), 1);
    assert.equal(sample(text, 'apiserver_request_total', { ...cmLabels, verb: 'LIST', scope: 'namespace', code: '200' }), 1);
    assert.equal(sample(text, 'apiserver_request_total', { ...cmLabels, verb: 'LIST', scope: 'cluster', code: '200' }), 1);
    assert.equal(sample(text, 'apiserver_request_duration_seconds_count', { ...cmLabels, verb: 'POST', scope: 'resource' }), 1);
    assert.equal(sample(text, 'apiserver_request_duration_seconds_bucket', { ...cmLabels, verb: 'POST', scope: 'resource', le: '60' }), 1);
    assert.match(text, /^# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code\.$/m);
    assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
  });

  it('counts the objects stored per resource, and the requests in flight (the scrape itself among them)', async () => {
    const text = await scrape();
    assert.equal(sample(text, 'apiserver_storage_objects', { resource: 'configmaps' }), 1);
    assert.equal(sample(text, 'apiserver_storage_objects', { resource: 'deployments.apps' }), 0);
    assert.ok((sample(text, 'apiserver_storage_objects', { resource: 'clusterroles.rbac.authorization.k8s.io' }) ?? 0) > 10);
    assert.equal(sample(text, 'apiserver_storage_objects', { resource: 'events.events.k8s.io' }), undefined, 'events.k8s.io shares the core events storage');
    assert.ok((sample(text, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }) ?? 0) >= 1);
    assert.notEqual(sample(text, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }), undefined);
    // Scrapes are counted as a non-resource path.
    const next = await scrape();
    assert.ok((sample(next, 'apiserver_request_total', { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/metrics', scope: '', component: 'apiserver', code: '200' }) ?? 0) >= 1);
  });

  it('gauges watches while they last, then counts them as WATCH', async () => {
    const watchLabels = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    const watch = await api.watch('/api/v1/namespaces/default/configmaps?watch=true');
    await watch.next();
    assert.equal(sample(await scrape(), 'apiserver_longrunning_requests', watchLabels), 1);
    watch.close();
    await watch.ended;
    let text = await scrape();
    // The server sees the watcher go when its socket closes; wait for that rather than for time.
    while (sample(text, 'apiserver_longrunning_requests', watchLabels) !== 0) {
      await new Promise((r) => setImmediate(r));
      text = await scrape();
    }
    assert.equal(sample(text, 'apiserver_request_total', { ...watchLabels, dry_run: '', code: '200' }), 1);
  });

  it('times admission webhook calls by name, type, operation and rejection', async () => {
    const port = (webhook.address() as AddressInfo).port;
    const hook = (name: string): Json => ({
      name,
      clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: Buffer.from(webhookCa).toString('base64') },
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'hooked' } },
    });
    await api.createNamespace('hooked');
    await api.ok('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' }, webhooks: [hook('mutate.example.com')] }, 201);
    await api.ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'v' }, webhooks: [hook('validate.example.com')] }, 201);
    const cms = '/api/v1/namespaces/hooked/configmaps';
    await api.ok('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine' } }, 201);
    assert.equal((await api.request('POST', cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'denied' } })).status, 400);

    const text = await scrape();
    const count = (name: string, type: string, rejected: string): number | undefined =>
      sample(text, 'apiserver_admission_webhook_admission_duration_seconds_count', { name, type, operation: 'CREATE', rejected });
    assert.equal(count('mutate.example.com', 'admit', 'false'), 1, 'the mutating webhook allowed without patching, then allowed the second');
    assert.equal(count('mutate.example.com', 'admit', 'true'), 1);
    assert.equal(count('validate.example.com', 'validating', 'false'), 1);
  });

  it('is refused to users who may not GET it, with kube\'s 403, and served to system:monitoring', async () => {
    const refused = await api.request('GET', '/metrics', undefined, { 'Impersonate-User': 'jane' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'forbidden: User "jane" cannot get path "/metrics"');
    const text = await scrape({ 'Impersonate-User': 'prometheus', 'Impersonate-Group': 'system:monitoring' });
    assert.match(text, /^# TYPE apiserver_storage_objects gauge$/m);
  });
});
