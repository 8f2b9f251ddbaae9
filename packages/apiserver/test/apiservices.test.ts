/**
 * apiregistration.k8s.io/v1 APIServices over the wire: the local APIService
 * kube-apiserver keeps for each group version it serves (built-in ones at
 * start, a CRD's as its versions come and go), the user's own with kube's
 * availability checks as far as this server can make them (it does not proxy
 * to aggregated API servers), and kube-aggregator's validation.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json, type WatchStream } from './support/api-client.js';

const apiservices = '/apis/apiregistration.k8s.io/v1/apiservices';
const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const automanaged = 'kube-aggregator.kubernetes.io/automanaged';
const merge = { 'Content-Type': 'application/merge-patch+json' };

const apiService = (name: string, spec: Json, labels?: Json): Json => ({
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec,
});

/** Waits (on a watch, not a clock) until the APIService `name` satisfies `pred`; returns it. */
async function awaitAPIService(watch: WatchStream, name: string, pred: (e: { type: string; object: Json }) => boolean): Promise<Json> {
  const events = await watch.until((e) => e.object?.metadata?.name === name && pred(e));
  return events[events.length - 1].object;
}

const availableOf = (o: Json): Json => o.status?.conditions?.find((c: Json) => c.type === 'Available');

describe('APIServices', () => {
  let api: TestApi;
  let watch: WatchStream;
  before(async () => {
    api = await TestApi.start();
    watch = await api.watch(`${apiservices}?watch=true`);
  });
  after(async () => {
    watch?.close();
    await api?.stop();
  });

  it('a local APIService for every built-in group version served, as kube registers them', async () => {
    await awaitAPIService(watch, 'v2.autoscaling', (e) => e.type === 'ADDED');
    const list = await api.ok('GET', apiservices);
    const byName = new Map<string, Json>(list.items.map((i: Json) => [i.metadata.name, i]));
    for (const name of ['v1.', 'v1.apps', 'v1.autoscaling', 'v2.autoscaling', 'v1.certificates.k8s.io', 'v1.flowcontrol.apiserver.k8s.io', 'v1.authorization.k8s.io']) {
      assert.ok(byName.has(name), name);
    }
    // kube has no priority for the aggregator's own group, so no APIService for it.
    assert.equal(byName.has('v1.apiregistration.k8s.io'), false);
    const apps = byName.get('v1.apps')!;
    assert.deepEqual(apps.metadata.labels, { [automanaged]: 'onstart' });
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.deepEqual(byName.get('v1.')!.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    const available = availableOf(apps);
    assert.deepEqual({ ...available, lastTransitionTime: undefined }, {
      type: 'Available',
      status: 'True',
      reason: 'Local',
      message: 'Local APIServices are always available',
      lastTransitionTime: undefined,
    });

    const table = await api.ok('GET', `${apiservices}/v1.apps`, undefined, 200, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.columnDefinitions.map((c: Json) => c.name), ['Name', 'Service', 'Available', 'Age']);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['v1.apps', 'Local', 'True']);
  });

  it("a CRD's served versions get APIServices, which go with the versions", async () => {
    const version = (name: string, served: boolean, storage: boolean): Json => ({ name, served, storage, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } });
    const crd = await api.ok('POST', crds, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets' }, versions: [version('v1', true, true), version('v2', true, false)] },
    }, 201);
    const v2 = await awaitAPIService(watch, 'v2.example.com', (e) => e.type === 'ADDED');
    assert.deepEqual(v2.metadata.labels, { [automanaged]: 'true' });
    assert.deepEqual(v2.spec, { group: 'example.com', version: 'v2', groupPriorityMinimum: 1000, versionPriority: 100 });

    crd.spec.versions[1].served = false;
    await api.ok('PUT', `${crds}/widgets.example.com`, crd, 200);
    await awaitAPIService(watch, 'v2.example.com', (e) => e.type === 'DELETED');
    assert.equal((await api.request('GET', `${apiservices}/v1.example.com`)).status, 200);
    await api.ok('DELETE', `${crds}/widgets.example.com`, undefined, 200);
    await awaitAPIService(watch, 'v1.example.com', (e) => e.type === 'DELETED');
  });

  it("a user's APIService with a service gets kube's availability checks, then FailedDiscoveryCheck (no proxying here)", async () => {
    const metrics = apiService('v1beta1.metrics.k8s.io', {
      group: 'metrics.k8s.io',
      version: 'v1beta1',
      groupPriorityMinimum: 100,
      versionPriority: 100,
      insecureSkipTLSVerify: true,
      service: { namespace: 'kube-system', name: 'metrics-server' },
    });
    const created = await api.ok('POST', apiservices, metrics, 201);
    assert.equal(created.spec.service.port, 443, "kube's default port");
    const missing = await awaitAPIService(watch, 'v1beta1.metrics.k8s.io', (e) => availableOf(e.object)?.reason === 'ServiceNotFound');
    assert.deepEqual({ ...availableOf(missing), lastTransitionTime: undefined }, {
      type: 'Available',
      status: 'False',
      reason: 'ServiceNotFound',
      message: 'service/metrics-server in "kube-system" is not present',
      lastTransitionTime: undefined,
    });
    const table = await api.ok('GET', `${apiservices}/v1beta1.metrics.k8s.io`, undefined, 200, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (ServiceNotFound)']);

    await api.ok('POST', '/api/v1/namespaces/kube-system/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'metrics-server' },
      spec: { ports: [{ name: 'https', port: 443, targetPort: 4443 }] },
    }, 201);
    const noEndpoints = await awaitAPIService(watch, 'v1beta1.metrics.k8s.io', (e) => availableOf(e.object)?.reason === 'EndpointsNotFound');
    assert.equal(availableOf(noEndpoints).message, 'cannot find endpoints for service/metrics-server in "kube-system"');
    await api.ok('POST', '/api/v1/namespaces/kube-system/endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'metrics-server' },
      subsets: [{ addresses: [{ ip: '10.0.0.7' }], ports: [{ name: 'https', port: 4443 }] }],
    }, 201);
    const discovery = await awaitAPIService(watch, 'v1beta1.metrics.k8s.io', (e) => availableOf(e.object)?.reason === 'FailedDiscoveryCheck');
    assert.equal(
      availableOf(discovery).message,
      'failing or missing response from https://metrics-server.kube-system.svc:443/apis/metrics.k8s.io/v1beta1: this server does not proxy to aggregated API servers',
    );

    // The user's APIService is left alone by the registration: its spec stays as written.
    assert.equal(discovery.metadata.labels, undefined);
  });

  it("refuses what kube-aggregator's validation refuses, and updates without a resourceVersion", async () => {
    const bad = await api.request('POST', apiservices, apiService('wrong', { group: 'foo.io', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001, caBundle: 'aGVsbG8=' }));
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      'APIService.apiregistration.k8s.io "wrong" is invalid: [metadata.name: Invalid value: "wrong": must be `spec.version+"."+spec.group`: "v1.foo.io", ' +
        'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000, spec.versionPriority: Invalid value: 1001: must be positive and less than 1000, ' +
        'spec.caBundle: Invalid value: "5 bytes": local APIServices may not have a caBundle]',
    );
    const service = await api.request('POST', apiservices, apiService('v1alpha1', { version: 'v1alpha1', groupPriorityMinimum: 1, versionPriority: 1, insecureSkipTLSVerify: true, caBundle: 'aGVsbG8=', service: {} }));
    assert.equal(
      service.body.message,
      'APIService.apiregistration.k8s.io "v1alpha1" is invalid: [metadata.name: Invalid value: "v1alpha1": must be `spec.version+"."+spec.group`: "v1alpha1.", ' +
        'spec.group: Required value: only v1 may have an empty group and it better be legacy kube, spec.service.namespace: Required value, spec.service.name: Required value, ' +
        'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present]',
    );

    const mine = await api.ok('POST', apiservices, apiService('v1.mine.example.com', { group: 'mine.example.com', version: 'v1', groupPriorityMinimum: 500, versionPriority: 10 }), 201);
    assert.equal(availableOf(mine).reason, 'Local');
    delete mine.metadata.resourceVersion;
    const unconditional = await api.request('PUT', `${apiservices}/v1.mine.example.com`, mine);
    assert.equal(unconditional.status, 422);
    assert.equal(unconditional.body.message, 'apiservices.apiregistration.k8s.io "v1.mine.example.com" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    const badStatus = await api.request('PATCH', `${apiservices}/v1.mine.example.com/status`, { status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }, merge);
    assert.equal(badStatus.status, 422);
    assert.match(badStatus.body.message, /status.conditions\[0\].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"/);
  });
});

describe('APIServices across a restart', () => {
  it('an onstart APIService whose group version is no longer served goes at start; the user\'s stay', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'apiservices-'));
    try {
      let api = await TestApi.start({ dataDir });
      const spec = { group: 'gone.example.com', version: 'v1', groupPriorityMinimum: 500, versionPriority: 10 };
      await api.ok('POST', apiservices, apiService('v1.gone.example.com', spec, { [automanaged]: 'onstart' }), 201);
      const kept = await api.ok('POST', apiservices, apiService('v1.kept.example.com', { ...spec, group: 'kept.example.com' }), 201);
      // While it runs, the registration does not take back an onstart APIService (kube deletes those once, at start).
      assert.equal((await api.request('GET', `${apiservices}/v1.gone.example.com`)).status, 200);
      await api.stop();

      api = await TestApi.start({ dataDir });
      // From the first run's last write: the deletion may come before the watch does (a new store's
      // APIServices come with the bootstrap objects, so the first pass has nothing else to do).
      const watch = await api.watch(`${apiservices}?watch=true&resourceVersion=${kept.metadata.resourceVersion}`);
      try {
        await awaitAPIService(watch, 'v1.gone.example.com', (e) => e.type === 'DELETED');
        assert.equal((await api.request('GET', `${apiservices}/v1.kept.example.com`)).status, 200);
      } finally {
        watch.close();
        await api.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
