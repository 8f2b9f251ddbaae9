/**
 * The statefulset, daemonset, job and cronjob controllers against the
 * embedded API server, over HTTPS, on a clock a hundred times faster than the
 * wall's (a cron minute passes in 0.6 s). Every wait is a watch until a
 * condition holds, never a sleep; the order of pod events is checked as the
 * watch delivers them.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Client, CoreEvent, CronJob, DaemonSet, Job, Namespace, PersistentVolumeClaim, Pod, StatefulSet, StorageClass, type Kind, type KubeObject } from '@operant/runtime';
import { acceleratedClock } from './clock.js';
import { exitCodeAnnotation, runSecondsAnnotation } from './kubelet/pod-sync.js';
import type { PodObject } from './objects.js';
import { useTestCluster } from './testdata/test-cluster.js';
import { watchUntil, watchUntilAfterList } from './testdata/watch-until.js';

let client: Client;
useTestCluster({ nodes: 3, clock: acceleratedClock(100) }, (env) => {
  client = env.client;
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function until<T extends KubeObject>(kind: Kind<T>, ns: string | undefined, check: (o: Map<string, T>) => boolean, onEvent?: (type: string, obj: T, o: Map<string, T>) => void, timeoutMs?: number) {
  return watchUntil(client, kind, ns, check, onEvent, timeoutMs);
}

/** Lists now and watches on until `check` holds (in `done`): what the test does after awaiting it arrives as events. */
function watching<T extends KubeObject>(kind: Kind<T>, ns: string | undefined, check: (o: Map<string, T>) => boolean, onEvent?: (type: string, obj: T, o: Map<string, T>) => void, timeoutMs?: number) {
  return watchUntilAfterList(client, kind, ns, check, onEvent, timeoutMs);
}

async function namespace(name: string): Promise<string> {
  await client.create(Namespace, { metadata: { name } });
  return name;
}

const isReady = (p: Json): boolean => (p.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');
const podTemplate = (app: string, extra: Json = {}): Json => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...extra },
});

function statefulSet(name: string, ns: string, spec: Json = {}): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: ns },
    spec: { serviceName: name, replicas: 3, selector: { matchLabels: { app: name } }, template: podTemplate(name), ...spec },
  };
}

describe('statefulset controller', () => {
  it('OrderedReady: web-0, web-1, web-2, each after the one before is ready; scale-down removes them in reverse', async () => {
    const ns = await namespace('sts-ordered');
    const created: string[] = [];
    const violations: string[] = [];
    const pods = await watching(Pod, ns, (o) => o.size === 3 && [...o.values()].every(isReady), (type, pod, o) => {
      if (type !== 'ADDED') return;
      created.push(pod.metadata.name!);
      const ordinal = Number(pod.metadata.name!.split('-').pop());
      for (let lower = 0; lower < ordinal; lower++) {
        const before = o.get(`web-${lower}`);
        if (!before || !isReady(before)) violations.push(`web-${ordinal} created before web-${lower} was ready`);
      }
    });
    await client.create(StatefulSet, statefulSet('web', ns) as never);
    const ready = await pods.done;
    assert.deepEqual(created, ['web-0', 'web-1', 'web-2']);
    assert.deepEqual(violations, []);
    const web1 = ready.get('web-1') as Json;
    assert.equal(web1.spec.hostname, 'web-1');
    assert.equal(web1.spec.subdomain, 'web');
    assert.equal(web1.metadata.labels['statefulset.kubernetes.io/pod-name'], 'web-1');
    assert.equal(web1.metadata.labels['apps.kubernetes.io/pod-index'], '1');
    assert.match(web1.metadata.labels['controller-revision-hash'], /^web-[a-z0-9]+$/);
    const sts = await until(StatefulSet, ns, (o) => (o.get('web') as Json | undefined)?.status?.readyReplicas === 3);
    const st = (sts.get('web') as Json).status;
    assert.equal(st.currentRevision, st.updateRevision);
    assert.equal(st.availableReplicas, 3);

    const deleted: string[] = [];
    const gone = await watching(Pod, ns, (o) => o.size === 0, (type, pod) => {
      if ((type === 'MODIFIED' && pod.metadata.deletionTimestamp && !deleted.includes(pod.metadata.name!)) || (type === 'DELETED' && !deleted.includes(pod.metadata.name!))) deleted.push(pod.metadata.name!);
    });
    await client.patch(StatefulSet, 'web', { spec: { replicas: 0 } }, { namespace: ns, patchType: 'merge' });
    await gone.done;
    assert.deepEqual(deleted, ['web-2', 'web-1', 'web-0']);
  });

  it('Parallel: every pod at once, without waiting for readiness', async () => {
    const ns = await namespace('sts-parallel');
    let createdBeforeAnyReady = 0;
    const done = await watching(Pod, ns, (o) => o.size === 4 && [...o.values()].every(isReady), (type, _pod, o) => {
      if (type === 'ADDED' && ![...o.values()].some(isReady)) createdBeforeAnyReady++;
    });
    await client.create(StatefulSet, statefulSet('db', ns, { replicas: 4, podManagementPolicy: 'Parallel' }) as never);
    await done.done;
    assert.ok(createdBeforeAnyReady > 1, `${createdBeforeAnyReady} pods were created before any was ready`);
  });

  it('a partition keeps the pods below it on the current revision; lowering it rolls the rest, highest first', async () => {
    const ns = await namespace('sts-partition');
    await client.create(StatefulSet, statefulSet('kv', ns, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }) as never);
    await until(Pod, ns, (o) => o.size === 3 && [...o.values()].every(isReady));
    const image = (p: Json): string => p.spec.containers[0].image;
    await client.patch(StatefulSet, 'kv', { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } } } }, { namespace: ns, patchType: 'strategic' });
    const partial = await until(StatefulSet, ns, (o) => (o.get('kv') as Json | undefined)?.status?.updatedReplicas === 1 && (o.get('kv') as Json).status.readyReplicas === 3);
    const pods = (await client.list(Pod, { namespace: ns })).items as Json[];
    assert.deepEqual(pods.map((p) => [p.metadata.name, image(p)]).sort(), [['kv-0', 'nginx:1.27'], ['kv-1', 'nginx:1.27'], ['kv-2', 'nginx:1.28']]);
    const st = (partial.get('kv') as Json).status;
    assert.notEqual(st.currentRevision, st.updateRevision);
    assert.equal(st.currentReplicas, 2);

    const replaced: string[] = [];
    const rolled = await watching(Pod, ns, (o) => [...o.values()].every((p) => image(p) === 'nginx:1.28' && isReady(p)) && o.size === 3, (type, pod) => {
      if (type === 'ADDED') replaced.push(pod.metadata.name!);
    });
    await client.patch(StatefulSet, 'kv', { spec: { updateStrategy: { rollingUpdate: { partition: 0 } } } }, { namespace: ns, patchType: 'merge' });
    await rolled.done;
    assert.deepEqual(replaced, ['kv-1', 'kv-0']);
    const done = await until(StatefulSet, ns, (o) => (o.get('kv') as Json | undefined)?.status?.currentRevision === (o.get('kv') as Json | undefined)?.status?.updateRevision);
    assert.equal((done.get('kv') as Json).status.updatedReplicas, 3);
  });
});

describe('statefulset controller: OnDelete', () => {
  it('a template change replaces no pod; a pod someone deletes comes back on the new revision', async () => {
    const ns = await namespace('sts-ondelete');
    await client.create(StatefulSet, statefulSet('od', ns, { updateStrategy: { type: 'OnDelete' } }) as never);
    await until(Pod, ns, (o) => o.size === 3 && [...o.values()].every(isReady));
    const image = (p: Json): string => p.spec.containers[0].image;
    const before = new Map(((await client.list(Pod, { namespace: ns })).items as Json[]).map((p) => [p.metadata.name as string, p.metadata.uid as string]));
    await client.patch(StatefulSet, 'od', { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } } } }, { namespace: ns, patchType: 'strategic' });
    const seen = await until(StatefulSet, ns, (o) => {
      const st = (o.get('od') as Json | undefined)?.status;
      return st?.observedGeneration === 2 && !!st.updateRevision && st.updateRevision !== st.currentRevision;
    });
    assert.equal((seen.get('od') as Json).status.updatedReplicas ?? 0, 0);
    const untouched = (await client.list(Pod, { namespace: ns })).items as Json[];
    assert.deepEqual(untouched.map((p) => [p.metadata.name, p.metadata.uid, image(p)]).sort(), [...before].map(([n, uid]) => [n, uid, 'nginx:1.27']).sort());

    await client.delete(Pod, 'od-1', { namespace: ns });
    const back = await until(Pod, ns, (o) => {
      const p = o.get('od-1') as Json | undefined;
      return !!p && p.metadata.uid !== before.get('od-1') && isReady(p);
    });
    assert.deepEqual([...back.values()].map((p) => [p.metadata.name, image(p as Json)]).sort(), [['od-0', 'nginx:1.27'], ['od-1', 'nginx:1.28'], ['od-2', 'nginx:1.27']]);
    const st = (await until(StatefulSet, ns, (o) => (o.get('od') as Json | undefined)?.status?.updatedReplicas === 1)).get('od') as Json;
    assert.notEqual(st.status.currentRevision, st.status.updateRevision, 'the set stays between revisions until every pod is replaced');
  });
});

describe('statefulset controller: volumeClaimTemplates', () => {
  const claimTemplate = { metadata: { name: 'data', labels: { tier: 'storage' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
  const bound = (o: Map<string, Json>, names: string[]): boolean => names.every((n) => o.get(n)?.status?.phase === 'Bound');

  before(async () => {
    await client.create(StorageClass, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'rancher.io/local-path',
    } as never);
  });

  it('a claim <template>-<set>-<ordinal> per pod, Bound with the default class, mounted by the pod; Retain keeps it through a scale-down', async () => {
    const ns = await namespace('sts-claims');
    await client.create(StatefulSet, statefulSet('db', ns, { replicas: 2, volumeClaimTemplates: [claimTemplate] }) as never);
    await until(Pod, ns, (o) => o.size === 2 && [...o.values()].every(isReady));
    const claims = (await until(PersistentVolumeClaim, ns, (o) => bound(o as Map<string, Json>, ['data-db-0', 'data-db-1']))) as Map<string, Json>;
    assert.deepEqual([...claims.keys()].sort(), ['data-db-0', 'data-db-1']);
    const first = claims.get('data-db-0')!;
    assert.deepEqual(first.metadata.labels, { tier: 'storage', app: 'db' });
    assert.equal(first.metadata.ownerReferences, undefined, 'Retain/Retain: no owner');
    assert.equal(first.spec.storageClassName, 'standard');
    assert.equal(first.spec.volumeName, `pvc-${first.metadata.uid}`);
    const pod = (await client.get(Pod, 'db-0', { namespace: ns })) as Json;
    assert.deepEqual(pod.spec.volumes[0], { name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } });
    const events = (await client.list(CoreEvent, { namespace: ns })).items.map((e) => e.message);
    assert.ok(events.includes('create Claim data-db-1 Pod db-1 in StatefulSet db success'), events.join('\n'));

    await client.patch(StatefulSet, 'db', { spec: { replicas: 1 } }, { namespace: ns, patchType: 'merge' });
    await until(Pod, ns, (o) => o.size === 1);
    const kept = (await client.list(PersistentVolumeClaim, { namespace: ns })).items as Json[];
    assert.deepEqual(kept.map((c) => [c.metadata.name, c.status.phase]).sort(), [['data-db-0', 'Bound'], ['data-db-1', 'Bound']]);
    // Scaled up again, db-1 gets its old claim back.
    const retained = kept.find((c) => c.metadata.name === 'data-db-1')!;
    await client.patch(StatefulSet, 'db', { spec: { replicas: 2 } }, { namespace: ns, patchType: 'merge' });
    await until(Pod, ns, (o) => o.size === 2 && [...o.values()].every(isReady));
    assert.equal(((await client.get(PersistentVolumeClaim, 'data-db-1', { namespace: ns })) as Json).metadata.uid, retained.metadata.uid);
  });

  it('whenScaled: Delete removes a scaled-away pod\'s claim; whenDeleted: Delete removes the rest with the set', async () => {
    const ns = await namespace('sts-claims-delete');
    const policy = { whenScaled: 'Delete', whenDeleted: 'Delete' };
    await client.create(StatefulSet, statefulSet('cache', ns, { replicas: 2, volumeClaimTemplates: [claimTemplate], persistentVolumeClaimRetentionPolicy: policy }) as never);
    const setUid = (await client.get(StatefulSet, 'cache', { namespace: ns })).metadata.uid;
    const claims = (await until(
      PersistentVolumeClaim,
      ns,
      (o) => bound(o as Map<string, Json>, ['data-cache-0', 'data-cache-1']) && [...o.values()].every((c) => c.metadata.ownerReferences?.length === 1),
    )) as Map<string, Json>;
    assert.deepEqual(claims.get('data-cache-1')!.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'cache', uid: setUid, controller: true, blockOwnerDeletion: true },
    ]);

    await client.patch(StatefulSet, 'cache', { spec: { replicas: 1 } }, { namespace: ns, patchType: 'merge' });
    await until(PersistentVolumeClaim, ns, (o) => !o.has('data-cache-1'));
    assert.ok((await client.get(PersistentVolumeClaim, 'data-cache-0', { namespace: ns }).catch(() => undefined)) !== undefined, 'the claim of the pod that stays stays');

    await client.delete(StatefulSet, 'cache', { namespace: ns });
    await until(PersistentVolumeClaim, ns, (o) => o.size === 0);
  });
});

describe('daemonset controller', () => {
  it('one pod on each node, each pinned to its node and bound there; a node selector narrows it', async () => {
    const ns = await namespace('ds');
    await client.create(DaemonSet, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: ns },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate('agent') },
    } as never);
    const pods = await until(Pod, ns, (o) => o.size === 3 && [...o.values()].every((p) => isReady(p)));
    const nodes = [...pods.values()].map((p) => (p as Json).spec.nodeName).sort();
    assert.deepEqual(nodes, ['node-1', 'node-2', 'node-3']);
    for (const p of pods.values() as Iterable<Json>) {
      assert.deepEqual(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] }] },
      ]);
      assert.ok(p.spec.tolerations.some((t: Json) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute'));
    }
    const ds = await until(DaemonSet, ns, (o) => (o.get('agent') as Json | undefined)?.status?.numberAvailable === 3);
    const st = (ds.get('agent') as Json).status;
    assert.deepEqual([st.desiredNumberScheduled, st.currentNumberScheduled, st.numberReady, st.updatedNumberScheduled, st.numberMisscheduled], [3, 3, 3, 3, 0]);

    await client.create(DaemonSet, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'one', namespace: ns },
      spec: { selector: { matchLabels: { app: 'one' } }, template: podTemplate('one', { nodeSelector: { 'kubernetes.io/hostname': 'node-2' } }) },
    } as never);
    const one = await until(DaemonSet, ns, (o) => (o.get('one') as Json | undefined)?.status?.numberReady === 1);
    assert.equal((one.get('one') as Json).status.desiredNumberScheduled, 1);
    const onePods = ((await client.list(Pod, { namespace: ns, labelSelector: 'app=one' })).items as Json[]).map((p) => p.spec.nodeName);
    assert.deepEqual(onePods, ['node-2']);
  });

  it('a rolling update replaces the pods node by node, never more than maxUnavailable (1) down', async () => {
    const ns = 'ds';
    const violations: string[] = [];
    const rolled = await watching(
      Pod,
      ns,
      (o) => {
        const agents = [...o.values()].filter((p) => p.metadata.labels?.app === 'agent') as Json[];
        return agents.length === 3 && agents.every((p) => p.spec.containers[0].image === 'busybox:1.37' && isReady(p));
      },
      (_type, _pod, o) => {
        const agents = [...o.values()].filter((p) => p.metadata.labels?.app === 'agent') as PodObject[];
        const available = agents.filter((p) => !p.metadata.deletionTimestamp && isReady(p)).length;
        if (available < 2) violations.push(`${available} available`);
      },
    );
    await client.patch(DaemonSet, 'agent', { spec: { template: { spec: { containers: [{ name: 'app', image: 'busybox:1.37' }] } } } }, { namespace: ns, patchType: 'strategic' });
    await rolled.done;
    assert.deepEqual(violations, []);
  });
});

describe('daemonset controller with maxSurge', () => {
  it('starts each new pod beside the old one, which goes once the new one is available', async () => {
    const ns = await namespace('ds-surge');
    await client.create(DaemonSet, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'surge', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'surge' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: podTemplate('surge'),
      },
    } as never);
    await until(Pod, ns, (o) => o.size === 3 && [...o.values()].every(isReady));
    let maxPods = 0;
    const violations: string[] = [];
    const rolled = await watching(
      Pod,
      ns,
      (o) => o.size === 3 && [...o.values()].every((p) => (p as Json).spec.containers[0].image === 'nginx:1.28' && isReady(p)),
      (_t, _p, o) => {
        const live = [...o.values()].filter((p) => !p.metadata.deletionTimestamp);
        maxPods = Math.max(maxPods, live.length);
        // maxUnavailable 0: every node keeps an available pod throughout.
        for (const node of ['node-1', 'node-2', 'node-3']) {
          if (!live.some((p) => (p as Json).spec.nodeName === node && isReady(p))) violations.push(`${node} had no ready pod`);
        }
      },
      20_000,
    );
    await client.patch(DaemonSet, 'surge', { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.28' }] } } } }, { namespace: ns, patchType: 'strategic' });
    await rolled.done;
    assert.deepEqual([...new Set(violations)], []);
    assert.equal(maxPods, 4, 'one surge pod at a time');
  });
});

function job(name: string, ns: string, spec: Json = {}, annotations: Record<string, string> = {}): Json {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ns },
    spec: {
      template: { metadata: { annotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } },
      ...spec,
    },
  };
}

const condition = (o: Json | undefined, type: string): Json | undefined => (o?.status?.conditions ?? []).find((c: Json) => c.type === type && c.status === 'True');

describe('job controller', () => {
  it('runs completions with at most parallelism pods at once, then completes', async () => {
    const ns = await namespace('job-ok');
    let maxActive = 0;
    const pods = await watching(
      Pod,
      ns,
      (o) => o.size === 5 && [...o.values()].every((p) => p.status?.phase === 'Succeeded'),
      (_t, _p, o) => {
        maxActive = Math.max(maxActive, [...o.values()].filter((p) => !['Succeeded', 'Failed'].includes(p.status?.phase ?? '') && !p.metadata.deletionTimestamp).length);
      },
      20_000,
    );
    await client.create(Job, job('batch', ns, { completions: 5, parallelism: 2 }, { [runSecondsAnnotation]: '3' }) as never);
    const done = await until(Job, ns, (o) => !!condition(o.get('batch') as Json, 'Complete'), undefined, 20_000);
    const st = (done.get('batch') as Json).status;
    assert.equal(st.succeeded, 5);
    assert.equal(st.active, undefined);
    assert.ok(condition(done.get('batch') as Json, 'SuccessCriteriaMet'));
    assert.equal(condition(done.get('batch') as Json, 'Complete')!.reason, 'CompletionsReached');
    assert.ok(st.completionTime && st.startTime);
    assert.deepEqual(st.uncountedTerminatedPods, {});
    const left = (await client.list(Pod, { namespace: ns })).items as Json[];
    assert.equal(left.length, 5);
    for (const p of left) {
      assert.equal(p.status.phase, 'Succeeded');
      assert.deepEqual(p.metadata.finalizers ?? [], [], 'counted pods lose the tracking finalizer');
      assert.equal(p.metadata.labels['batch.kubernetes.io/job-name'], 'batch');
    }
    await pods.done;
    assert.ok(maxActive <= 2, `${maxActive} pods ran at once`);
  });

  it('Indexed: each index 0..completions-1 runs in a pod of its own until it succeeded', async () => {
    const ns = await namespace('job-indexed');
    await client.create(Job, job('shards', ns, { completions: 4, parallelism: 2, completionMode: 'Indexed' }, { [runSecondsAnnotation]: '2' }) as never);
    const done = await until(Job, ns, (o) => !!condition(o.get('shards') as Json, 'Complete'), undefined, 20_000);
    const st = (done.get('shards') as Json).status;
    assert.equal(st.completedIndexes, '0-3');
    assert.equal(st.succeeded, 4);
    const pods = (await client.list(Pod, { namespace: ns })).items as Json[];
    const indexes = pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index']).sort();
    assert.deepEqual(indexes, ['0', '1', '2', '3']);
    for (const p of pods) {
      const i = p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
      assert.equal(p.metadata.labels['batch.kubernetes.io/job-completion-index'], i);
      assert.equal(p.spec.hostname, `shards-${i}`);
      assert.match(p.metadata.name, new RegExp(`^shards-${i}-[a-z0-9]{5}$`));
      assert.deepEqual(p.spec.containers[0].env, [
        { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
      ]);
    }
  });

  it('fails with BackoffLimitExceeded once more than backoffLimit pods failed', async () => {
    const ns = await namespace('job-fail');
    await client.create(Job, job('flaky', ns, { backoffLimit: 1 }, { [exitCodeAnnotation]: '2' }) as never);
    const done = await until(Job, ns, (o) => !!condition(o.get('flaky') as Json, 'Failed'), undefined, 20_000);
    const j = done.get('flaky') as Json;
    assert.equal(j.status.failed, 2);
    assert.equal(condition(j, 'Failed')!.reason, 'BackoffLimitExceeded');
    assert.equal(condition(j, 'Failed')!.message, 'Job has reached the specified backoff limit');
    assert.ok(condition(j, 'FailureTarget'));
    const pods = (await client.list(Pod, { namespace: ns })).items as Json[];
    assert.deepEqual(pods.map((p) => p.status.phase), ['Failed', 'Failed']);
  });

  it('fails with DeadlineExceeded past activeDeadlineSeconds, removing its running pods', async () => {
    const ns = await namespace('job-deadline');
    await client.create(Job, job('slow', ns, { activeDeadlineSeconds: 30 }, { [runSecondsAnnotation]: '100000' }) as never);
    const done = await until(Job, ns, (o) => !!condition(o.get('slow') as Json, 'Failed'), undefined, 20_000);
    const j = done.get('slow') as Json;
    assert.equal(condition(j, 'Failed')!.reason, 'DeadlineExceeded');
    assert.equal(condition(j, 'Failed')!.message, 'Job was active longer than specified deadline');
    // 30 s of cluster time after it started, not sooner.
    assert.ok(Date.parse(condition(j, 'Failed')!.lastTransitionTime) - Date.parse(j.status.startTime) >= 30_000);
    await until(Pod, ns, (o) => o.size === 0);
  });

  it('suspend removes the running pods without counting them as failed; resuming starts new ones', async () => {
    const ns = await namespace('job-suspend');
    await client.create(Job, job('paused', ns, { completions: 4, parallelism: 2 }, { [runSecondsAnnotation]: '100000' }) as never);
    await until(Pod, ns, (o) => [...o.values()].filter((p) => isReady(p)).length === 2);
    await client.patch(Job, 'paused', { spec: { suspend: true } }, { namespace: ns, patchType: 'merge' });
    await until(Pod, ns, (o) => o.size === 0);
    const suspended = (await until(Job, ns, (o) => !!condition(o.get('paused') as Json, 'Suspended'))).get('paused') as Json;
    assert.equal(condition(suspended, 'Suspended')!.reason, 'JobSuspended');
    assert.equal(suspended.status.failed, undefined);
    assert.equal(suspended.status.active, undefined);
    assert.equal(suspended.status.startTime, undefined);
    await client.patch(Job, 'paused', { spec: { suspend: false } }, { namespace: ns, patchType: 'merge' });
    const resumed = await until(Job, ns, (o) => (o.get('paused') as Json | undefined)?.status?.ready === 2);
    const st = (resumed.get('paused') as Json).status;
    assert.equal(st.active, 2);
    assert.equal(st.conditions.find((c: Json) => c.type === 'Suspended').status, 'False');
    assert.equal(st.failed, undefined);
  });

  it('podFailurePolicy FailJob: a pod exiting 42 fails the Job at once with reason PodFailurePolicy, backoffLimit unspent', async () => {
    const ns = await namespace('job-pfp-failjob');
    const podFailurePolicy = {
      rules: [
        { action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } },
        { action: 'FailJob', onExitCodes: { containerName: 'work', operator: 'In', values: [42] } },
      ],
    };
    await client.create(Job, job('fatal', ns, { backoffLimit: 6, podFailurePolicy }, { [exitCodeAnnotation]: '42' }) as never);
    const done = await until(Job, ns, (o) => !!condition(o.get('fatal') as Json, 'Failed'), undefined, 20_000);
    const j = done.get('fatal') as Json;
    const pods = (await client.list(Pod, { namespace: ns })).items as Json[];
    assert.equal(pods.length, 1, 'no pod replaced the one that matched FailJob');
    assert.equal(pods[0].status.phase, 'Failed');
    assert.deepEqual(pods[0].metadata.finalizers ?? [], []);
    const message = `Container work for pod ${ns}/${pods[0].metadata.name} failed with exit code 42 matching FailJob rule at index 1`;
    for (const type of ['FailureTarget', 'Failed']) {
      assert.equal(condition(j, type)!.reason, 'PodFailurePolicy', type);
      assert.equal(condition(j, type)!.message, message, type);
    }
    assert.equal(j.status.failed, 1, 'the pod counts as failed');
    assert.deepEqual(j.status.uncountedTerminatedPods, {});
    assert.equal(j.status.active, undefined);
    const events = await until(CoreEvent, ns, (o) => [...o.values()].some((e) => (e as Json).reason === 'PodFailurePolicy'));
    const event = [...events.values()].find((e) => (e as Json).reason === 'PodFailurePolicy') as Json;
    assert.equal(event.type, 'Warning');
    assert.equal(event.message ?? event.note, message);
  });

  it('podFailurePolicy Ignore: failures matching the rule do not count towards backoffLimit; their pods are replaced', async () => {
    const ns = await namespace('job-pfp-ignore');
    const podFailurePolicy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } }] };
    await client.create(Job, job('retry', ns, { backoffLimit: 0, podFailurePolicy }, { [exitCodeAnnotation]: '3' }) as never);
    const released = (p: Json): boolean => p.status?.phase === 'Failed' && (p.metadata.finalizers ?? []).length === 0;
    await until(Pod, ns, (o) => [...o.values()].filter((p) => released(p as Json)).length >= 3, undefined, 20_000);
    const j = (await client.get(Job, 'retry', { namespace: ns })) as Json;
    assert.equal(condition(j, 'Failed'), undefined, JSON.stringify(j.status.conditions));
    assert.equal(j.status.failed, undefined);
    assert.deepEqual(j.status.uncountedTerminatedPods, {});
    await client.delete(Job, 'retry', { namespace: ns, propagationPolicy: 'Background' });
  });

  it('backoffLimitPerIndex: an index whose pods fail past its limit is failed and not run again; the Job ends Failed with FailedIndexes', async () => {
    const ns = await namespace('job-per-index');
    const indexOfPod = (p: Json): string => p.metadata.annotations['batch.kubernetes.io/job-completion-index'];
    // Index 1's pods fail: each is told to exit 1 while it runs (100 s of cluster time).
    const pods = await watching(
      Pod,
      ns,
      (o) => [...o.values()].filter((p) => indexOfPod(p as Json) === '1' && p.status?.phase === 'Failed').length >= 2,
      (type, p) => {
        if (type === 'ADDED' && indexOfPod(p as Json) === '1') {
          void client.patch(Pod, p.metadata.name!, { metadata: { annotations: { [exitCodeAnnotation]: '1' } } }, { namespace: ns, patchType: 'merge' });
        }
      },
      20_000,
    );
    await client.create(Job, job('shards', ns, { completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 1 }, { [runSecondsAnnotation]: '100' }) as never);
    await pods.done;
    const done = await until(Job, ns, (o) => !!condition(o.get('shards') as Json, 'Failed'), undefined, 20_000);
    const j = done.get('shards') as Json;
    assert.equal(j.spec.backoffLimit, 2147483647, 'the Job-wide limit defaults to MaxInt32 with a per-index one');
    assert.equal(j.status.failedIndexes, '1');
    assert.equal(j.status.completedIndexes, '0,2');
    assert.equal(j.status.succeeded, 2);
    assert.equal(j.status.failed, 2);
    for (const type of ['FailureTarget', 'Failed']) {
      assert.equal(condition(j, type)!.reason, 'FailedIndexes', type);
      assert.equal(condition(j, type)!.message, 'Job has failed indexes', type);
    }
    const all = (await client.list(Pod, { namespace: ns })).items as Json[];
    const counts = (i: string): string[] => all.filter((p) => indexOfPod(p) === i).map((p) => p.metadata.annotations['batch.kubernetes.io/job-index-failure-count']).sort();
    assert.deepEqual(counts('1'), ['0', '1'], 'index 1 ran twice, its second pod counting the first failure, and not a third time');
    assert.deepEqual(counts('0'), ['0']);
    assert.deepEqual(counts('2'), ['0']);
  });

  it('maxFailedIndexes: a FailIndex rule fails an index at once, and one failed index too many fails the Job with MaxFailedIndexesExceeded', async () => {
    const ns = await namespace('job-max-failed');
    const podFailurePolicy = { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [42] } }] };
    const spec = { completions: 4, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 3, maxFailedIndexes: 0, podFailurePolicy };
    await client.create(Job, job('strict', ns, spec, { [exitCodeAnnotation]: '42' }) as never);
    const done = await until(Job, ns, (o) => !!condition(o.get('strict') as Json, 'Failed'), undefined, 20_000);
    const j = done.get('strict') as Json;
    assert.equal(condition(j, 'Failed')!.reason, 'MaxFailedIndexesExceeded');
    assert.equal(condition(j, 'Failed')!.message, 'Job has exceeded the specified maximal number of failed indexes');
    assert.match(j.status.failedIndexes, /^(0|1|0,1)$/);
    const all = (await client.list(Pod, { namespace: ns })).items as Json[];
    assert.ok(all.length <= 2, `${all.length} pods: a failed index is not retried, whatever backoffLimitPerIndex is left`);
    for (const p of all) assert.equal(p.metadata.annotations['batch.kubernetes.io/job-index-failure-count'], '0');
  });

  it('podFailurePolicy: a deleted pod is neither counted nor replaced until the kubelet reports it Failed; its exit code (143, SIGTERM) meets the rules', async () => {
    const ns = await namespace('job-pfp-deleted');
    // A pod ended by its deletion is not the job's fault: ignored, so backoffLimit 0 is not spent.
    const podFailurePolicy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [143] } }] };
    await client.create(Job, job('steady', ns, { backoffLimit: 0, podFailurePolicy }, { [runSecondsAnnotation]: '100000' }) as never);
    const first = await until(Pod, ns, (o) => [...o.values()].some((p) => isReady(p)));
    const victim = [...first.values()][0]!;
    const order: string[] = [];
    const seen = await watching(
      Pod,
      ns,
      (o) => [...o.values()].some((p) => p.metadata.name !== victim.metadata.name && isReady(p)),
      (type, p) => {
        if (p.metadata.name === victim.metadata.name && p.status?.phase === 'Failed' && !order.includes('failed')) order.push('failed');
        if (type === 'ADDED' && p.metadata.name !== victim.metadata.name) order.push('replacement');
      },
      20_000,
    );
    await client.delete(Pod, victim.metadata.name!, { namespace: ns });
    await seen.done;
    assert.deepEqual(order, ['failed', 'replacement'], 'the replacement came once the deleted pod was Failed');
    const gone = (await client.get(Pod, victim.metadata.name!, { namespace: ns }).catch(() => undefined)) as Json | undefined;
    if (gone) assert.equal(gone.status.containerStatuses[0].state.terminated.exitCode, 143);
    const j = (await client.get(Job, 'steady', { namespace: ns })) as Json;
    assert.equal(condition(j, 'Failed'), undefined, JSON.stringify(j.status.conditions));
    assert.equal(j.status.failed, undefined, 'the Ignore rule matched the exit code the kubelet reported');
    assert.equal(j.status.active, 1);
    await client.delete(Job, 'steady', { namespace: ns, propagationPolicy: 'Background' });
  });

  it('ttlSecondsAfterFinished deletes the finished Job and its pods', async () => {
    const ns = await namespace('job-ttl');
    await client.create(Job, job('brief', ns, { ttlSecondsAfterFinished: 5 }, { [runSecondsAnnotation]: '1' }) as never);
    let completed = false;
    await until(Job, ns, (o) => completed && !o.has('brief'), (_t, j) => {
      if (condition(j as Json, 'Complete')) completed = true;
    }, 20_000);
    await until(Pod, ns, (o) => o.size === 0);
  });
});

describe('cronjob controller', () => {
  it('makes a Job at each scheduled minute, keeps the history limit, and lists the active ones', async () => {
    const ns = await namespace('cron');
    const made: string[] = [];
    const jobsSeen = await watching(Job, ns, () => made.length >= 3, (type, j) => {
      if (type === 'ADDED') made.push(j.metadata.name!);
    }, 20_000);
    await client.create(CronJob, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick', namespace: ns },
      spec: {
        schedule: '* * * * *',
        successfulJobsHistoryLimit: 1,
        jobTemplate: { spec: { template: { metadata: { annotations: { [runSecondsAnnotation]: '1' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      },
    } as never);
    await jobsSeen.done;
    // One Job per minute, named after its minute.
    const minutes = made.map((n) => Number(n.slice('tick-'.length)));
    for (let i = 1; i < minutes.length; i++) assert.equal(minutes[i]! - minutes[i - 1]!, 1, made.join(' '));
    const first = (await client.get(Job, made[2]!, { namespace: ns }).catch(() => undefined)) as Json | undefined;
    if (first) assert.equal(first.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'], new Date(minutes[2]! * 60_000).toISOString().replace('.000Z', 'Z'));
    // Finished Jobs beyond the limit of one go.
    await until(Job, ns, (o) => [...o.values()].filter((j) => condition(j as Json, 'Complete')).length === 1 && o.size <= 2, undefined, 20_000);
    const cj = (await client.get(CronJob, 'tick', { namespace: ns })) as Json;
    assert.ok(cj.status.lastScheduleTime);
    assert.ok(cj.status.lastSuccessfulTime);
  });

  it('Replace: the active Job gives way to the next; timeZone writes the scheduled time in that zone', async () => {
    const ns = await namespace('cron-replace');
    const made: string[] = [];
    const deleted: string[] = [];
    const seen = await watching(Job, ns, () => made.length >= 2 && deleted.includes(made[0]!), (type, j) => {
      if (type === 'ADDED') made.push(j.metadata.name!);
      if (type === 'DELETED' || (type === 'MODIFIED' && j.metadata.deletionTimestamp)) deleted.push(j.metadata.name!);
    }, 20_000);
    await client.create(CronJob, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'swap', namespace: ns },
      spec: {
        schedule: '* * * * *',
        timeZone: 'America/New_York',
        concurrencyPolicy: 'Replace',
        jobTemplate: { spec: { template: { metadata: { annotations: { [runSecondsAnnotation]: '100000' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      },
    } as never);
    await seen.done;
    const latest = (await client.get(Job, made[1]!, { namespace: ns })) as Json;
    const stamp = latest.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp'] as string;
    assert.match(stamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:00-0[45]:00$/);
    assert.equal(Date.parse(stamp), Number(made[1]!.slice('swap-'.length)) * 60_000);
  });

  it('Forbid: no new Job while one is active', async () => {
    const ns = await namespace('cron-forbid');
    await client.create(CronJob, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'long', namespace: ns },
      spec: {
        schedule: '* * * * *',
        concurrencyPolicy: 'Forbid',
        jobTemplate: { spec: { template: { metadata: { annotations: { [runSecondsAnnotation]: '100000' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
      },
    } as never);
    // A later scheduled minute came (kube's JobAlreadyActive event) while the first Job ran.
    await until(CoreEvent, ns, (o) => [...o.values()].some((e) => e.reason === 'JobAlreadyActive'), undefined, 20_000);
    const jobs = (await client.list(Job, { namespace: ns })).items.map((j) => j.metadata.name!);
    assert.equal(jobs.length, 1, jobs.join(' '));
    const cj = (await client.get(CronJob, 'long', { namespace: ns })) as Json;
    assert.deepEqual(cj.status.active.map((r: Json) => r.name), jobs);
  });
});

