/**
 * The Prometheus hooks under controller-runtime's and client-go's names,
 * labels and buckets, and the handler serving them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { WorkQueue } from '../workqueue/queue.js';
import { RateLimitingQueue } from '../workqueue/rate-limiting-queue.js';
import { metricsHandler } from './handler.js';
import { MetricsRegistry } from './registry.js';
import { PrometheusQueueMetrics } from './workqueue-metrics.js';

/** The sample lines of one metric family (`name{labels} value`). */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('MetricsRegistry', () => {
  test('controller metrics: names, labels, zeroed series, controller-runtime buckets', async () => {
    const metrics = new MetricsRegistry({ processMetrics: false });
    metrics.controller.maxConcurrentReconciles('sidecarset', 4);
    metrics.controller.activeWorkers('sidecarset', 2);
    metrics.controller.reconcileTotal('sidecarset', 'success');
    metrics.controller.reconcileTotal('sidecarset', 'error');
    metrics.controller.reconcileErrors('sidecarset');
    metrics.controller.terminalReconcileErrors('sidecarset');
    metrics.controller.reconcilePanics('sidecarset');
    metrics.controller.reconcileTime('sidecarset', 0.042);
    const text = await metrics.text();

    assert.deepEqual(samples(text, 'controller_runtime_reconcile_total').sort(), [
      'controller_runtime_reconcile_total{controller="sidecarset",result="error"} 1',
      'controller_runtime_reconcile_total{controller="sidecarset",result="requeue"} 0',
      'controller_runtime_reconcile_total{controller="sidecarset",result="requeue_after"} 0',
      'controller_runtime_reconcile_total{controller="sidecarset",result="success"} 1',
    ]);
    assert.deepEqual(samples(text, 'controller_runtime_reconcile_errors_total'), ['controller_runtime_reconcile_errors_total{controller="sidecarset"} 1']);
    assert.deepEqual(samples(text, 'controller_runtime_terminal_reconcile_errors_total'), [
      'controller_runtime_terminal_reconcile_errors_total{controller="sidecarset"} 1',
    ]);
    assert.deepEqual(samples(text, 'controller_runtime_reconcile_panics_total'), ['controller_runtime_reconcile_panics_total{controller="sidecarset"} 1']);
    assert.deepEqual(samples(text, 'controller_runtime_max_concurrent_reconciles'), ['controller_runtime_max_concurrent_reconciles{controller="sidecarset"} 4']);
    assert.deepEqual(samples(text, 'controller_runtime_active_workers'), ['controller_runtime_active_workers{controller="sidecarset"} 2']);
    assert.match(text, /# TYPE controller_runtime_reconcile_time_seconds histogram/);
    const buckets = samples(text, 'controller_runtime_reconcile_time_seconds_bucket');
    assert.equal(buckets.length, 41); // 40 buckets and +Inf
    assert.ok(buckets.includes('controller_runtime_reconcile_time_seconds_bucket{le="0.025",controller="sidecarset"} 0'));
    assert.ok(buckets.includes('controller_runtime_reconcile_time_seconds_bucket{le="0.05",controller="sidecarset"} 1'));
    assert.ok(buckets.includes('controller_runtime_reconcile_time_seconds_bucket{le="60",controller="sidecarset"} 1'));
    assert.deepEqual(samples(text, 'controller_runtime_reconcile_time_seconds_count'), ['controller_runtime_reconcile_time_seconds_count{controller="sidecarset"} 1']);
  });

  test('workqueue metrics from a real queue, labelled name and controller', async () => {
    const metrics = new MetricsRegistry({ processMetrics: false });
    const queue = new RateLimitingQueue<string>({ name: 'foos', metricsProvider: metrics.workqueue, unfinishedWorkSamplePeriodMs: 5 });
    queue.add('default/a');
    queue.add('default/a'); // merges: one add
    queue.add('default/b');
    const item = await queue.get();
    assert.equal(item.shutdown, false);
    await new Promise((r) => setTimeout(r, 20)); // let the sampler see work in progress
    queue.addRateLimited('default/c');
    if (!item.shutdown) queue.done(item.key);
    const text = await metrics.text();
    queue.shutDown();

    const labels = '{name="foos",controller="foos"}';
    assert.deepEqual(samples(text, 'workqueue_adds_total'), [`workqueue_adds_total${labels} 2`]);
    assert.deepEqual(samples(text, 'workqueue_depth'), [`workqueue_depth${labels} 1`]);
    assert.deepEqual(samples(text, 'workqueue_retries_total'), [`workqueue_retries_total${labels} 1`]);
    assert.deepEqual(samples(text, 'workqueue_queue_duration_seconds_count'), [`workqueue_queue_duration_seconds_count${labels} 1`]);
    assert.deepEqual(samples(text, 'workqueue_work_duration_seconds_count'), [`workqueue_work_duration_seconds_count${labels} 1`]);
    assert.equal(samples(text, 'workqueue_unfinished_work_seconds').length, 1);
    assert.ok(Number(samples(text, 'workqueue_unfinished_work_seconds')[0]!.split(' ')[1]) > 0);
    assert.equal(samples(text, 'workqueue_longest_running_processor_seconds').length, 1);
    const le = samples(text, 'workqueue_queue_duration_seconds_bucket').map((l) => /le="([^"]+)"/.exec(l)?.[1]);
    assert.deepEqual(le, ['1e-8', '1e-7', '0.000001', '0.00001', '0.0001', '0.001', '0.01', '0.1', '1', '10', '100', '1000', '+Inf']);
  });

  test('rest client metrics with client-go labels', async () => {
    const metrics = new MetricsRegistry({ processMetrics: false });
    metrics.restClient.observeRequest({ method: 'GET', host: '127.0.0.1:6443', code: '200', latencySeconds: 0.01, rateLimiterSeconds: 0 });
    metrics.restClient.observeRequest({ method: 'PUT', host: '127.0.0.1:6443', code: '409', latencySeconds: 0.02, rateLimiterSeconds: 0.001 });
    const text = await metrics.text();
    assert.deepEqual(samples(text, 'rest_client_requests_total').sort(), [
      'rest_client_requests_total{code="200",method="GET",host="127.0.0.1:6443"} 1',
      'rest_client_requests_total{code="409",method="PUT",host="127.0.0.1:6443"} 1',
    ]);
    assert.deepEqual(samples(text, 'rest_client_request_duration_seconds_count').sort(), [
      'rest_client_request_duration_seconds_count{verb="GET",host="127.0.0.1:6443"} 1',
      'rest_client_request_duration_seconds_count{verb="PUT",host="127.0.0.1:6443"} 1',
    ]);
    assert.equal(samples(text, 'rest_client_rate_limiter_duration_seconds_count').length, 2);
  });

  test('leader election and informer metrics', async () => {
    const metrics = new MetricsRegistry({ processMetrics: false });
    metrics.leaderElection.leaderOff('op');
    metrics.leaderElection.leaderOn('op');
    metrics.leaderElection.slowpathExercised('op');
    metrics.informers.errored('pods', 'watch', 'Expired');
    metrics.informers.listed('pods', 3, 0.01);
    metrics.informers.synced('pods', 1700000000);
    metrics.informers.watchStarted('pods');
    const text = await metrics.text();
    assert.deepEqual(samples(text, 'leader_election_master_status'), ['leader_election_master_status{name="op"} 1']);
    assert.deepEqual(samples(text, 'leader_election_slowpath_total'), ['leader_election_slowpath_total{name="op"} 1']);
    assert.deepEqual(samples(text, 'informer_errors_total'), ['informer_errors_total{name="pods",phase="watch",reason="Expired"} 1']);
    assert.deepEqual(samples(text, 'informer_last_sync_timestamp_seconds'), ['informer_last_sync_timestamp_seconds{name="pods"} 1700000000']);
    assert.deepEqual(samples(text, 'informer_list_items'), ['informer_list_items{name="pods"} 3']);
    assert.deepEqual(samples(text, 'informer_watches_total'), ['informer_watches_total{name="pods"} 1']);
  });

  test('process metrics are on by default; registries are independent', async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry({ processMetrics: false });
    a.controller.reconcileTotal('x', 'success');
    assert.match(await a.text(), /^process_cpu_user_seconds_total /m);
    assert.match(await a.text(), /^nodejs_heap_size_used_bytes /m);
    assert.doesNotMatch(await b.text(), /process_cpu_user_seconds_total/);
    assert.doesNotMatch(await b.text(), /controller="x"/);
  });

  test('process collectors are made once per process: every registry shares the one set, under the same names', async () => {
    // Each set runs an event-loop delay monitor and a GC observer that nothing can stop:
    // one set per registry would leave 50 of each running here.
    const registries = Array.from({ length: 50 }, () => new MetricsRegistry());
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'process_cpu_seconds_total']) {
      const collectors = new Set(registries.map((r) => r.registry.getSingleMetric(name)));
      assert.equal(collectors.size, 1, `one ${name} collector for 50 registries`);
      assert.ok([...collectors][0], `${name} is registered`);
    }
    const text = await registries[49]!.text();
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'process_start_time_seconds', 'nodejs_eventloop_lag_seconds', 'nodejs_gc_duration_seconds', 'nodejs_version_info']) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), `${name} is exposed`);
    }
    // The CPU counter counts for the process, whichever registry is scraped.
    const cpu = (t: string) => Number(/^process_cpu_seconds_total (\S+)$/m.exec(t)?.[1]);
    const first = cpu(await registries[0]!.text());
    const spent = process.cpuUsage();
    while (process.cpuUsage(spent).user < 2000); // spend 2 ms of CPU
    assert.ok(cpu(await registries[1]!.text()) > first, 'a scrape of another registry continues the same counter');
  });

  test('a custom metric joins the registry', async () => {
    const { Counter } = await import('prom-client');
    const metrics = new MetricsRegistry({ processMetrics: false });
    new Counter({ name: 'sidecarset_injections_total', help: 'Sidecars injected', registers: [metrics.registry] }).inc(3);
    assert.match(await metrics.text(), /^sidecarset_injections_total 3$/m);
  });
});

describe('metricsHandler', () => {
  test('serves the text exposition on GET and HEAD, 405 otherwise', async () => {
    const metrics = new MetricsRegistry({ processMetrics: false });
    const queue = new WorkQueue<string>({ name: 'q', metricsProvider: metrics.workqueue });
    queue.add('k');
    const server = createServer(metricsHandler(metrics));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${base}/metrics`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(await res.text(), /^workqueue_adds_total\{name="q",controller="q"\} 1$/m);
      const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
      const post = await fetch(`${base}/metrics`, { method: 'POST' });
      assert.equal(post.status, 405);
      await post.text();
    } finally {
      queue.shutDown();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('also serves a bare prom-client Registry', async () => {
    const registry = new Registry();
    new PrometheusQueueMetrics(registry).added('bare');
    const server = createServer(metricsHandler(registry));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      assert.match(await res.text(), /workqueue_adds_total\{name="bare",controller="bare"\} 1/);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
