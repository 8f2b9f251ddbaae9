/**
 * A SidecarSet's ControllerRevisions against the embedded API server (Kruise's
 * pkg/controller/sidecarset/sidecarset_processor_test.go, TestGetActiveRevisions
 * and TestTruncateHistory): a revision per distinct set of injected parts,
 * numbered in order; going back renumbers the earlier one; 100 changes leave
 * revisionHistoryLimit revisions; trimming keeps the revisions pods still name,
 * and says so when those keep the history over the limit.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerRevision, type Typed } from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { SidecarSetHashAnnotation, SidecarSetKindName } from '../src/sidecarset/annotations.js';
import { registerLatestRevision, trimHistory } from '../src/sidecarset/revision/history.js';
import { compareRevisions, revisionData } from '../src/sidecarset/revision/revision-data.js';
import { operatorNamespace, startTestEnv, type TestEnv } from './support.js';

describe('ControllerRevisions of a SidecarSet', () => {
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
  });
  after(async () => {
    await env.stop();
  });

  const revisionsOf = async (name: string) =>
    (await env.client.list(ControllerRevision, { namespace: operatorNamespace, labelSelector: { [SidecarSetKindName]: name } })).items.sort(compareRevisions);

  it('TestGetActiveRevisions: created, updated, rolled back, and trimmed to revisionHistoryLimit', async () => {
    const set = await env.client.create(SidecarSet, {
      metadata: { name: 'active' },
      spec: { selector: { matchLabels: { app: 'sidecar' } }, containers: [{ name: 'test-sidecar', image: 'test-image:v2' }], revisionHistoryLimit: 10 },
    });
    // Case 1: the first revision.
    let latest = await registerLatestRevision(env.client, set, [], operatorNamespace);
    assert.equal(latest.revision.revision, 1);
    assert.equal(latest.collisionCount, 0);
    assert.equal(latest.revision.metadata.ownerReferences![0]!.uid, set.metadata.uid);

    // Case 2: new injected parts make revision 2, once however often they are registered.
    const changed: SidecarSet = {
      ...set,
      spec: { ...set.spec!, initContainers: [{ name: 'emptyInitC', image: 'busybox' }], volumes: [{ name: 'emptyVolume', emptyDir: {} }], imagePullSecrets: [{ name: 'emptySecret' }] },
    };
    for (let i = 0; i < 5; i++) {
      latest = await registerLatestRevision(env.client, changed, [], operatorNamespace);
      assert.equal(latest.revision.revision, 2);
      const spec = (latest.revision.data as { spec: Record<string, unknown> }).spec;
      assert.deepEqual(Object.keys(spec).sort(), ['$patch', 'containers', 'imagePullSecrets', 'initContainers', 'patchPodMetadata', 'volumes']);
      assert.equal(spec.$patch, 'replace');
    }

    // Case 3: back to the first parts: revision 1 becomes revision 3, nothing is added.
    for (let i = 0; i < 5; i++) {
      latest = await registerLatestRevision(env.client, set, [], operatorNamespace);
      assert.equal(latest.revision.revision, 3);
    }
    assert.deepEqual((await revisionsOf('active')).map((r) => r.revision), [2, 3]);

    // Case 4: 100 changes leave 10 revisions, the newest.
    for (let i = 0; i < 100; i++) {
      const next: SidecarSet = { ...set, spec: { ...set.spec!, containers: [{ name: 'test-sidecar', image: `test-image:${i}` }] } };
      latest = await registerLatestRevision(env.client, next, [], operatorNamespace);
      assert.equal(latest.trimError, undefined);
    }
    const left = await revisionsOf('active');
    assert.equal(left.length, 10);
    assert.equal(left.at(-1)!.metadata.name, latest.revision.metadata.name);
    assert.equal(JSON.stringify(left.at(-1)!.data), revisionData({ ...set, spec: { ...set.spec!, containers: [{ name: 'test-sidecar', image: 'test-image:99' }] } }));
  });

  it('TestTruncateHistory: revisions in use are kept; when they keep the history over the limit, trimming says so', async () => {
    const set = await env.client.create(SidecarSet, {
      metadata: { name: 'sidecar' },
      spec: { selector: { matchLabels: { app: 'sidecar' } }, containers: [{ name: 'test-sidecar', image: 'test-image:v2' }], revisionHistoryLimit: 10 },
    });
    const name = (i: number) => `sidecar-${i}`;
    /** 15 revisions, and 100 pods naming the first `used` of them in turn. */
    const reset = async (used: number) => {
      for (const r of await revisionsOf('sidecar')) await env.client.delete(ControllerRevision, r.metadata.name!, { namespace: operatorNamespace });
      const revisions = [];
      for (let i = 1; i <= 15; i++) {
        revisions.push(
          await env.client.create(ControllerRevision, {
            metadata: { name: name(i), namespace: operatorNamespace, labels: { [SidecarSetKindName]: 'sidecar' } },
            revision: i,
          }),
        );
      }
      const pods: Array<Typed<corev1.Pod>> = [];
      for (let i = 0; i < 100; i++) {
        pods.push({ metadata: { name: `pod-${i}`, annotations: { [SidecarSetHashAnnotation]: JSON.stringify({ sidecar: { hash: '', controllerRevision: name((i % used) + 1) } }) } } });
      }
      return { revisions, pods };
    };

    for (let used = 1; used <= 9; used++) {
      const { revisions, pods } = await reset(used);
      await trimHistory(env.client, set, revisions, pods);
    }
    const failing: Array<[number, number]> = [
      [10, 11],
      [11, 12],
      [14, 15],
      [15, 15],
      [20, 15],
    ];
    for (const [used, actual] of failing) {
      const { revisions, pods } = await reset(used);
      await assert.rejects(trimHistory(env.client, set, revisions, pods), { message: `failed to limit the number of stored revisions, limited: 10, actual: ${actual}, name: sidecar` });
    }

    const { revisions, pods } = await reset(8);
    await trimHistory(env.client, set, revisions, pods);
    assert.deepEqual(
      (await revisionsOf('sidecar')).map((r) => r.metadata.name),
      [1, 2, 3, 4, 5, 6, 7, 8, 14, 15].map(name),
    );
  });
});
