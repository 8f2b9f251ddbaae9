/**
 * Admission webhooks through the running server: real HTTPS webhook servers
 * in this test, registered with real webhook configurations, and the real
 * kubectl printing what users see.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificateAuthority, issueServingCertificate } from '../src/tls/certificates.js';
import { TestApi, type Json } from './support/api-client.js';

type Obj = Record<string, any>;
const kubectlPath = '/usr/bin/kubectl';

function kubectl(kubeconfig: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(kubectlPath, ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, KUBECACHEDIR: join(kubeconfig, '..', 'cache') } }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

describe('admission webhooks through the server', () => {
  let api: TestApi;
  let webhook: Server;
  let dir: string;
  let kubeconfig: string;
  const reviews: Obj[] = [];
  let webhookBase = '';
  let webhookCa = '';

  before(async () => {
    api = await TestApi.start();
    dir = mkdtempSync(join(tmpdir(), 'operant-admission-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, api.server.kubeconfig);
    const ca = await generateCertificateAuthority('admission-test-ca');
    const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    webhook = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as Obj;
        reviews.push(review);
        const request = review.request;
        const response: Obj = { uid: request.uid, allowed: true };
        if (req.url!.startsWith('/hang')) return; // never answers
        if (req.url!.startsWith('/widget')) {
          response.patchType = 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/spec/size', value: 'large' }])).toString('base64');
        } else if (req.url!.startsWith('/widen-role')) {
          response.patchType = 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['secrets'], verbs: ['get'] } }])).toString('base64');
        } else if (req.url!.startsWith('/scale')) {
          if (request.object.spec.replicas > 5) {
            response.allowed = false;
            response.status = { code: 422, message: 'at most 5 replicas' };
          }
        } else if (req.url!.startsWith('/bind')) {
          if (request.object.target?.name === 'tainted-node') {
            response.allowed = false;
            response.status = { code: 403, message: 'no pods on tainted-node' };
          }
        } else if (req.url!.startsWith('/evict')) {
          if (request.name === 'guarded') {
            response.allowed = false;
            response.status = { code: 403, message: 'this pod stays' };
          } else response.warnings = [`evicting ${request.name}`];
        } else if (req.url!.startsWith('/mutate')) {
          const patch = [
            { op: 'add', path: '/metadata/labels/injected', value: 'yes' },
            { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'sidecar:1' } },
          ];
          response.patchType = 'JSONPatch';
          response.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
        } else if (request.object?.data?.forbidden !== undefined) {
          response.allowed = false;
          response.status = { code: 403, message: 'forbidden keys are not allowed here' };
        } else if (request.operation === 'DELETE') {
          response.warnings = [`deleting ${request.name}`];
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      });
    });
    webhook.listen(0, '127.0.0.1');
    await once(webhook, 'listening');
    const base = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
    const caBundle = Buffer.from(ca.certPem).toString('base64');
    webhookBase = base;
    webhookCa = caBundle;
    await api.createNamespace('hooked');
    await api.ok('PATCH', '/api/v1/namespaces/hooked', { metadata: { labels: { webhooks: 'on' } } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    await api.ok('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'inject' },
      webhooks: [{
        name: 'inject.example.com',
        clientConfig: { url: `${base}/mutate`, caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        namespaceSelector: { matchLabels: { webhooks: 'on' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      }],
    }, 201);
    await api.ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'guard' },
      webhooks: [{
        name: 'guard.example.com',
        clientConfig: { url: `${base}/validate`, caBundle },
        rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      }],
    }, 201);
  });

  /** Registers one more webhook configuration pointing at this test's server. */
  async function register(kind: 'Mutating' | 'Validating', name: string, path: string, rule: Obj, extra: Obj = {}): Promise<void> {
    const plural = kind === 'Mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    await api.ok('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks: [{ name: `${name}.example.com`, clientConfig: { url: `${webhookBase}${path}`, caBundle: webhookCa }, rules: [rule], sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra }],
    }, 201);
  }

  after(async () => {
    webhook.closeAllConnections();
    webhook.close();
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a mutating webhook adds a label and a container to pods in a selected namespace only', async () => {
    const pod = (ns: string): Json => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: ns, labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } });
    const hooked: Json = await api.ok('POST', '/api/v1/namespaces/hooked/pods', pod('hooked'), 201);
    assert.equal(hooked.metadata.labels.injected, 'yes');
    assert.deepEqual(hooked.spec.containers.map((c: Obj) => c.name), ['app', 'sidecar']);
    // The webhook's container got the server's defaults, as kube applies them after mutation.
    assert.equal(hooked.spec.containers[1].terminationMessagePath, '/dev/termination-log');
    const review = reviews.find((r) => r.request.resource.resource === 'pods');
    assert.equal(review?.request.operation, 'CREATE');
    assert.equal(review?.request.userInfo.username, 'kubernetes-admin');
    assert.equal(review?.request.object.metadata.uid, undefined, 'webhooks see the object before the server fills in its uid');
    const plain: Json = await api.ok('POST', '/api/v1/namespaces/default/pods', pod('default'), 201);
    assert.equal(plain.metadata.labels?.injected, undefined);
    assert.equal(plain.spec.containers.length, 1);
  });

  it('a validating webhook denies with its message and code, and kubectl prints it', { skip: !existsSync(kubectlPath) && 'kubectl not found at /usr/bin/kubectl' }, async () => {
    const r = await kubectl(kubeconfig, ['create', 'configmap', 'bad', '--from-literal=forbidden=1']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /admission webhook "guard\.example\.com" denied the request: forbidden keys are not allowed here/);
    const missing = await api.request('GET', '/api/v1/namespaces/default/configmaps/bad');
    assert.equal(missing.status, 404, 'nothing was stored');
    const denied = await api.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: { forbidden: '1' } });
    // The webhook's code reaches the client; it gave no reason, so kube's Status has none.
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 403);
    assert.match(denied.body.message, /^admission webhook "guard\.example\.com" denied the request: forbidden keys are not allowed here$/);
  });

  it('DELETE goes through validating webhooks with the old object, and their warnings reach kubectl', { skip: !existsSync(kubectlPath) && 'kubectl not found at /usr/bin/kubectl' }, async () => {
    await api.ok('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' }, data: { a: '1' } }, 201);
    const r = await kubectl(kubeconfig, ['delete', 'configmap', 'gone']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: deleting gone/);
    const review = reviews.findLast((x) => x.request.operation === 'DELETE');
    assert.equal(review?.request.oldObject.data.a, '1');
    assert.equal(review?.request.object, null);
  });

  it('server-side apply goes through webhooks: CREATE when it creates, UPDATE with the merged object', async () => {
    const apply = (data: Obj): Promise<{ status: number; body: Json }> =>
      api.request('PATCH', '/api/v1/namespaces/default/configmaps/applied?fieldManager=applier', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data }, {
        'Content-Type': 'application/apply-patch+yaml',
      });
    assert.equal((await apply({ a: '1' })).status, 201);
    const created = reviews.findLast((x) => x.request.name === 'applied');
    assert.equal(created?.request.operation, 'CREATE');
    assert.equal(created?.request.options.fieldManager, 'applier');
    assert.equal((await apply({ a: '1', b: '2' })).status, 200);
    const updated = reviews.findLast((x) => x.request.name === 'applied');
    assert.equal(updated?.request.operation, 'UPDATE');
    assert.deepEqual(updated?.request.object.data, { a: '1', b: '2' });
    assert.deepEqual(updated?.request.oldObject.data, { a: '1' });
    const denied = await apply({ a: '1', forbidden: 'x' });
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /forbidden keys are not allowed here/);
  });

  it('the scale subresource goes through webhooks as an autoscaling/v1 Scale on deployments/scale', async () => {
    await register('Validating', 'scale-guard', '/scale', { operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/scale'] });
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    await api.ok('POST', '/apis/apps/v1/namespaces/default/deployments', deployment, 201);
    const scalePath = '/apis/apps/v1/namespaces/default/deployments/web/scale';
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    const ok: Json = await api.ok('PATCH', scalePath, { spec: { replicas: 3 } }, 200, merge);
    assert.equal(ok.spec.replicas, 3);
    const review = reviews.findLast((r) => r.request.subResource === 'scale');
    assert.deepEqual(review?.request.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual(review?.request.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal(review?.request.oldObject.spec.replicas, 1);
    const denied = await api.request('PATCH', scalePath, { spec: { replicas: 9 } }, merge);
    assert.equal(denied.status, 422);
    assert.match(denied.body.message, /admission webhook "scale-guard\.example\.com" denied the request: at most 5 replicas/);
    const now: Json = await api.ok('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    assert.equal(now.spec.replicas, 3, 'the denied scale changed nothing');
  });

  it('an eviction goes through webhooks as a policy/v1 Eviction on pods/eviction, as kubectl drain meets them', async () => {
    await register('Validating', 'evict-guard', '/evict', { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/eviction'] });
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await api.ok('POST', '/api/v1/namespaces/default/pods', pod('guarded'), 201);
    await api.ok('POST', '/api/v1/namespaces/default/pods', pod('free'), 201);
    const evict = (name: string) =>
      api.request('POST', `/api/v1/namespaces/default/pods/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });

    const refused = await evict('guarded');
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.message, 'admission webhook "evict-guard.example.com" denied the request: this pod stays');
    assert.equal((await api.request('GET', '/api/v1/namespaces/default/pods/guarded')).status, 200, 'the refused eviction deleted nothing');
    const review = reviews.findLast((r) => r.request.subResource === 'eviction');
    assert.deepEqual(
      [review?.request.kind, review?.request.resource, review?.request.operation, review?.request.name, review?.request.namespace, review?.request.object.kind],
      [{ group: 'policy', version: 'v1', kind: 'Eviction' }, { group: '', version: 'v1', resource: 'pods' }, 'CREATE', 'guarded', 'default', 'Eviction'],
    );

    const allowed = await evict('free');
    assert.equal(allowed.status, 201, JSON.stringify(allowed.body));
    assert.equal(allowed.headers.warning, '299 - "evicting free"');
    assert.equal((await api.request('GET', '/api/v1/namespaces/default/pods/free')).status, 404);
  });

  it('a binding goes through webhooks as a v1 Binding, on pods/binding and on the older bindings resource', async () => {
    await register('Validating', 'bind-guard', '/bind', { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/binding', 'bindings'] });
    const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    const binding = (name: string, node: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });
    await api.ok('POST', '/api/v1/namespaces/default/pods', pod('bind-sub'), 201);
    await api.ok('POST', '/api/v1/namespaces/default/pods', pod('bind-top'), 201);

    const refused = await api.request('POST', '/api/v1/namespaces/default/pods/bind-sub/binding', binding('bind-sub', 'tainted-node'));
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.message, 'admission webhook "bind-guard.example.com" denied the request: no pods on tainted-node');
    const review = reviews.findLast((r) => r.request.subResource === 'binding');
    assert.deepEqual(
      [review?.request.kind, review?.request.resource, review?.request.name, review?.request.object.target],
      [{ group: '', version: 'v1', kind: 'Binding' }, { group: '', version: 'v1', resource: 'pods' }, 'bind-sub', { kind: 'Node', name: 'tainted-node' }],
    );
    assert.equal((await api.ok('GET', '/api/v1/namespaces/default/pods/bind-sub')).spec.nodeName, undefined, 'the refused binding bound nothing');
    await api.ok('POST', '/api/v1/namespaces/default/pods/bind-sub/binding', binding('bind-sub', 'node-1'), 201);
    assert.equal((await api.ok('GET', '/api/v1/namespaces/default/pods/bind-sub')).spec.nodeName, 'node-1');

    const refusedTop = await api.request('POST', '/api/v1/namespaces/default/bindings', binding('bind-top', 'tainted-node'));
    assert.equal(refusedTop.status, 403, JSON.stringify(refusedTop.body));
    assert.equal(reviews.findLast((r) => r.request.resource?.resource === 'bindings')?.request.name, 'bind-top');
    await api.ok('POST', '/api/v1/namespaces/default/bindings', binding('bind-top', 'node-1'), 201);
  });

  it('a mutating webhook on a custom resource', async () => {
    await api.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.hooks.example.com' },
      spec: {
        group: 'hooks.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string', enum: ['small', 'large'] }, color: { type: 'string' } } } } } } }],
      },
    }, 201);
    await register('Mutating', 'widget-sizer', '/widget', { operations: ['CREATE'], apiGroups: ['hooks.example.com'], apiVersions: ['v1'], resources: ['widgets'] });
    const created: Json = await api.ok('POST', '/apis/hooks.example.com/v1/namespaces/default/widgets', { apiVersion: 'hooks.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { color: 'red' } }, 201);
    assert.deepEqual(created.spec, { color: 'red', size: 'large' });
  });

  it('a webhook that never answers fails the request with Fail and is skipped with Ignore', async () => {
    await register('Validating', 'hang-fail', '/hang', { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }, { timeoutSeconds: 1, failurePolicy: 'Fail' });
    await register('Validating', 'hang-ignore', '/hang', { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts'] }, { timeoutSeconds: 1, failurePolicy: 'Ignore' });
    const [failed, ignored] = await Promise.all([
      api.request('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }),
      api.request('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } }),
    ]);
    assert.equal(failed.status, 500);
    assert.match(failed.body.message, /^Internal error occurred: failed calling webhook "hang-fail\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded$/);
    assert.equal(ignored.status, 201);
  });

  it('RBAC escalation is judged on the object the mutating webhooks made, as kube\'s policybased storage judges it', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/hooked';
    await api.ok('POST', `${rbac}/roles`, {
      metadata: { name: 'role-writer' },
      rules: [
        { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['create'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
      ],
    }, 201);
    await api.ok('POST', `${rbac}/rolebindings`, {
      metadata: { name: 'alice-writes-roles' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    }, 201);
    const asAlice = { 'Impersonate-User': 'alice' };
    const narrow = (name: string): Json => ({ metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    // Alice holds every rule of this Role: it is hers to write.
    await api.ok('POST', `${rbac}/roles`, narrow('before-webhook'), 201, asAlice);
    await register('Mutating', 'widen-role', '/widen-role', { operations: ['CREATE'], apiGroups: ['rbac.authorization.k8s.io'], apiVersions: ['v1'], resources: ['roles'] }, {
      namespaceSelector: { matchLabels: { webhooks: 'on' } },
    });
    // Now a webhook adds a rule she does not hold: the check sees the rule the body never had.
    const widened = await api.request('POST', `${rbac}/roles`, narrow('after-webhook'), asAlice);
    assert.equal(widened.status, 403, widened.text);
    assert.match(
      (widened.body as { message: string }).message,
      /^roles\.rbac\.authorization\.k8s\.io "after-webhook" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}/,
    );
    assert.equal((await api.request('GET', `${rbac}/roles/after-webhook`)).status, 404, 'nothing was stored');
  });
});
