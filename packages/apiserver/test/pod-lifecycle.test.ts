/**
 * What the simulated cluster needs of the server, as kube-apiserver does it:
 * the pods/binding subresource (kube's BindingREST: spec.nodeName and
 * PodScheduled=True in one write, 201 Success; 409 for a bound or deleting
 * pod) and the graceful deletion of pods on a node (kube's
 * podStrategy.CheckGracefulDelete: deletionTimestamp at the end of the grace
 * period, the pod kept until a delete with grace 0; a shorter grace period
 * may move the deadline closer, never further). A pod bound to a node that is
 * not registered goes at once, as kube's pod garbage collector would see to.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
  await api.createNamespace('lifecycle');
  for (const name of ['node-1', 'node-2']) await api.ok('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } }, 201);
});
after(async () => {
  await api?.stop();
});

const pods = '/api/v1/namespaces/lifecycle/pods';
const pod = (name: string, spec: Json = {}): Json => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec } });
const binding = (name: string, node: string, meta: Json = {}): Json => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target: { apiVersion: 'v1', kind: 'Node', name: node } });

it('a Binding sets the node and PodScheduled=True, and answers 201 Success', async () => {
  const created = await api.ok('POST', pods, pod('bind-me'), 201);
  const r = await api.request('POST', `${pods}/bind-me/binding`, binding('bind-me', 'node-1', { uid: created.metadata.uid, annotations: { 'scheduled-by': 'test' } }));
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const bound = await api.ok('GET', `${pods}/bind-me`);
  assert.equal(bound.spec.nodeName, 'node-1');
  assert.equal(bound.metadata.annotations['scheduled-by'], 'test');
  const scheduled = bound.status.conditions.find((c: Json) => c.type === 'PodScheduled');
  assert.equal(scheduled.status, 'True');
  assert.match(scheduled.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(Number(bound.metadata.resourceVersion) > Number(created.metadata.resourceVersion));
});

it('a bound pod, a deleting one, a wrong name, uid or target are refused in kube\'s words', async () => {
  await api.ok('POST', pods, pod('taken', { nodeName: 'node-2' }), 201);
  const again = await api.request('POST', `${pods}/taken/binding`, binding('taken', 'node-1'));
  assert.equal(again.status, 409);
  assert.equal(again.body.message, 'Operation cannot be fulfilled on pods/binding "taken": pod taken is already assigned to node "node-2"');
  const mismatch = await api.request('POST', `${pods}/taken/binding`, binding('other', 'node-1'));
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.body.message, 'name in URL does not match name in Binding object');
  await api.ok('POST', pods, pod('free'), 201);
  const noTarget = await api.request('POST', `${pods}/free/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'free' }, target: { kind: 'Pod' } });
  assert.equal(noTarget.status, 422);
  assert.match(noTarget.body.message, /target\.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"/);
  assert.match(noTarget.body.message, /target\.name: Required value/);
  const staleUid = await api.request('POST', `${pods}/free/binding`, binding('free', 'node-1', { uid: 'not-its-uid' }));
  assert.equal(staleUid.status, 409);
  const missing = await api.request('POST', `${pods}/nobody/binding`, binding('nobody', 'node-1'));
  assert.equal(missing.status, 404);
  const held = { ...pod('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } };
  await api.ok('POST', pods, held, 201);
  await api.ok('DELETE', `${pods}/held`, undefined, 200);
  const deleting = await api.request('POST', `${pods}/held/binding`, binding('held', 'node-1'));
  assert.equal(deleting.status, 409);
  assert.equal(deleting.body.message, 'Operation cannot be fulfilled on pods/binding "held": pod held is being deleted, cannot be assigned to a host');
  await api.ok('PATCH', `${pods}/held`, { metadata: { finalizers: null } }, 200, { 'Content-Type': 'application/merge-patch+json' });
  const get = await api.request('GET', `${pods}/free/binding`);
  assert.equal(get.status, 405);
  assert.equal((await api.ok('GET', `${pods}/free`)).spec.nodeName, undefined);
});

it('the top-level bindings resource binds the pod its Binding names, as pods/binding does', async () => {
  const bindings = '/api/v1/namespaces/lifecycle/bindings';
  const discovered = (await api.ok('GET', '/api/v1')).resources.find((r: Json) => r.name === 'bindings');
  assert.deepEqual(discovered, { name: 'bindings', singularName: 'binding', namespaced: true, kind: 'Binding', verbs: ['create'] });

  await api.ok('POST', pods, pod('legacy'), 201);
  const r = await api.request('POST', bindings, binding('legacy', 'node-2'));
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const bound = await api.ok('GET', `${pods}/legacy`);
  assert.equal(bound.spec.nodeName, 'node-2');
  assert.equal(bound.status.conditions.find((c: Json) => c.type === 'PodScheduled').status, 'True');

  const again = await api.request('POST', bindings, binding('legacy', 'node-1'));
  assert.equal(again.status, 409);
  assert.equal(again.body.message, 'Operation cannot be fulfilled on pods/binding "legacy": pod legacy is already assigned to node "node-2"');
  const unnamed = await api.request('POST', bindings, { apiVersion: 'v1', kind: 'Binding', metadata: {}, target: { kind: 'Node', name: 'node-1' } });
  assert.equal(unnamed.status, 400);
  assert.equal(unnamed.body.message, 'Name parameter required.');
  const otherNamespace = await api.request('POST', bindings, binding('legacy', 'node-1', { namespace: 'default' }));
  assert.equal(otherNamespace.status, 400);
  assert.equal(otherNamespace.body.message, 'the namespace of the provided object does not match the namespace sent on the request');
  const noNamespace = await api.request('POST', '/api/v1/namespaces/nowhere/bindings', binding('legacy', 'node-1'));
  assert.equal(noNamespace.status, 404);
  assert.equal(noNamespace.body.message, 'namespaces "nowhere" not found');
  const missing = await api.request('POST', bindings, binding('nobody', 'node-1'));
  assert.equal(missing.status, 404);
  assert.equal(missing.body.message, 'pods "nobody" not found');
  assert.equal((await api.request('GET', bindings)).status, 405);
  assert.equal((await api.request('POST', `${bindings}/legacy`, binding('legacy', 'node-1'))).status, 404);
});

it('a pod on a node is deleted gracefully: a deadline, then gone on a delete with grace 0', async () => {
  await api.ok('POST', pods, pod('graceful', { nodeName: 'node-1', terminationGracePeriodSeconds: 30 }), 201);
  const before = Date.now();
  const marked = await api.ok('DELETE', `${pods}/graceful`, undefined, 200);
  assert.equal(marked.kind, 'Pod');
  assert.equal(marked.metadata.deletionGracePeriodSeconds, 30);
  const deadline = Date.parse(marked.metadata.deletionTimestamp);
  assert.ok(deadline >= Math.floor(before / 1000) * 1000 + 29_000 && deadline <= Date.now() + 31_000, marked.metadata.deletionTimestamp);
  // Still there; another delete without a shorter grace period changes nothing.
  const again = await api.ok('DELETE', `${pods}/graceful`, undefined, 200);
  assert.equal(again.metadata.resourceVersion, marked.metadata.resourceVersion);
  // A shorter grace period moves the deadline closer.
  const shorter = await api.ok('DELETE', `${pods}/graceful`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 10 }, 200);
  assert.equal(shorter.metadata.deletionGracePeriodSeconds, 10);
  assert.equal(Date.parse(shorter.metadata.deletionTimestamp), deadline - 20_000);
  // The kubelet's final delete.
  await api.ok('DELETE', `${pods}/graceful`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 }, 200);
  assert.equal((await api.request('GET', `${pods}/graceful`)).status, 404);
});

it('pods not on a node (or on one that is not registered), finished pods and grace 0 go at once', async () => {
  await api.ok('POST', pods, pod('unscheduled'), 201);
  await api.ok('DELETE', `${pods}/unscheduled`, undefined, 200);
  assert.equal((await api.request('GET', `${pods}/unscheduled`)).status, 404);

  await api.ok('POST', pods, pod('finished', { nodeName: 'node-1' }), 201);
  const status = await api.ok('GET', `${pods}/finished`);
  await api.ok('PUT', `${pods}/finished/status`, { ...status, status: { ...status.status, phase: 'Succeeded' } }, 200);
  await api.ok('DELETE', `${pods}/finished`, undefined, 200);
  assert.equal((await api.request('GET', `${pods}/finished`)).status, 404);

  await api.ok('POST', pods, pod('forced', { nodeName: 'node-1' }), 201);
  await api.ok('DELETE', `${pods}/forced?gracePeriodSeconds=0`, undefined, 200);
  assert.equal((await api.request('GET', `${pods}/forced`)).status, 404);

  await api.ok('POST', pods, pod('orphan', { nodeName: 'no-such-node' }), 201);
  await api.ok('DELETE', `${pods}/orphan`, undefined, 200);
  assert.equal((await api.request('GET', `${pods}/orphan`)).status, 404);
});

it('pods/log: a simulated log of the container\'s run, or the kubelet\'s errors as 400s', async () => {
  await api.ok('POST', pods, pod('unbound'), 201);
  const empty = await api.request('GET', `${pods}/unbound/log`);
  assert.equal(empty.status, 200, 'no node yet: an empty log');
  assert.equal(empty.text, '');
  const wrong = await api.request('GET', `${pods}/unbound/log?container=nope`);
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.message, 'container nope is not valid for pod unbound');

  await api.ok('POST', pods, pod('starting', { nodeName: 'node-1' }), 201);
  const bare = await api.request('GET', `${pods}/starting/log`);
  assert.equal(bare.body.message, 'container "web" in pod "starting" is not available');
  const current = await api.ok('GET', `${pods}/starting`);
  const waiting = { name: 'web', image: 'nginx', state: { waiting: { reason: 'ContainerCreating' } }, lastState: {}, ready: false, restartCount: 0 };
  await api.ok('PUT', `${pods}/starting/status`, { ...current, status: { phase: 'Pending', containerStatuses: [waiting] } });
  const creating = await api.request('GET', `${pods}/starting/log?container=web`);
  assert.equal(creating.status, 400);
  assert.equal(creating.body.reason, 'BadRequest');
  assert.equal(creating.body.message, 'container "web" in pod "starting" is waiting to start: ContainerCreating');

  const id = 'containerd://' + 'a'.repeat(64);
  const previousId = 'containerd://' + 'b'.repeat(64);
  const running = await api.ok('GET', `${pods}/starting`);
  await api.ok('PUT', `${pods}/starting/status`, {
    ...running,
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          ...waiting,
          image: 'docker.io/library/nginx:latest',
          containerID: id,
          restartCount: 1,
          state: { running: { startedAt: '2024-05-01T10:00:05Z' } },
          lastState: { terminated: { exitCode: 2, reason: 'Error', startedAt: '2024-05-01T10:00:00Z', finishedAt: '2024-05-01T10:00:04Z', containerID: previousId } },
        },
      ],
    },
  });
  const log = await api.request('GET', `${pods}/starting/log?timestamps=true`);
  assert.equal(log.status, 200);
  assert.match(log.headers['content-type'] ?? '', /^text\/plain/);
  assert.equal(
    log.text,
    '2024-05-01T10:00:05.000000000Z [simulated] node node-1 runs no real containers: this log is made up by the Operant simulated cluster\n' +
      `2024-05-01T10:00:05.000000000Z [simulated] container web started (image docker.io/library/nginx:latest, ${id})\n`,
  );
  const previous = await api.request('GET', `${pods}/starting/log?previous=true&tailLines=1`);
  assert.equal(previous.text, '[simulated] container web exited with code 2 (Error)\n');
  const limited = await api.request('GET', `${pods}/starting/log?limitBytes=11`);
  assert.equal(limited.text, '[simulated]');
  assert.equal((await api.request('GET', `${pods}/starting/log?limitBytes=0`)).body.message, 'limitBytes: Invalid value: 0: must be greater than 0');
  assert.equal((await api.request('GET', `${pods}/nobody/log`)).status, 404);
});
