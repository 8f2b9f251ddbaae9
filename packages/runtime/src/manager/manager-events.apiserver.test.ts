/**
 * mgr.eventRecorderFor (controller-runtime's GetEventRecorderFor) against the
 * embedded API server: one recorder per name, owned by the manager, which
 * writes what the controllers recorded (repeat counts included, which the
 * recorder otherwise batches for 30 s) before `start` resolves, and closes it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@operant/apimachinery';
import { ConfigMap, EventsV1Event } from '../builtins.js';
import { useApiServer } from '../testdata/api-server.js';
import { useCheckedLogs } from '../testdata/log-lines.js';
import { Manager } from './manager.js';

const api = useApiServer();
// Every line these managers log, the recorders' included, is checked for repeated keys.
const logs = useCheckedLogs();

function create(): Promise<Manager> {
  return Manager.create({ kubeconfig: { kubeconfigText: api.server.kubeconfig }, logger: logs.logger, client: { qps: Infinity } });
}

async function eventsIn(ns: string): Promise<KubeObject[]> {
  return (await api.client.list(EventsV1Event, { namespace: ns })).items;
}

describe('Manager.eventRecorderFor', () => {
  test('one recorder per name, reporting as that name; what controllers recorded, repeats included, is written when start resolves', async () => {
    const ns = await api.createNamespace('events');
    const mgr = await create();
    const recorder = mgr.eventRecorderFor('configmap-controller');
    assert.equal(mgr.eventRecorderFor('configmap-controller'), recorder, 'the same name gives the same recorder');
    assert.notEqual(mgr.eventRecorderFor('other-controller'), recorder);
    assert.equal(recorder.reportingController, 'configmap-controller');

    let reconciled = 0;
    mgr
      .controller('configmaps')
      .for(ConfigMap, { informer: { namespace: ns } })
      .reconcile(async (req, { client }) => {
        const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace });
        // Three times the same event: one Event, then a series whose count waits for the next flush.
        for (let i = 0; i < 3; i++) mgr.eventRecorderFor('configmap-controller').event(cm, 'Normal', 'Synced', 'ConfigMap synced successfully');
        reconciled++;
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    await api.client.create(ConfigMap, { metadata: { name: 'recorded', namespace: ns } });
    const deadline = Date.now() + 5000;
    while (reconciled === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(reconciled, 1);
    stop.abort();
    await running;

    const events = await eventsIn(ns);
    assert.equal(events.length, 1, JSON.stringify(events));
    const event = events[0] as KubeObject & {
      reason?: string;
      reportingController?: string;
      regarding?: { kind?: string; name?: string };
      series?: { count?: number };
    };
    assert.equal(event.reason, 'Synced');
    assert.equal(event.reportingController, 'configmap-controller');
    assert.deepEqual([event.regarding?.kind, event.regarding?.name], ['ConfigMap', 'recorded']);
    assert.equal(event.series?.count, 3, 'the repeat count was written at shutdown, not left for the 30 s flush');
  });

  test('a recorder asked for after shutdown records nothing, and never throws into a reconcile', async () => {
    const ns = await api.createNamespace('events');
    const mgr = await create();
    const stop = new AbortController();
    stop.abort();
    await mgr.start(stop.signal);
    const cm = await api.client.create(ConfigMap, { metadata: { name: 'late', namespace: ns } });
    const late = mgr.eventRecorderFor('late-controller');
    late.event(cm, 'Warning', 'TooLate', 'the manager has stopped');
    await late.flush();
    assert.deepEqual(await eventsIn(ns), []);
  });
});
