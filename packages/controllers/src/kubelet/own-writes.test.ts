import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PodObject } from '../objects.js';
import { OwnStatusWrites } from './own-writes.js';

const key = 'default/web';
const running = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };

type Change = { status?: PodObject['status']; metadata?: Partial<PodObject['metadata']>; spec?: Partial<NonNullable<PodObject['spec']>> };

/** The pod at `resourceVersion`, as the cache holds it (bound to node-1, nginx:1.25, pending unless `change` says). */
function pod(resourceVersion: string, change: Change = {}): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion, labels: { app: 'web' }, ...change.metadata },
    spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx:1.25' }], ...change.spec },
    status: change.status ?? { phase: 'Pending' },
  };
}

describe('OwnStatusWrites', () => {
  test('an answered write: the event at the resourceVersion it made is ours, once; any other is not', () => {
    const own = new OwnStatusWrites();
    own.answered(key, own.sending(key, '10', running), '11');
    assert.equal(own.isOwn(pod('10'), pod('12', { status: running, metadata: { deletionTimestamp: '2026-12-03T10:00:00Z' } })), false, 'a later write');
    assert.equal(own.isOwn(pod('10'), pod('11', { status: running })), true);
    assert.equal(own.isOwn(pod('10'), pod('11', { status: running })), false, 'forgotten once seen');
  });

  test('an event before the answer: ours when it follows the version written on and carries the status sent, and then the answer arms nothing', () => {
    const own = new OwnStatusWrites();
    const write = own.sending(key, '10', running);
    assert.equal(own.isOwn(pod('10'), pod('11', { status: running })), true);
    own.answered(key, write, '11');
    assert.equal(own.isOwn(pod('11'), pod('11', { status: running })), false);
  });

  test("someone else's write on the version we wrote on keeps the old status: not ours (our write then conflicts)", () => {
    const own = new OwnStatusWrites();
    own.sending(key, '10', running);
    assert.equal(own.isOwn(pod('10'), pod('11', { metadata: { deletionTimestamp: '2026-12-03T10:00:00Z', deletionGracePeriodSeconds: 30 } })), false);
  });

  // After a relist the informer reports the jump from the cached version to the newest one: it
  // carries our status (written meanwhile) and any change made after it, which must bring a sync.
  const laterChanges: Array<[string, Change]> = [
    ['a graceful deletion', { metadata: { deletionTimestamp: '2026-12-03T10:00:00Z', deletionGracePeriodSeconds: 30 } }],
    ['a new image (an in-place restart)', { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } }],
    ['an ephemeral container', { spec: { ephemeralContainers: [{ name: 'debugger', image: 'busybox' }] } }],
    ['an annotation (a knob the kubelet reads)', { metadata: { annotations: { 'sim.operant.dev/exit-code': '1' } } }],
    ['a pod made again under the same name', { metadata: { uid: 'u2' } }],
  ];
  for (const [what, change] of laterChanges) {
    test(`a relist's jump past our unanswered write that also carries ${what} is not ours`, () => {
      const own = new OwnStatusWrites();
      own.sending(key, '10', running);
      assert.equal(own.isOwn(pod('10'), pod('14', { status: running, ...change })), false);
    });
  }

  test('a failed write is forgotten: its status coming from elsewhere is news', () => {
    const own = new OwnStatusWrites();
    own.sending(key, '10', running);
    own.forget(key);
    assert.equal(own.isOwn(pod('10'), pod('11', { status: running })), false);
  });
});
