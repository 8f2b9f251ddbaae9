/**
 * The webhook metrics count per request in plain numbers and reach prom-client
 * when read: what a scrape shows must be what a call per event would have
 * made (values, series order, series touched by a cancelled-out gauge, resets).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Registry } from 'prom-client';
import { PendingCounts } from './pending-counts.js';
import { PrometheusWebhookMetrics } from './webhook-metrics.js';

function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`));
}

/** The same events through a metric called per event, for comparison. */
function direct(registry: Registry): PrometheusWebhookMetrics {
  return new PrometheusWebhookMetrics(registry);
}

describe('PrometheusWebhookMetrics', () => {
  test('a scrape shows every request counted since, in the order the series were first counted', async () => {
    const registry = new Registry();
    const metrics = direct(registry);
    metrics.registered('/a');
    metrics.registered('/b');
    metrics.requestStarted('/a');
    metrics.requestStarted('/b');
    metrics.requestFinished('/a', 415, 0.001);
    metrics.requestStarted('/a');
    metrics.requestFinished('/b', 404, 0.002);
    metrics.requestFinished('/a', 413, 0.003);
    metrics.admissionResponse('/b', false, 500);
    metrics.admissionResponse('/a', true, 200);
    metrics.admissionResponse('/b', false, 500);
    const text = await registry.metrics();
    assert.deepEqual(samples(text, 'controller_runtime_webhook_requests_total'), [
      'controller_runtime_webhook_requests_total{webhook="/a",code="200"} 0',
      'controller_runtime_webhook_requests_total{webhook="/a",code="500"} 0',
      'controller_runtime_webhook_requests_total{webhook="/b",code="200"} 0',
      'controller_runtime_webhook_requests_total{webhook="/b",code="500"} 0',
      'controller_runtime_webhook_requests_total{webhook="/a",code="415"} 1',
      'controller_runtime_webhook_requests_total{webhook="/b",code="404"} 1',
      'controller_runtime_webhook_requests_total{webhook="/a",code="413"} 1',
    ]);
    assert.deepEqual(samples(text, 'controller_runtime_webhook_requests_in_flight'), [
      'controller_runtime_webhook_requests_in_flight{webhook="/a"} 0',
      'controller_runtime_webhook_requests_in_flight{webhook="/b"} 0',
    ]);
    assert.deepEqual(samples(text, 'controller_runtime_webhook_admission_responses_total'), [
      'controller_runtime_webhook_admission_responses_total{webhook="/b",allowed="false",admission_code="500"} 2',
      'controller_runtime_webhook_admission_responses_total{webhook="/a",allowed="true",admission_code="200"} 1',
    ]);

    // Counted again after a scrape: added to what the metric holds, not counted twice.
    metrics.requestStarted('/a');
    metrics.requestFinished('/a', 415, 0.001);
    metrics.requestStarted('/b');
    const again = await registry.metrics();
    assert.ok(samples(again, 'controller_runtime_webhook_requests_total').includes('controller_runtime_webhook_requests_total{webhook="/a",code="415"} 2'));
    assert.ok(samples(again, 'controller_runtime_webhook_requests_in_flight').includes('controller_runtime_webhook_requests_in_flight{webhook="/b"} 1'));
  });

  test('a reset drops what was counted before it, as prom-client would', async () => {
    const registry = new Registry();
    const metrics = direct(registry);
    metrics.registered('/a');
    metrics.requestStarted('/a');
    metrics.requestFinished('/a', 200, 0.001);
    registry.resetMetrics();
    metrics.requestStarted('/a');
    metrics.requestFinished('/a', 500, 0.001);
    const text = await registry.metrics();
    assert.deepEqual(samples(text, 'controller_runtime_webhook_requests_total'), ['controller_runtime_webhook_requests_total{webhook="/a",code="500"} 1']);
    // The gauge went up and down after the reset: its series exists again, at 0.
    assert.deepEqual(samples(text, 'controller_runtime_webhook_requests_in_flight'), ['controller_runtime_webhook_requests_in_flight{webhook="/a"} 0']);
  });
});

describe('PendingCounts', () => {
  test('flushes into a counter and a gauge exactly what calls per event would have made', async () => {
    const pendingRegistry = new Registry();
    const directRegistry = new Registry();
    const pending = new PendingCounts<{ k: string }>();
    const pendingGauge = new PendingCounts<{ k: string }>();
    const counter: Counter<'k'> = new Counter({ name: 'c', help: 'c', labelNames: ['k'], registers: [pendingRegistry], collect: () => pending.flush(counter) });
    const gauge: Gauge<'k'> = new Gauge({ name: 'g', help: 'g', labelNames: ['k'], registers: [pendingRegistry], collect: () => pendingGauge.flush(gauge) });
    const directCounter = new Counter({ name: 'c', help: 'c', labelNames: ['k'], registers: [directRegistry] });
    const directGauge = new Gauge({ name: 'g', help: 'g', labelNames: ['k'], registers: [directRegistry] });
    for (const [key, delta] of [['y', 1], ['x', 1], ['y', 1], ['z', -1], ['x', -1], ['z', 1]] as const) {
      if (delta > 0) {
        pending.add(key, 1, () => ({ k: key }));
        directCounter.inc({ k: key });
      }
      pendingGauge.add(key, delta, () => ({ k: key }));
      directGauge.inc({ k: key }, delta);
    }
    assert.equal(await pendingRegistry.metrics(), await directRegistry.metrics());
  });
});
