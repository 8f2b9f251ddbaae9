/**
 * The event recorder against the embedded API server: events.k8s.io/v1 and
 * core/v1 Events, repeats folded into a series written on the batching
 * interval, distinct events for distinct reasons, a bounded queue that drops
 * with a warning, retries of transient failures, shutdown, and the real
 * `kubectl describe` showing what was recorded.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '@operant/apimachinery';
import { ConfigMap, CoreEvent, EventsV1Event, Namespace } from '../builtins.js';
import { Client } from '../client/index.js';
import { useApiServer } from '../testdata/api-server.js';
import { CapturingLogger } from '../testdata/capturing-logger.js';
import { EventRecorder, type EventRecorderOptions } from './recorder.js';
import { objectReference } from './reference.js';

const kubectlPath = '/usr/bin/kubectl';
const controllerName = 'example.com/test-controller';

const recorders: EventRecorder[] = [];

// Registered before the fixture: after hooks run in registration order, so recorders write what is pending while the server is still up.
after(async () => {
  await Promise.all(recorders.map((r) => r.close()));
});
const api = useApiServer();

function newRecorder(options: Partial<EventRecorderOptions> = {}, c: Client = api.client): { recorder: EventRecorder; logs: CapturingLogger } {
  const logs = new CapturingLogger();
  const recorder = new EventRecorder(c, { reportingController: controllerName, reportingInstance: 'test-1', logger: logs, ...options });
  recorders.push(recorder);
  return { recorder, logs };
}

/** A fresh namespace and a ConfigMap in it to record events about. */
async function subject(name = 'subject'): Promise<KubeObject> {
  const ns = await api.createNamespace('events');
  return api.client.get(ConfigMap, (await api.client.create(ConfigMap, { metadata: { name, namespace: ns } })).metadata.name!, { namespace: ns });
}

async function eventsIn(ns: string): Promise<KubeObject[]> {
  return (await api.client.list(EventsV1Event, { namespace: ns })).items;
}

/** Polls until `check` holds; rejects with `what` after a deadline. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('events.k8s.io/v1', () => {
  test('repeats create one event whose series count is written on the batching interval', async () => {
    const cm = await subject('web');
    const ns = cm.metadata.namespace!;
    const { recorder, logs } = newRecorder({ seriesFlushIntervalMs: 50 });
    for (let i = 0; i < 3; i++) recorder.eventf(cm, null, 'Normal', 'Synced', 'Reconcile', 'synced %s with %d keys', 'web', 2);

    const series = await waitFor('a series of 3', async () => {
      const [event, ...more] = await eventsIn(ns);
      assert.equal(more.length, 0, 'one event for identical calls');
      const s = event?.series as { count: number; lastObservedTime: string } | undefined;
      return s?.count === 3 ? { event, s } : undefined;
    });
    const { event } = series;
    assert.match(event.metadata.name!, /^web\.[0-9a-f]+$/);
    assert.equal(event.note, 'synced web with 2 keys');
    assert.equal(event.reason, 'Synced');
    assert.equal(event.action, 'Reconcile');
    assert.equal(event.type, 'Normal');
    assert.equal(event.reportingController, controllerName);
    assert.equal(event.reportingInstance, 'test-1');
    assert.match(String(event.eventTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(series.s.lastObservedTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual(event.regarding, {
      apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'web', uid: cm.metadata.uid, resourceVersion: cm.metadata.resourceVersion,
    });
    assert.equal(logs.at('warn').length + logs.at('error').length, 0);
  });

  test('a repeat about a newer version of the object counts in the same series (as the event correlator keys without resourceVersion)', async () => {
    const cm = await subject('changing');
    const ns = cm.metadata.namespace!;
    const { recorder } = newRecorder();
    recorder.event(cm, 'Normal', 'Synced', 'synced');
    const newer = await api.client.patch(ConfigMap, cm.metadata.name!, { data: { changed: 'yes' } }, { namespace: ns, patchType: 'merge' });
    assert.notEqual(newer.metadata.resourceVersion, cm.metadata.resourceVersion);
    recorder.event(newer, 'Normal', 'Synced', 'synced');
    await recorder.flush();
    const events = await eventsIn(ns);
    assert.equal(events.length, 1);
    assert.equal((events[0]?.series as { count: number } | undefined)?.count, 2);
  });

  test('different reasons, notes or related objects are different events', async () => {
    const cm = await subject();
    const ns = cm.metadata.namespace!;
    const other = await api.client.create(ConfigMap, { metadata: { name: 'other', namespace: ns } });
    const { recorder } = newRecorder();
    recorder.eventf(cm, null, 'Normal', 'Created', 'Create', 'made it');
    recorder.eventf(cm, null, 'Warning', 'Failed', 'Create', 'could not');
    recorder.eventf(cm, null, 'Warning', 'Failed', 'Create', 'could not, again differently');
    recorder.eventf(cm, other, 'Normal', 'Created', 'Create', 'made it');
    recorder.event(cm, 'Normal', 'Created', 'made it'); // action = reason: another key
    recorder.eventf(cm, null, 'Normal', 'Created', 'Create', 'made it'); // a repeat of the first
    await recorder.flush();
    const events = await eventsIn(ns);
    assert.equal(events.length, 5);
    assert.equal(new Set(events.map((e) => e.metadata.name)).size, 5);
    const related = events.find((e) => e.related);
    assert.equal((related?.related as { name: string }).name, 'other');
    const repeated = events.filter((e) => e.series);
    assert.deepEqual(repeated.map((e) => [e.reason, e.action, (e.series as { count: number }).count]), [['Created', 'Create', 2]]);
    const simple = events.find((e) => e.action === 'Created');
    assert.equal(simple?.note, 'made it');
  });

  test('events about cluster-scoped objects go to the default namespace; long notes are cut to 1024 bytes', async () => {
    const namespace = await api.client.create(Namespace, { metadata: { name: 'cluster-scoped-subject' } });
    const { recorder } = newRecorder();
    recorder.event(namespace, 'Normal', 'Labelled', 'é'.repeat(600)); // 1200 bytes
    await recorder.flush();
    const [event] = (await eventsIn('default')).filter((e) => (e.regarding as { name: string }).name === 'cluster-scoped-subject');
    assert.match(event.metadata.name!, /^cluster-scoped-subject\.[0-9a-f]+$/);
    assert.equal((event.regarding as { namespace?: string }).namespace, undefined);
    assert.equal(event.note, 'é'.repeat(512));
  });

  test('two processes recording about objects of the same name in the same millisecond both write their events', async () => {
    // As a Foo's controller and the deployment controller record about `example-foo` (the Foo, its Deployment) at once.
    const cm = await subject('twin');
    const ns = cm.metadata.namespace!;
    const sameMs = Date.now();
    const foo = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', metadata: { name: 'twin', namespace: ns, uid: 'foo-uid' } };
    const first = newRecorder({ reportingController: 'sample-controller', now: () => sameMs });
    const second = newRecorder({ reportingController: 'deployment-controller', now: () => sameMs });
    first.recorder.event(foo, 'Normal', 'Synced', 'Foo synced successfully');
    second.recorder.event(cm, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set twin-1 to 1');
    await Promise.all([first.recorder.flush(), second.recorder.flush()]);
    const reasons = (await eventsIn(ns)).map((e) => e.reason).sort();
    assert.deepEqual(reasons, ['ScalingReplicaSet', 'Synced'], `names: ${(await eventsIn(ns)).map((e) => e.metadata.name).join(', ')}; logged: ${[...first.logs.lines, ...second.logs.lines].map((l) => l.msg).join(', ')}`);
  });

  test('a full queue drops new events with a warning, and never throws', async () => {
    const cm = await subject();
    let now = Date.now();
    const { recorder, logs } = newRecorder({ queueSize: 2, now: () => now, dropWarningIntervalMs: 10_000 });
    for (let i = 0; i < 6; i++) recorder.eventf(cm, null, 'Normal', `Reason${i}`, 'Act', 'n');
    assert.equal(recorder.droppedEvents, 4);
    const warnings = () => logs.at('warn').filter((l) => l.msg === 'event queue is full, dropping event');
    // One warning for the burst: the first drop's; the next three are counted, not logged.
    assert.deepEqual(warnings().map((w) => [w.fields.reason, w.fields.dropped, w.fields.droppedTotal]), [['Reason2', 1, 1]]);
    // Past the interval, the next drop warns again and says how many went meanwhile.
    now += 10_000;
    recorder.eventf(cm, null, 'Normal', 'Reason6', 'Act', 'n');
    assert.equal(recorder.droppedEvents, 5);
    assert.deepEqual(warnings().map((w) => [w.fields.reason, w.fields.dropped, w.fields.droppedTotal]), [['Reason2', 1, 1], ['Reason6', 4, 5]]);
    await recorder.flush();
    assert.deepEqual((await eventsIn(cm.metadata.namespace!)).map((e) => e.reason).sort(), ['Reason0', 'Reason1']);
    // Room again once the queue has drained.
    recorder.eventf(cm, null, 'Normal', 'Later', 'Act', 'n');
    await recorder.flush();
    assert.equal((await eventsIn(cm.metadata.namespace!)).length, 3);
  });

  test('a series ends after the finish time: the next repeat creates a new event, and the last count is written', async () => {
    const cm = await subject();
    let now = Date.parse('2024-01-01T00:00:00Z');
    const { recorder } = newRecorder({ now: () => now, seriesFinishMs: 60_000 });
    recorder.event(cm, 'Normal', 'Tick', 'tick');
    now += 30_000;
    recorder.event(cm, 'Normal', 'Tick', 'tick'); // within 60 s of the first: series of 2
    now += 61_000;
    recorder.event(cm, 'Normal', 'Tick', 'tick'); // 61 s after the last: a new event
    await recorder.flush();
    const events = (await eventsIn(cm.metadata.namespace!)).sort((a, b) => String(a.eventTime).localeCompare(String(b.eventTime)));
    assert.equal(events.length, 2);
    assert.equal(events[0].eventTime, '2024-01-01T00:00:00.000000Z');
    assert.deepEqual(events[0].series, { count: 2, lastObservedTime: '2024-01-01T00:00:30.000000Z' });
    assert.equal(events[1].eventTime, '2024-01-01T00:01:31.000000Z');
    assert.equal(events[1].series, undefined);
  });

  test('unsupported types and unreferenceable objects are logged and not sent', async () => {
    const cm = await subject();
    const { recorder, logs } = newRecorder();
    recorder.event(cm, 'Bad' as 'Normal', 'R', 'm');
    recorder.event({ metadata: { name: 'typeless', namespace: cm.metadata.namespace } }, 'Normal', 'R', 'm');
    await recorder.flush();
    assert.equal(logs.at('error').length, 2);
    assert.equal((await eventsIn(cm.metadata.namespace!)).length, 0);
    // A reference made with the Kind works for objects without type meta.
    recorder.event(objectReference({ metadata: { name: 'typeless', namespace: cm.metadata.namespace } }, ConfigMap), 'Normal', 'R', 'm');
    await recorder.flush();
    assert.equal(((await eventsIn(cm.metadata.namespace!))[0].regarding as { kind: string }).kind, 'ConfigMap');
  });

  test('a refused event is logged once and not retried', async () => {
    const { recorder, logs } = newRecorder({ retryDelayMs: 1 });
    recorder.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'no-such-namespace' } }, 'Normal', 'R', 'm');
    await recorder.flush();
    assert.equal(logs.at('warn').length, 0);
    const [error] = logs.at('error');
    assert.equal(error.msg, 'unable to write event (giving up)');
    assert.equal(error.fields.attempt, 1);
  });

  test("an event refused because its namespace is terminating is dropped quietly, as client-go's recorder drops it", async () => {
    const cm = await subject('held');
    const ns = cm.metadata.namespace!;
    // A finalizer holds the ConfigMap, and so the namespace in Terminating, until the test lets it go.
    await api.client.patch(ConfigMap, 'held', { metadata: { finalizers: ['example.com/hold'] } }, { namespace: ns, patchType: 'merge' });
    await api.client.delete(Namespace, ns);
    try {
      const { recorder, logs } = newRecorder({ retryDelayMs: 1 });
      recorder.event(cm, 'Normal', 'Pulled', 'into a namespace on its way out');
      await recorder.flush();
      // A test's namespace is deleted as the test ends, while the simulated kubelets and the operator still record: not an error.
      assert.deepEqual(logs.at('error'), []);
      assert.deepEqual(logs.at('warn'), []);
      const [rejected] = logs.at('debug').filter((l) => l.msg === 'server rejected event (will not retry)');
      assert.equal(rejected?.fields.attempt, 1);
    } finally {
      await api.client.patch(ConfigMap, 'held', { metadata: { finalizers: null } }, { namespace: ns, patchType: 'merge' });
    }
  });

  test('transport failures are retried, then given up with an error log', async () => {
    // The admin's config, on a port nothing listens on: every connection is refused.
    const downClient = Client.fromConfig({ ...api.kubeconfig.config, server: 'https://127.0.0.1:1' }, { qps: Infinity });
    const { recorder, logs } = newRecorder({ maxAttempts: 3, retryDelayMs: 5 }, downClient);
    assert.doesNotThrow(() => recorder.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'ns' } }, 'Normal', 'R', 'm'));
    await recorder.flush();
    assert.deepEqual(logs.at('warn').map((l) => [l.msg, l.fields.attempt]), [
      ['unable to write event (will retry)', 1],
      ['unable to write event (will retry)', 2],
    ]);
    assert.deepEqual(logs.at('error').map((l) => [l.msg, l.fields.attempt]), [['unable to write event (giving up)', 3]]);
    downClient.close();
  });

  test('close writes what is pending, including series counts, and ignores later calls', async () => {
    const cm = await subject();
    const { recorder } = newRecorder(); // default 30 s batching: only close writes the count
    recorder.event(cm, 'Normal', 'Done', 'done');
    recorder.event(cm, 'Normal', 'Done', 'done');
    await recorder.close();
    const [event, ...rest] = await eventsIn(cm.metadata.namespace!);
    assert.equal(rest.length, 0);
    assert.equal((event.series as { count: number }).count, 2);
    recorder.event(cm, 'Normal', 'AfterClose', 'ignored');
    await recorder.flush();
    assert.equal((await eventsIn(cm.metadata.namespace!)).length, 1);
  });

  test('aborting the signal drops what is queued', async () => {
    const cm = await subject();
    const ac = new AbortController();
    const { recorder, logs } = newRecorder({ signal: ac.signal });
    for (let i = 0; i < 5; i++) recorder.event(cm, 'Normal', `R${i}`, 'm');
    ac.abort(); // before the worker's first turn
    await recorder.close();
    assert.equal((await eventsIn(cm.metadata.namespace!)).length, 0);
    assert.deepEqual(logs.at('warn').map((l) => l.fields.dropped), [5]);
  });
});

describe('core/v1', () => {
  test('writes involvedObject, count and timestamps, and patches the count', async () => {
    const cm = await subject('legacy');
    const ns = cm.metadata.namespace!;
    const { recorder } = newRecorder({ api: 'v1' });
    recorder.eventf(cm, null, 'Warning', 'Invalid', 'Validate', 'bad key %j', 'x');
    await recorder.flush();
    let [event] = (await api.client.list(CoreEvent, { namespace: ns })).items;
    assert.deepEqual(
      { count: event.count, type: event.type, reason: event.reason, message: event.message, source: event.source, reportingComponent: event.reportingComponent },
      { count: 1, type: 'Warning', reason: 'Invalid', message: 'bad key "x"', source: { component: controllerName }, reportingComponent: controllerName },
    );
    assert.equal((event.involvedObject as { uid: string }).uid, cm.metadata.uid);
    assert.match(String(event.firstTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    recorder.eventf(cm, null, 'Warning', 'Invalid', 'Validate', 'bad key %j', 'x');
    recorder.eventf(cm, null, 'Warning', 'Invalid', 'Validate', 'bad key %j', 'x');
    await recorder.flush();
    const items = (await api.client.list(CoreEvent, { namespace: ns })).items;
    assert.equal(items.length, 1);
    [event] = items;
    assert.equal(event.count, 3);
    assert.ok(String(event.lastTimestamp) >= String(event.firstTimestamp));
  });
});

describe('kubectl describe', () => {
  test('shows events recorded through events.k8s.io/v1, with the series count', async (t) => {
    if (!existsSync(kubectlPath)) {
      t.skip('kubectl not found at /usr/bin/kubectl');
      return;
    }
    const cm = await subject('described');
    const { recorder } = newRecorder();
    for (let i = 0; i < 3; i++) recorder.eventf(cm, null, 'Warning', 'ConfigInvalid', 'Validate', 'key mode must be fast or slow');
    recorder.event(cm, 'Normal', 'Synced', 'synced to 2 pods');
    await recorder.flush();

    const dir = mkdtempSync(join(tmpdir(), 'operant-events-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        kubectlPath,
        ['--kubeconfig', api.kubeconfig.path, 'describe', 'configmap', 'described', '-n', cm.metadata.namespace!],
        { env: { ...process.env, KUBECACHEDIR: join(dir, 'cache') }, timeout: 30_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`kubectl failed: ${stderr}`)) : resolve(stdout)),
      );
    });
    const events = out.slice(out.indexOf('Events:'));
    t.diagnostic(events);
    assert.match(events, /Type\s+Reason\s+Age\s+From\s+Message/, out);
    assert.match(events, /Warning\s+ConfigInvalid\s+.*\(x3 over .*\)\s+example\.com\/test-controller\s+key mode must be fast or slow/, out);
    assert.match(events, /Normal\s+Synced\s+\S+\s+example\.com\/test-controller\s+synced to 2 pods/, out);
  });
});
