/**
 * What starting does when the caches cannot sync (issue 19): a watched kind
 * the server does not serve fails `mgr.start()` and a controller's start at
 * once with controller-runtime's "no matches for kind" (discovery decides, so
 * a 404 that discovery contradicts is retried), and lists that keep failing
 * end in a sync timeout worded as controller-runtime's, instead of a manager
 * that logs "list failed; retrying" forever with no controller running.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigMap, Job } from '../builtins.js';
import { CacheReader } from '../cache/reader.js';
import { SharedInformerFactory } from '../cache/shared-informers.js';
import { silentLogger } from '../cache/logger.js';
import { CacheSyncTimeoutError } from '../cache/sync-timeout.js';
import { ignoreNotFound } from '../client/api-error.js';
import { Client } from '../client/client.js';
import { controllerBuilder } from '../controller/builder.js';
import { defineKind } from '../kind.js';
import { NoKindMatchError } from '../no-kind-match.js';
import { useApiServer } from '../testdata/api-server.js';
import { CapturingLogger } from '../testdata/capturing-logger.js';
import { rejection } from '../testdata/rejection.js';
import { scriptedServer, statusBody } from '../testdata/scripted-server.js';
import { Manager } from './manager.js';

/** The Kubebuilder tutorial's CronJob, whose CRD is not installed. */
const CronJob = defineKind({ group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true });
/** A resource missing from a group/version the server does serve. */
const Widget = defineKind({ group: 'apps', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
const Gadget = defineKind({ group: '', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true });
/** A built-in kind of a group the embedded server does not serve (resource.k8s.io/v1beta1 is off by default in 1.32). */
const ResourceClaim = defineKind({ group: 'resource.k8s.io', version: 'v1beta1', kind: 'ResourceClaim', plural: 'resourceclaims', namespaced: true });

describe('a watched kind the server does not serve', () => {
  const api = useApiServer();

  test('mgr.start() rejects at once with "no matches for kind" and stops what it started', { timeout: 15_000 }, async () => {
    const logs = new CapturingLogger();
    // A sync timeout far beyond the test's: only failing fast can pass.
    const mgr = await Manager.create({ kubeconfig: { kubeconfigText: api.server.kubeconfig }, logger: logs, healthPort: 0, cacheSyncTimeoutMs: 600_000 });
    mgr.controller('cronjob').for(CronJob).owns(Job).reconcile(() => undefined);
    mgr.controller('settings').for(ConfigMap).reconcile(() => undefined);
    const err = await rejection(mgr.start(new AbortController().signal));
    assert.ok(err instanceof NoKindMatchError, `rejected with ${String(err)}`);
    // The tutorial's CRD is not installed (batch/v1 Jobs are served, so theirs is not the informer that fails).
    assert.equal(err.message, 'no matches for kind "CronJob" in version "batch.tutorial.kubebuilder.io/v1"');
    assert.deepEqual(
      mgr.informers.informers().map((i) => [i.name, i.state]),
      [['cronjobs.batch.tutorial.kubebuilder.io', 'stopped'], ['jobs.batch', 'stopped'], ['configmaps', 'stopped']],
    );
    const health = mgr.healthAddress;
    assert.ok(health, 'the health server was bound');
    await assert.rejects(fetch(`http://${health.host}:${health.port}/readyz`), 'the health server is closed');
    assert.deepEqual(logs.lines.filter((l) => l.msg === 'list failed; retrying'), [], 'nothing was retried');
  });

  test('a controller\'s start rejects with it, naming the kind and its group/version', { timeout: 15_000 }, async () => {
    const informers = new SharedInformerFactory(api.client, { logger: silentLogger });
    const controller = controllerBuilder('cronjob', { client: api.client, informers, logger: new CapturingLogger(), cacheSyncTimeoutMs: 600_000 })
      .for(CronJob)
      .reconcile(() => undefined);
    const stop = new AbortController();
    informers.startAll(stop.signal);
    const err = await rejection(controller.start(stop.signal));
    stop.abort();
    await informers.stopAll();
    assert.ok(err instanceof NoKindMatchError);
    assert.equal(err.message, 'no matches for kind "CronJob" in version "batch.tutorial.kubebuilder.io/v1"');
    assert.deepEqual([err.group, err.version, err.kind], ['batch.tutorial.kubebuilder.io', 'v1', 'CronJob']);
    assert.throws(() => ignoreNotFound(err), NoKindMatchError, 'not an object that is not found');
    assert.equal(controller.state, 'stopped');
  });

  test('discovery decides: a resource missing from a served group/version, in a named group and in the core group', async () => {
    for (const [kind, message] of [
      [Widget, 'no matches for kind "Widget" in version "apps/v1"'],
      [Gadget, 'no matches for kind "Gadget" in version "v1"'],
    ] as const) {
      const err = await rejection(api.client.listerWatcher(kind).list({}));
      assert.ok(err instanceof NoKindMatchError, String(err));
      assert.equal(err.message, message);
    }
  });

  test('a cached read of such a kind rejects with it instead of waiting for a sync', { timeout: 15_000 }, async () => {
    const reader = new CacheReader(new SharedInformerFactory(api.client, { logger: silentLogger }), { syncTimeoutMs: 600_000 });
    const stop = new AbortController();
    reader.informers.startAll(stop.signal);
    const err = await rejection(reader.get(ResourceClaim, 'web', { namespace: 'default' }));
    stop.abort();
    await reader.informers.stopAll();
    assert.ok(err instanceof NoKindMatchError);
    assert.equal(err.message, 'no matches for kind "ResourceClaim" in version "resource.k8s.io/v1beta1"');
  });
});

describe('lists that keep failing', () => {
  const fastRetries = { backoff: { initialMs: 5, maxMs: 20 } };
  const listsOf = (requests: readonly string[]): string[] => requests.filter((r) => r.startsWith('GET /api/v1/configmaps?'));

  test('a server answering 503: the informers retry, and mgr.start() fails after cacheSyncTimeoutMs', { timeout: 15_000 }, async () => {
    const server = await scriptedServer(() => statusBody(503, 'ServiceUnavailable'));
    try {
      const logs = new CapturingLogger();
      const mgr = await Manager.create({ kubeconfig: server.config, logger: logs, cacheSyncTimeoutMs: 300, cache: fastRetries });
      let reconciled = false;
      mgr.controller('settings').for(ConfigMap).reconcile(() => void (reconciled = true));
      const err = await rejection(mgr.start(new AbortController().signal));
      assert.ok(err instanceof CacheSyncTimeoutError, String(err));
      assert.equal(err.message, 'failed to wait for manager caches to sync configmaps: timed out waiting for cache to be synced for Kind ConfigMap (v1)');
      assert.equal(err.timeoutMs, 300);
      assert.equal(reconciled, false);
      assert.ok(listsOf(server.requests).length >= 2, `lists retried: ${server.requests.join(', ')}`);
      assert.ok(!server.requests.includes('GET /api/v1'), 'a 503 is not a reason to ask discovery');
      assert.ok(logs.lines.some((l) => l.msg === 'list failed; retrying'));
      assert.deepEqual(mgr.informers.informers().map((i) => i.state), ['stopped']);
    } finally {
      await server.close();
    }
  });

  test('a 404 on a list that discovery contradicts is retried, and a controller times out as controller-runtime words it', { timeout: 15_000 }, async () => {
    const server = await scriptedServer((_method, path) =>
      path === '/api/v1'
        ? { status: 200, body: { kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list'] }] } }
        : statusBody(404, 'NotFound'),
    );
    const client = Client.fromConfig(server.config, { qps: Infinity });
    const informers = new SharedInformerFactory(client, { logger: silentLogger, ...fastRetries });
    const stop = new AbortController();
    try {
      const controller = controllerBuilder('settings', { client, informers, logger: new CapturingLogger(), cacheSyncTimeoutMs: 300 })
        .for(ConfigMap)
        .reconcile(() => undefined);
      informers.startAll(stop.signal);
      const err = await rejection(controller.start(stop.signal));
      assert.ok(err instanceof CacheSyncTimeoutError, String(err));
      assert.equal(err.message, 'failed to wait for settings caches to sync configmaps: timed out waiting for cache to be synced for Kind ConfigMap (v1)');
      assert.ok(listsOf(server.requests).length >= 2, `lists retried: ${server.requests.join(', ')}`);
      assert.ok(server.requests.includes('GET /api/v1'), 'discovery was asked');
    } finally {
      stop.abort();
      await informers.stopAll();
      client.close();
      await server.close();
    }
  });
});
