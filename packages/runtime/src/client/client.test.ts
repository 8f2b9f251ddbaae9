/**
 * The client against the real embedded API server over HTTPS: CRUD, every
 * patch type, status and scale subresources, dry run, delete-collection,
 * server-side apply and typed Status errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'node:https';
import type { RunningApiServer } from '@operant/apiserver';
import type { KubeObject, Status } from '@operant/apimachinery';
import { defineKind } from '../kind.js';
import { loadKubeConfig } from '../config/load.js';
import { Client, type PatchBody } from './client.js';
import { applyConfiguration } from './apply-configuration.js';
import { useApiServer } from '../testdata/api-server.js';
import type { KubeList, PatchOptions, PatchType } from './options.js';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isStatus,
  isTooManyRequests,
  isUnauthorized,
  apiErrorFromResponse,
} from './api-error.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}
interface Container {
  name: string;
  image: string;
}
interface Pod extends KubeObject {
  spec: { containers: Container[]; nodeName?: string };
  status?: { phase?: string; message?: string };
}
interface Deployment extends KubeObject {
  spec: { replicas?: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } } };
  status?: { observedGeneration?: number; replicas?: number };
}

const ConfigMap = defineKind<ConfigMap>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
const Pod = defineKind<Pod>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
const Deployment = defineKind<Deployment>({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true });
const Namespace = defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false });
const ServiceAccount = defineKind({ group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true });

function pod(name: string, namespace: string, containers: Container[] = [{ name: 'app', image: 'app:1' }]): Pod {
  return { metadata: { name, namespace, labels: { app: 'web' } }, spec: { containers } };
}

describe('Client against the embedded server', () => {
  const ns = 'client-test';
  const api = useApiServer({ namespaces: [ns] });
  let server: RunningApiServer;
  let client: Client;
  before(() => {
    server = api.server;
    client = api.client;
  });

  test('ConfigMap CRUD: create, get, list with selectors, update, delete', async () => {
    const created = await client.create(ConfigMap, { metadata: { name: 'settings', namespace: ns, labels: { tier: 'a' } }, data: { a: '1' } });
    assert.equal(created.kind, 'ConfigMap');
    assert.ok(created.metadata.uid);
    assert.ok(created.metadata.resourceVersion);
    await client.create(ConfigMap, { metadata: { name: 'other', labels: { tier: 'b' } }, data: {} }, { namespace: ns });

    const got = await client.get(ConfigMap, 'settings', { namespace: ns });
    assert.deepEqual(got.data, { a: '1' });

    const byLabel = await client.list(ConfigMap, { namespace: ns, labelSelector: { tier: 'a' } });
    assert.deepEqual(byLabel.items.map((i) => i.metadata.name), ['settings']);
    assert.equal(byLabel.items[0].kind, 'ConfigMap');
    assert.equal(byLabel.items[0].apiVersion, 'v1');
    assert.ok(byLabel.metadata.resourceVersion);
    const byField = await client.list(ConfigMap, { namespace: ns, fieldSelector: 'metadata.name=other' });
    assert.deepEqual(byField.items.map((i) => i.metadata.name), ['other']);
    const setBased = await client.list(ConfigMap, { namespace: ns, labelSelector: 'tier in (a,b)' });
    assert.equal(setBased.items.length, 2);

    const updated = await client.update(ConfigMap, { ...got, data: { a: '2' } });
    assert.deepEqual(updated.data, { a: '2' });
    assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);

    const deleted = await client.delete(ConfigMap, 'settings', { namespace: ns });
    assert.ok(deleted);
    await assert.rejects(client.get(ConfigMap, 'settings', { namespace: ns }), (e) => isNotFound(e));
  });

  test('the default namespace is the context namespace; cluster-scoped kinds ignore namespaces', async () => {
    assert.equal(client.namespace, 'default');
    const cm = await client.create(ConfigMap, { metadata: { name: 'in-default' } });
    assert.equal(cm.metadata.namespace, 'default');
    assert.equal((await client.get(ConfigMap, 'in-default')).metadata.namespace, 'default');
    await client.delete(ConfigMap, 'in-default');
    const nsObj = await client.get(Namespace, ns, { namespace: 'ignored' });
    assert.equal(nsObj.metadata.name, ns);
  });

  test('Pod CRUD and a status update that leaves the spec alone', async () => {
    const created = await client.create(Pod, pod('web-1', ns));
    assert.equal(created.spec.containers[0].image, 'app:1');
    const withStatus = await client.updateStatus(Pod, { ...created, spec: { ...created.spec, nodeName: 'ignored-by-status' }, status: { ...created.status, phase: 'Running', message: 'up' } });
    assert.equal(withStatus.status?.phase, 'Running');
    assert.equal(withStatus.status?.message, 'up');
    assert.equal(withStatus.spec.nodeName, undefined);
    const list = await client.list(Pod, { namespace: ns });
    assert.deepEqual(list.items.map((p) => p.metadata.name), ['web-1']);
    await client.delete(Pod, 'web-1', { namespace: ns, gracePeriodSeconds: 0 });
  });

  test('patch types (patchType): merge, json, strategic (containers merge by name), apply; and a status patch', async () => {
    await client.create(ConfigMap, { metadata: { name: 'patched', namespace: ns }, data: { a: '1', b: '2' } });
    const merged = await client.patch(ConfigMap, 'patched', { data: { b: null, c: '3' } }, { namespace: ns, patchType: 'merge' });
    assert.deepEqual(merged.data, { a: '1', c: '3' });
    const defaulted = await client.patch(ConfigMap, 'patched', { metadata: { labels: { x: 'y' } } }, { namespace: ns });
    assert.deepEqual(defaulted.metadata.labels, { x: 'y' });
    const jsonPatched = await client.patch(
      ConfigMap,
      'patched',
      [
        { op: 'test', path: '/data/a', value: '1' },
        { op: 'replace', path: '/data/a', value: 'one' },
      ],
      { namespace: ns, patchType: 'json' },
    );
    assert.deepEqual(jsonPatched.data, { a: 'one', c: '3' });
    await assert.rejects(client.patch(ConfigMap, 'patched', [{ op: 'test', path: '/data/a', value: 'nope' }], { namespace: ns, patchType: 'json' }), (e) => e instanceof ApiError && e.code === 422);
    await assert.rejects(client.patch(ConfigMap, 'patched', { a: 1 }, { patchType: 'json' }), TypeError);

    await client.create(
      Pod,
      pod('sidecars', ns, [
        { name: 'app', image: 'app:1' },
        { name: 'proxy', image: 'proxy:1' },
      ]),
    );
    const strategic = await client.patch(Pod, 'sidecars', { spec: { containers: [{ name: 'proxy', image: 'proxy:2' }] } }, { namespace: ns, patchType: 'strategic' });
    assert.deepEqual(
      strategic.spec.containers.map((c) => [c.name, c.image]),
      [
        ['app', 'app:1'],
        ['proxy', 'proxy:2'],
      ],
    );
    const statusPatched = await client.patch(Pod, 'sidecars', { status: { phase: 'Pending', message: 'patched' } }, { namespace: ns, patchType: 'merge', subresource: 'status' });
    assert.equal(statusPatched.status?.message, 'patched');

  });

  test('server-side apply through apply(): conflicts between managers unless forced', async () => {
    const obj: ConfigMap = { metadata: { name: 'ssa', namespace: ns }, data: { key: 'first' } };
    const created = await client.apply(ConfigMap, obj, { fieldManager: 'first' });
    assert.deepEqual(created.metadata.managedFields?.map((e) => [e.manager, e.operation]), [['first', 'Apply']]);
    await assert.rejects(
      client.apply(ConfigMap, { ...obj, data: { key: 'second' } }, { fieldManager: 'second' }),
      (e) => isConflict(e) && e instanceof ApiError && /Apply failed with 1 conflict: conflict with "first": \.data\.key/.test(e.message),
    );
    const forced = await client.apply(ConfigMap, { ...obj, data: { key: 'second' } }, { fieldManager: 'second', force: true });
    assert.equal(forced.data?.key, 'second');
    assert.deepEqual(forced.metadata.managedFields?.map((e) => [e.manager, e.operation]), [['second', 'Apply']]);
  });

  test('two managers apply their own fields of one Deployment without fighting; a status apply owns only status', async () => {
    // An apply configuration holds only the fields its manager owns, so it is not a whole Deployment.
    const template = { metadata: { labels: { app: 'shared' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
    const owner = applyConfiguration(Deployment, 'shared', ns, { spec: { selector: { matchLabels: { app: 'shared' } }, template } });
    const scaler = applyConfiguration(Deployment, 'shared', ns, { spec: { replicas: 3 } });
    const annotator = applyConfiguration(Deployment, 'shared', ns, { metadata: { annotations: { 'example.com/owner': 'team-a' } } });
    const versions = new Set<string>();
    // Each controller reconciles three times; only the first apply of each changes anything.
    for (let round = 0; round < 3; round++) {
      versions.add((await client.apply(Deployment, owner, { fieldManager: 'owner' })).metadata.resourceVersion!);
      versions.add((await client.apply(Deployment, scaler, { fieldManager: 'scaler' })).metadata.resourceVersion!);
      versions.add((await client.apply(Deployment, annotator, { fieldManager: 'annotator' })).metadata.resourceVersion!);
    }
    assert.equal(versions.size, 3, 'three writes in nine applies');
    const status = await client.applyStatus(Deployment, applyConfiguration(Deployment, 'shared', ns, { status: { observedGeneration: 1 } }), { fieldManager: 'status-writer' });
    assert.deepEqual(status.status, { observedGeneration: 1 });
    const entries = status.metadata.managedFields ?? [];
    assert.deepEqual(entries.map((e) => [e.manager, e.operation, e.subresource ?? '']).sort(), [
      ['annotator', 'Apply', ''],
      ['owner', 'Apply', ''],
      ['scaler', 'Apply', ''],
      ['status-writer', 'Apply', 'status'],
    ]);
    assert.deepEqual(entries.find((e) => e.manager === 'scaler')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.deepEqual(entries.find((e) => e.manager === 'status-writer')?.fieldsV1, { 'f:status': { 'f:observedGeneration': {} } });
  });

  test('applyConfiguration sends only the fields given; applyScale owns the replicas through the scale subresource', async () => {
    const config = applyConfiguration(Deployment, 'applied-scale', ns, {
      spec: { replicas: 2, selector: { matchLabels: { app: 'scaled' } }, template: { metadata: { labels: { app: 'scaled' } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
      metadata: { labels: { tier: undefined, team: 'a' } },
    });
    assert.deepEqual(config.metadata, { labels: { team: 'a' }, name: 'applied-scale', namespace: ns });
    assert.equal(config.apiVersion, 'apps/v1');
    assert.equal(config.kind, 'Deployment');
    await client.apply(Deployment, config, { fieldManager: 'owner' });
    await assert.rejects(
      client.applyScale(Deployment, 'applied-scale', 5, { namespace: ns, fieldManager: 'autoscaler' }),
      (e) => isConflict(e) && /^Apply failed with 1 conflict: conflict with "owner": \.spec\.replicas$/.test((e as ApiError).message),
    );
    const scale = await client.applyScale(Deployment, 'applied-scale', 5, { namespace: ns, fieldManager: 'autoscaler', force: true });
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 5);
    const scaled = await client.get(Deployment, 'applied-scale', { namespace: ns });
    assert.equal(scaled.spec.replicas, 5);
    assert.deepEqual(
      scaled.metadata.managedFields?.filter((e) => e.subresource === 'scale').map((e) => [e.manager, e.operation, e.fieldsV1]),
      [['autoscaler', 'Apply', { 'f:spec': { 'f:replicas': {} } }]],
    );
    // The owner now leaves the replicas out of its configuration: no conflict, and they stay.
    const { replicas: _dropped, ...spec } = config.spec!;
    const yielded = await client.apply(Deployment, { ...config, spec }, { fieldManager: 'owner' });
    assert.equal(yielded.spec.replicas, 5);
    assert.throws(() => applyConfiguration(Deployment, 'x', undefined), /needs a namespace/);
  });

  test('dry run validates and answers, but stores nothing', async () => {
    const dry = await client.create(ConfigMap, { metadata: { name: 'dry', namespace: ns }, data: { a: '1' } }, { dryRun: true });
    assert.equal(dry.metadata.name, 'dry');
    await assert.rejects(client.get(ConfigMap, 'dry', { namespace: ns }), (e) => isNotFound(e));

    const real = await client.create(ConfigMap, { metadata: { name: 'wet', namespace: ns }, data: { a: '1' } });
    await client.update(ConfigMap, { ...real, data: { a: 'dry' } }, { dryRun: true });
    await client.patch(ConfigMap, 'wet', { data: { a: 'dry' } }, { namespace: ns, dryRun: true });
    await client.delete(ConfigMap, 'wet', { namespace: ns, dryRun: true });
    const after = await client.get(ConfigMap, 'wet', { namespace: ns });
    assert.deepEqual(after.data, { a: '1' });
    assert.equal(after.metadata.resourceVersion, real.metadata.resourceVersion);
  });

  test('field validation: Strict refuses unknown fields, Warn surfaces the server\'s Warning headers', async () => {
    const warnings: string[] = [];
    const warned = Client.fromConfig(client.config, { qps: Infinity, onWarning: (w) => warnings.push(w) });
    try {
      const unknown = { metadata: { name: 'fv', namespace: ns }, data: {}, bogus: 1 } as ConfigMap;
      await assert.rejects(warned.create(ConfigMap, unknown, { fieldValidation: 'Strict' }), (e) => e instanceof ApiError && e.code === 400 && /bogus/.test(e.message));
      const created = await warned.create(ConfigMap, unknown, { fieldValidation: 'Warn', fieldManager: 'my-manager' });
      assert.ok(warnings.some((w) => /unknown field "bogus"/.test(w)), warnings.join('\n'));
      assert.equal(created.bogus, undefined);
    } finally {
      warned.close();
    }
  });

  test('delete with preconditions and propagation; deleteAllOf by label', async () => {
    const cm = await client.create(ConfigMap, { metadata: { name: 'pre', namespace: ns } });
    await assert.rejects(client.delete(ConfigMap, 'pre', { namespace: ns, preconditions: { uid: 'not-the-uid' } }), (e) => isConflict(e));
    const res = await client.delete(ConfigMap, 'pre', { namespace: ns, preconditions: { uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion }, propagationPolicy: 'Foreground' });
    // Foreground: the object stays, marked for deletion with the foregroundDeletion finalizer, until the garbage collector is done.
    const marked = res as ConfigMap;
    assert.equal(marked.metadata?.uid, cm.metadata.uid, JSON.stringify(res));
    assert.ok(marked.metadata.deletionTimestamp, 'marked for deletion');
    assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
    for await (const event of client.watch(ConfigMap, { namespace: ns, fieldSelector: 'metadata.name=pre', resourceVersion: marked.metadata.resourceVersion })) {
      if (event.type === 'DELETED') break; // the garbage collector finished the delete
    }
    await assert.rejects(client.get(ConfigMap, 'pre', { namespace: ns }), (e) => isNotFound(e));

    for (const name of ['bulk-1', 'bulk-2', 'keep']) {
      await client.create(ConfigMap, { metadata: { name, namespace: ns, labels: { bulk: name === 'keep' ? 'no' : 'yes' } } });
    }
    const dry = await client.deleteAllOf(ConfigMap, { namespace: ns, labelSelector: 'bulk=yes', dryRun: true });
    assert.equal((dry as KubeList<ConfigMap>).items.length, 2, 'the dry run answers with the two objects it would delete');
    assert.equal((await client.list(ConfigMap, { namespace: ns, labelSelector: 'bulk' })).items.length, 3);
    await client.deleteAllOf(ConfigMap, { namespace: ns, labelSelector: { bulk: 'yes' }, propagationPolicy: 'Background' });
    assert.deepEqual((await client.list(ConfigMap, { namespace: ns, labelSelector: 'bulk' })).items.map((i) => i.metadata.name), ['keep']);
  });

  test('scale subresource: getScale and updateScale', async () => {
    const labels = { app: 'scaled' };
    await client.create(Deployment, {
      metadata: { name: 'scaled', namespace: ns },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: 'app:1' }] } } },
    });
    const scale = await client.getScale(Deployment, 'scaled', { namespace: ns });
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 1);
    assert.equal(scale.status?.selector, 'app=scaled');
    const updated = await client.updateScale(Deployment, { ...scale, spec: { replicas: 4 } });
    assert.equal(updated.spec.replicas, 4);
    assert.equal((await client.get(Deployment, 'scaled', { namespace: ns })).spec.replicas, 4);
  });

  test('unstructured use: a Kind made at run time works the same', async () => {
    const Dynamic = defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true });
    const created = await client.create(Dynamic, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dyn', namespace: ns }, data: { k: 'v' } });
    assert.deepEqual(created.data, { k: 'v' });
    const list = await client.list(Dynamic, { namespace: ns, fieldSelector: 'metadata.name=dyn' });
    assert.equal(list.items.length, 1);
  });

  test('getRaw reads paths that belong to no kind, as client-go\'s DoRaw: /version, /healthz; a 404 is an ApiError', async () => {
    const version = JSON.parse(await client.getRaw('/version')) as { major: string; minor: string; gitVersion: string };
    assert.match(version.gitVersion, /^v1\.32\./);
    assert.equal(version.gitVersion.split('.')[1], version.minor);
    assert.equal(await client.getRaw('/healthz'), 'ok');
    const missing = await client.getRaw('/no-such-path').catch((e: unknown) => e);
    assert.ok(missing instanceof ApiError && isNotFound(missing), String(missing));
    await assert.rejects(client.getRaw('version'), (e) => e instanceof TypeError && /starts with "\/"/.test(e.message));
  });

  describe('typed errors', () => {
    test('404 isNotFound, with the Status as sent', async () => {
      const err = await client.get(ConfigMap, 'missing', { namespace: ns }).catch((e: unknown) => e);
      assert.ok(err instanceof ApiError);
      assert.ok(isNotFound(err));
      assert.ok(!isConflict(err));
      assert.equal(err.code, 404);
      assert.equal(err.reason, 'NotFound');
      assert.equal(err.message, 'configmaps "missing" not found');
      assert.deepEqual(err.details, { name: 'missing', kind: 'configmaps' });
      assert.equal(err.status.kind, 'Status');
      assert.match(err.request, /^GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/client-test\/configmaps\/missing$/);
    });

    test('409 isAlreadyExists on a duplicate create; 409 isConflict on a stale resourceVersion', async () => {
      const cm = await client.create(ConfigMap, { metadata: { name: 'contended', namespace: ns }, data: { v: '0' } });
      await assert.rejects(client.create(ConfigMap, cm), (e) => isAlreadyExists(e) && !isConflict(e));
      await client.update(ConfigMap, { ...cm, data: { v: '1' } });
      const err = await client.update(ConfigMap, { ...cm, data: { v: 'stale' } }).catch((e: unknown) => e);
      assert.ok(isConflict(err));
      assert.match((err as ApiError).message, /Operation cannot be fulfilled on configmaps "contended": the object has been modified; please apply your changes to the latest version and try again/);
    });

    test('422 isInvalid with a cause per field', async () => {
      const err = await client.create(ConfigMap, { metadata: { name: 'Bad_Name', namespace: ns } }).catch((e: unknown) => e);
      assert.ok(isInvalid(err));
      const api = err as ApiError;
      assert.equal(api.code, 422);
      assert.match(api.message, /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name"/);
      assert.equal(api.details?.kind, 'ConfigMap');
      assert.ok(api.details?.causes?.some((c) => c.field === 'metadata.name' && c.reason === 'FieldValueInvalid'));
      const podErr = await client.create(Pod, { metadata: { name: 'no-containers', namespace: ns }, spec: { containers: [] } }).catch((e: unknown) => e);
      assert.ok(isInvalid(podErr));
      assert.ok((podErr as ApiError).details?.causes?.some((c) => c.field === 'spec.containers'));
    });

    test('403 isForbidden for a ServiceAccount token without RBAC; 401 isUnauthorized for a bad token', async () => {
      await client.create(ServiceAccount, { metadata: { name: 'nobody', namespace: 'default' } });
      const token = await serviceAccountToken(server, 'default', 'nobody');
      const config = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
      const asSa = Client.fromConfig({ ...config, credentials: { description: 'sa token', credentials: async () => ({ token }) } }, { qps: Infinity });
      const bad = Client.fromConfig({ ...config, credentials: { description: 'bad token', credentials: async () => ({ token: 'nope' }) } }, { qps: Infinity });
      try {
        const err = await asSa.list(Pod, { namespace: ns }).catch((e: unknown) => e);
        assert.ok(isForbidden(err));
        assert.match((err as ApiError).message, /^pods is forbidden: User "system:serviceaccount:default:nobody" cannot list resource "pods" in API group "" in the namespace "client-test"/);
        await assert.rejects(bad.get(Namespace, 'default'), (e) => isUnauthorized(e) && (e as ApiError).code === 401);
      } finally {
        asSa.close();
        bad.close();
      }
    });

    test('answers that are not Status objects still become ApiErrors with the reason for their code', () => {
      const e = apiErrorFromResponse(503, 'upstream connect error', 'GET https://x/api');
      assert.equal(e.reason, 'ServiceUnavailable');
      assert.equal(e.message, 'the server responded with 503: upstream connect error');
      assert.ok(isTooManyRequests(apiErrorFromResponse(429, '', 'GET https://x/api')));
      assert.ok(isGone(apiErrorFromResponse(410, '', 'GET https://x/api')));
      const expired = apiErrorFromResponse(410, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'too old' }), 'x');
      assert.ok(isResourceExpired(expired));
      assert.ok(!isGone(expired));
      assert.ok(!isNotFound(new Error('plain')));
    });

    test('transport errors stay plain Errors', async () => {
      const config = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
      const nowhere = Client.fromConfig({ ...config, server: 'https://127.0.0.1:1' }, { qps: Infinity });
      try {
        await assert.rejects(nowhere.get(Namespace, 'default'), (e) => e instanceof Error && !(e instanceof ApiError) && /ECONNREFUSED/.test(String((e as NodeJS.ErrnoException).code ?? e)));
      } finally {
        nowhere.close();
      }
    });

    test('delete of an object gone at once answers the object or a success Status', async () => {
      await client.create(ConfigMap, { metadata: { name: 'gone', namespace: ns } });
      const res: ConfigMap | Status = await client.delete(ConfigMap, 'gone', { namespace: ns });
      assert.ok(isStatus(res) ? res.status === 'Success' : res.metadata.name === 'gone');
    });
  });
});

describe('what the client sends (a recording HTTP server)', () => {
  interface Seen {
    method: string;
    url: string;
    contentType: string | undefined;
    accept: string | undefined;
    body: string;
  }
  let seen: Seen[] = [];
  let client: Client;
  let close: () => void;

  before(async () => {
    const http = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], accept: req.headers.accept, body });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        // A watch ends at once with no events; anything else gets a list-or-object answer.
        res.end(req.url?.includes('watch=1') ? '' : JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, items: [] }));
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/prefix`;
    const config = await loadKubeConfig({ kubeconfigText: JSON.stringify({ clusters: [{ name: 'c', cluster: { server: url } }], contexts: [{ name: 'c', context: { cluster: 'c', namespace: 'team' } }], 'current-context': 'c' }) });
    client = Client.fromConfig(config, { qps: Infinity });
    close = () => {
      client.close();
      http.close();
    };
  });
  after(() => close());

  async function last(call: () => Promise<unknown>): Promise<Seen> {
    seen = [];
    await call();
    assert.equal(seen.length, 1);
    return seen[0];
  }

  test('patch content types and query parameters', async () => {
    const merge = await last(() => client.patch(ConfigMap, 'x', { data: { a: '1' } }, { fieldManager: 'm', dryRun: true }));
    assert.equal(merge.method, 'PATCH');
    assert.equal(merge.url, '/prefix/api/v1/namespaces/team/configmaps/x?dryRun=All&fieldManager=m');
    assert.equal(merge.contentType, 'application/merge-patch+json');
    assert.equal((await last(() => client.patch(ConfigMap, 'x', [{ op: 'remove', path: '/data/a' }], { patchType: 'json' }))).contentType, 'application/json-patch+json');
    assert.equal((await last(() => client.patch(Pod, 'x', { spec: {} }, { patchType: 'strategic', subresource: 'status' }))).url, '/prefix/api/v1/namespaces/team/pods/x/status');
    const apply = await last(() => client.apply(ConfigMap, { metadata: { name: 'x', namespace: 'other' }, data: { a: '1' } }, { fieldManager: 'op', force: true, fieldValidation: 'Strict' }));
    assert.equal(apply.contentType, 'application/apply-patch+yaml');
    assert.equal(apply.url, '/prefix/api/v1/namespaces/other/configmaps/x?fieldManager=op&fieldValidation=Strict&force=true');
    assert.deepEqual(JSON.parse(apply.body), { metadata: { name: 'x', namespace: 'other' }, data: { a: '1' }, apiVersion: 'v1', kind: 'ConfigMap' });
  });

  test('getRaw sends a GET of the path, with its query, under the server URL\'s path', async () => {
    const raw = await last(() => client.getRaw('/openapi/v3?timeout=32s'));
    assert.equal(raw.method, 'GET');
    assert.equal(raw.url, '/prefix/openapi/v3?timeout=32s');
  });

  test('the deprecated `type` still chooses the patch format, agrees with `patchType`, and a disagreement throws before any request', async () => {
    const contentType = async (opts: PatchOptions, body: PatchBody = { data: {} }): Promise<string | undefined> =>
      (await last(() => client.patch(ConfigMap, 'x', body, opts))).contentType;
    assert.equal(await contentType({ type: 'json' }, [{ op: 'remove', path: '/data/a' }]), 'application/json-patch+json');
    assert.equal(await contentType({ type: 'strategic' }), 'application/strategic-merge-patch+json');
    assert.equal(await contentType({ type: 'apply', fieldManager: 'm' }), 'application/apply-patch+yaml');
    assert.equal(await contentType({ type: 'merge', patchType: 'merge' }), 'application/merge-patch+json');
    assert.equal(await contentType({ patchType: 'strategic' }), 'application/strategic-merge-patch+json');
    seen = [];
    await assert.rejects(client.patch(ConfigMap, 'x', { data: {} }, { patchType: 'merge', type: 'strategic' }), {
      name: 'TypeError',
      message: 'conflicting patch types: patchType "merge" and the deprecated type "strategic"',
    });
    await assert.rejects(client.patch(ConfigMap, 'x', { data: {} }, { patchType: 'yaml' as PatchType }), /unknown patch type "yaml": expected merge, json, strategic or apply/);
    // The json check applies to the deprecated name too.
    await assert.rejects(client.patch(ConfigMap, 'x', { a: 1 }, { type: 'json' }), /a json patch is a list of operations/);
    assert.deepEqual(seen, []);
  });

  test('writes fill apiVersion and kind; deletes send DeleteOptions', async () => {
    const created = await last(() => client.create(Deployment, { metadata: { name: 'd' } } as Deployment, { fieldValidation: 'Warn' }));
    assert.equal(created.url, '/prefix/apis/apps/v1/namespaces/team/deployments?fieldValidation=Warn');
    assert.deepEqual(JSON.parse(created.body), { metadata: { name: 'd' }, apiVersion: 'apps/v1', kind: 'Deployment' });
    const del = await last(() => client.delete(Pod, 'p', { namespace: 'n', propagationPolicy: 'Orphan', gracePeriodSeconds: 5, preconditions: { uid: 'u' }, dryRun: true }));
    assert.equal(del.url, '/prefix/api/v1/namespaces/n/pods/p?dryRun=All');
    assert.deepEqual(JSON.parse(del.body), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan', gracePeriodSeconds: 5, preconditions: { uid: 'u' }, dryRun: ['All'] });
    const all = await last(() => client.deleteAllOf(ConfigMap, { labelSelector: { a: 'b', c: 'd' }, fieldSelector: 'metadata.name!=x' }));
    assert.equal(all.method, 'DELETE');
    const allUrl = new URL(all.url, 'http://x');
    assert.equal(allUrl.pathname, '/prefix/api/v1/namespaces/team/configmaps');
    assert.deepEqual([...allUrl.searchParams], [
      ['labelSelector', 'a=b,c=d'],
      ['fieldSelector', 'metadata.name!=x'],
    ]);
  });

  test('lists and watches without a namespace span all namespaces; metadata-only asks for PartialObjectMetadata', async () => {
    assert.equal((await last(() => client.list(Pod, { limit: 10, continue: 'tok', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }))).url, '/prefix/api/v1/pods?limit=10&continue=tok&resourceVersion=0&resourceVersionMatch=NotOlderThan');
    const lw = client.listerWatcher(Pod, { metadataOnly: true });
    const listed = await last(() => lw.list({ namespace: 'n' }));
    assert.equal(listed.url, '/prefix/api/v1/namespaces/n/pods?limit=500');
    assert.match(listed.accept ?? '', /^application\/json;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1/);
    const watched = await last(async () => {
      for await (const _ of lw.watch({ resourceVersion: '5', timeoutSeconds: 3 })) void _;
    });
    assert.equal(watched.url, '/prefix/api/v1/pods?watch=1&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=3');
    assert.match(watched.accept ?? '', /as=PartialObjectMetadata;/);
  });
});

/** A ServiceAccount token from the TokenRequest API (`kubectl create token`). */
function serviceAccountToken(server: RunningApiServer, namespace: string, name: string): Promise<string> {
  const url = new URL(`${server.url}/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`);
  const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} });
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca: server.caPem, headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        if (res.statusCode !== 201) return reject(new Error(`token request: ${res.statusCode} ${text}`));
        resolve((JSON.parse(text) as { status: { token: string } }).status.token);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}
