/**
 * The in-place upgrade's pure parts: which pods a round takes (Kruise's
 * pkg/controller/sidecarset/sidecarset_strategy_test.go, TestGetNextUpgradePods
 * and TestSortNextUpgradePods), and what upgrading one pod writes on it
 * (sidecarset_processor.go updatePodSidecarContainer, sidecarset_control.go
 * UpdatePodAnnotationsInUpgrade, updatePodSidecarSetUpgradableCondition).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SidecarSetCustomVersionLabel, type SidecarSet } from '../src/api/v1alpha1/sidecarset-types.js';
import type { ControllerRevision } from '../src/sidecarset/revision/revision-data.js';
import { sidecarSetForNewPod } from '../src/sidecarset/revision/injection-revision.js';
import { readPodHashes, SidecarSetHashAnnotation, SidecarSetHashWithoutImageAnnotation } from '../src/sidecarset/annotations.js';
import { compareActivePods, nextUpgradePods, partitionCount } from '../src/sidecarset/upgrade/strategy.js';
import { expandScatterTerms, scatterOrder } from '../src/sidecarset/upgrade/scatter.js';
import { readUpdateStates, SidecarSetInplaceUpdateStateAnnotation, upgradableCondition, upgradePodSidecars } from '../src/sidecarset/upgrade/pod-upgrade.js';

const v1ImageID = 'docker.io/library/test-image@sha256:0000000000000000000000000000000000000000000000000000000000000001';
const v2ImageID = 'docker.io/library/test-image@sha256:0000000000000000000000000000000000000000000000000000000000000002';
const now = new Date('2024-05-01T10:00:00.123Z');

/** Kruise's factorySidecarSet: hash "bbb"; the without-image hash equals the pods' unless `notUpgradable`. */
function sidecarSet(strategy: NonNullable<SidecarSet['spec']>['updateStrategy'] = {}, notUpgradable = false): SidecarSet {
  return {
    metadata: { name: 'test-sidecarset', annotations: { [SidecarSetHashAnnotation]: 'bbb', [SidecarSetHashWithoutImageAnnotation]: notUpgradable ? 'without-bbb' : 'without-aaa' } },
    spec: { selector: { matchLabels: { app: 'sidecar' } }, containers: [{ name: 'test-sidecar', image: 'test-image:v2' }], updateStrategy: strategy, revisionHistoryLimit: 10 },
  };
}

/**
 * Kruise's factoryPods: `count` running, ready pods on hash "aaa"; the first
 * `upgraded` have been upgraded (spec image v2, hash "bbb"), and the first
 * `upgradedAndReady` of those already run v2.
 */
function pods(count: number, upgraded: number, upgradedAndReady: number): Pod[] {
  const set = sidecarSet();
  const out: Pod[] = [];
  for (let i = 0; i < count; i++) {
    let pod: Pod = {
      metadata: {
        name: `pod-${i}`,
        labels: { app: 'sidecar' },
        creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString().replace('.000', ''),
        annotations: {
          [SidecarSetHashAnnotation]: '{"test-sidecarset":{"hash":"aaa","sidecarList":["test-sidecar"]}}',
          [SidecarSetHashWithoutImageAnnotation]: '{"test-sidecarset":{"hash":"without-aaa","sidecarList":["test-sidecar"]}}',
        },
      },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.15.1' }, { name: 'test-sidecar', image: 'test-image:v1' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'nginx', image: 'nginx:1.15.1', imageID: 'docker.io/library/nginx@sha256:a9286defaba7b3a519d585ba0e37d0b2cbee74ebfe590960b0b1d6a5e97d1e1d', ready: true, restartCount: 0 },
          { name: 'test-sidecar', image: 'test-image:v1', imageID: v1ImageID, ready: true, restartCount: 0 },
        ],
      },
    };
    if (i < upgraded) pod = upgradePodSidecars(set, pod, now);
    if (i < upgradedAndReady) pod.status!.containerStatuses![1] = { ...pod.status!.containerStatuses![1]!, image: 'test-image:v2', imageID: v2ImageID };
    out.push(pod);
  }
  return out;
}

/** A fixed shuffle: the order of the input must not matter. */
function shuffled<T>(list: T[]): T[] {
  const out = [...list];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('nextUpgradePods (TestGetNextUpgradePods)', () => {
  const cases: Array<{ name: string; pods: () => Pod[]; set: () => SidecarSet; upgrade: number; notUpgradable: number }> = [
    { name: 'maxUnavailable 10; 100 pods, 30 upgraded, 26 of them ready', pods: () => pods(100, 30, 26), set: () => sidecarSet({ maxUnavailable: 10 }), upgrade: 6, notUpgradable: 0 },
    { name: 'maxUnavailable 10%; 1000 pods, 300 upgraded, 260 ready', pods: () => pods(1000, 300, 260), set: () => sidecarSet({ maxUnavailable: '10%' }), upgrade: 60, notUpgradable: 0 },
    { name: 'maxUnavailable 5%; 1000 pods, 300 upgraded, 250 ready: the budget is spent', pods: () => pods(1000, 300, 250), set: () => sidecarSet({ maxUnavailable: '5%' }), upgrade: 0, notUpgradable: 0 },
    { name: 'maxUnavailable 100; 100 pods, 30 upgraded, 27 ready: every waiting pod', pods: () => pods(100, 30, 27), set: () => sidecarSet({ maxUnavailable: 100 }), upgrade: 70, notUpgradable: 0 },
    { name: 'partition 180, maxUnavailable 100; 1000 pods, 800 upgraded', pods: () => pods(1000, 800, 760), set: () => sidecarSet({ maxUnavailable: 100, partition: 180 }), upgrade: 20, notUpgradable: 0 },
    { name: 'partition 100, maxUnavailable 100; 1000 pods, 800 upgraded, 40 unavailable', pods: () => pods(1000, 800, 760), set: () => sidecarSet({ maxUnavailable: 100, partition: 100 }), upgrade: 60, notUpgradable: 0 },
    { name: 'partition 18%, maxUnavailable 100', pods: () => pods(1000, 800, 760), set: () => sidecarSet({ maxUnavailable: 100, partition: '18%' }), upgrade: 20, notUpgradable: 0 },
    { name: 'partition 10%, maxUnavailable 100', pods: () => pods(1000, 800, 760), set: () => sidecarSet({ maxUnavailable: 100, partition: '10%' }), upgrade: 60, notUpgradable: 0 },
    {
      name: 'updateStrategy.selector app=test picks its 30 pods',
      pods: () => {
        const list = pods(1000, 0, 0);
        for (const pod of list.slice(0, 30)) pod.metadata!.labels!.app = 'test';
        return list;
      },
      set: () => sidecarSet({ maxUnavailable: 100, selector: { matchLabels: { app: 'test' } } }),
      upgrade: 30,
      notUpgradable: 0,
    },
    { name: 'more than images changed: nothing upgrades, every pod is not upgradable', pods: () => pods(100, 0, 0), set: () => sidecarSet({ maxUnavailable: 100 }, true), upgrade: 0, notUpgradable: 100 },
    { name: 'maxUnavailable 5% of 5 pods rounds up to 1', pods: () => pods(5, 0, 0), set: () => sidecarSet({ maxUnavailable: '5%' }), upgrade: 1, notUpgradable: 0 },
    { name: 'partition 99% of 5 still upgrades one', pods: () => pods(5, 0, 0), set: () => sidecarSet({ maxUnavailable: 5, partition: '99%' }), upgrade: 1, notUpgradable: 0 },
    { name: 'partition 1% of 5 keeps one', pods: () => pods(5, 0, 0), set: () => sidecarSet({ maxUnavailable: 5, partition: '1%' }), upgrade: 4, notUpgradable: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const round = nextUpgradePods(c.set(), shuffled(c.pods()));
      assert.equal(round.upgrade.length, c.upgrade);
      assert.equal(round.notUpgradable.length, c.notUpgradable);
    });
  }

  it('a pod whose sidecar is still restarting from the last upgrade waits (neither upgraded nor refused)', () => {
    // Upgraded to hash "bbb", then the SidecarSet moved on to "ccc": the container runs v1 while its spec says v2.
    const [pod] = pods(1, 1, 0);
    const set = sidecarSet({ maxUnavailable: 5 });
    set.metadata!.annotations![SidecarSetHashAnnotation] = 'ccc';
    assert.deepEqual(nextUpgradePods(set, [pod!]), { upgrade: [], notUpgradable: [] });
  });

  it('partitionCount follows Kruise\'s CalculatePartitionReplicas', () => {
    assert.equal(partitionCount(undefined, 10), 0);
    assert.equal(partitionCount(3, 10), 3);
    assert.equal(partitionCount(30, 10), 10);
    assert.equal(partitionCount('25%', 10), 3);
    assert.equal(partitionCount('100%', 10), 10);
    assert.equal(partitionCount('99%', 10), 9);
    assert.equal(partitionCount('50%', 1), 1);
    assert.equal(partitionCount('x', 10), 0);
  });
});

describe('the order of a round (TestSortNextUpgradePods)', () => {
  it('newest first among ready pods (kube\'s active-pods order); not-ready pods before ready ones, and they cost no budget', () => {
    const list = pods(20, 10, 5);
    let round = nextUpgradePods(sidecarSet({ maxUnavailable: 10 }), shuffled(list));
    // 5 upgraded pods are unavailable: 5 more may go, the newest waiting ones.
    assert.deepEqual(round.upgrade.map((p) => p.metadata!.name), ['pod-19', 'pod-18', 'pod-17', 'pod-16', 'pod-15']);

    for (const name of ['pod-10', 'pod-13']) {
      const pod = list.find((p) => p.metadata!.name === name)!;
      pod.status!.conditions = [{ type: 'Ready', status: 'False' }];
    }
    round = nextUpgradePods(sidecarSet({ maxUnavailable: 10 }), shuffled(list));
    assert.deepEqual(round.upgrade.map((p) => p.metadata!.name), ['pod-13', 'pod-10', 'pod-19', 'pod-18', 'pod-17', 'pod-16', 'pod-15']);
  });

  it('compareActivePods: unscheduled, pending, not ready, ready for less time, more restarts, newer, come first', () => {
    const base = (name: string, extra: Partial<Pod['status']> = {}, nodeName = 'node-1', created = '2024-01-01T00:00:00Z'): Pod => ({
      metadata: { name, creationTimestamp: created },
      spec: { nodeName, containers: [{ name: 'c' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:01:00Z' }], ...extra },
    });
    const sorted = [
      base('older'),
      base('newer', {}, 'node-1', '2024-01-02T00:00:00Z'),
      base('restarted', { containerStatuses: [{ name: 'c', image: 'x', imageID: '', ready: true, restartCount: 3 }] }),
      base('ready-recently', { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:05:00Z' }] }),
      base('not-ready', { conditions: [{ type: 'Ready', status: 'False' }] }),
      base('pending', { phase: 'Pending', conditions: [] }),
      base('unscheduled', { phase: 'Pending', conditions: [] }, ''),
    ]
      .sort(compareActivePods)
      .map((p) => p.metadata!.name);
    assert.deepEqual(sorted, ['unscheduled', 'pending', 'not-ready', 'ready-recently', 'restarted', 'newer', 'older']);
  });
});

describe('upgrading one pod', () => {
  it('changes only the sidecar images, records the new hash and revision, and the imageIDs before the restart', () => {
    const set = sidecarSet();
    set.status = { latestRevision: 'test-sidecarset-78f5d9c6b', matchedPods: 1, updatedPods: 0, readyPods: 1, updatedReadyPods: 0 };
    const [pod] = pods(1, 0, 0);
    const upgraded = upgradePodSidecars(set, pod!, now);
    assert.deepEqual(upgraded.spec!.containers.map((c) => c.image), ['nginx:1.15.1', 'test-image:v2']);
    assert.deepEqual(upgraded.status, pod!.status);
    const record = readPodHashes(upgraded.metadata!.annotations, SidecarSetHashAnnotation)['test-sidecarset']!;
    assert.deepEqual(record, { updateTimestamp: '2024-05-01T10:00:00Z', hash: 'bbb', sidecarSetName: 'test-sidecarset', sidecarList: ['test-sidecar'], controllerRevision: 'test-sidecarset-78f5d9c6b' });
    // Kruise rewrites only the hash record; the without-image one stays as injected.
    assert.equal(upgraded.metadata!.annotations![SidecarSetHashWithoutImageAnnotation], pod!.metadata!.annotations![SidecarSetHashWithoutImageAnnotation]);
    assert.equal(
      upgraded.metadata!.annotations![SidecarSetInplaceUpdateStateAnnotation],
      `{"test-sidecarset":{"revision":"bbb","updateTimestamp":"2024-05-01T10:00:00Z","lastContainerStatuses":{"test-sidecar":{"imageID":"${v1ImageID}"}}}}`,
    );
    // The input is not touched.
    assert.equal(pod!.spec!.containers[1]!.image, 'test-image:v1');
  });

  it('a second upgrade keeps the first upgrade\'s revision and time, and records the newer imageID (as Kruise does)', () => {
    const [pod] = pods(1, 1, 1);
    const set = sidecarSet();
    set.spec!.containers![0]!.image = 'test-image:v3';
    set.metadata!.annotations![SidecarSetHashAnnotation] = 'ccc';
    const again = upgradePodSidecars(set, pod!, new Date('2024-06-01T00:00:00Z'));
    const state = readUpdateStates(again.metadata!.annotations![SidecarSetInplaceUpdateStateAnnotation])['test-sidecarset']!;
    assert.equal(state.revision, 'bbb');
    assert.equal(state.updateTimestamp, '2024-05-01T10:00:00Z');
    assert.deepEqual(state.lastContainerStatuses, { 'test-sidecar': { imageID: v2ImageID } });
  });

  it('patchPodMetadata is applied on upgrade too', () => {
    const set = sidecarSet();
    set.spec!.patchPodMetadata = [{ annotations: { 'example.com/version': 'v2' }, patchPolicy: 'Overwrite' }];
    const [pod] = pods(1, 0, 0);
    assert.equal(upgradePodSidecars(set, pod!, now).metadata!.annotations!['example.com/version'], 'v2');
  });
});

describe('the SidecarSetUpgradable condition (updatePodSidecarSetUpgradableCondition)', () => {
  const [pod] = pods(1, 0, 0);
  it('False with reason UpdateImmutableField when a SidecarSet cannot upgrade the pod; each SidecarSet\'s answer in the message', () => {
    const condition = upgradableCondition(sidecarSet(), pod!, false, now)!;
    assert.deepEqual(condition, { type: 'SidecarSetUpgradable', status: 'False', reason: 'UpdateImmutableField', message: '{"test-sidecarset":false}', lastTransitionTime: '2024-05-01T10:00:00Z' });
  });

  it('unchanged answers write nothing; True only once every SidecarSet says yes, and the transition time moves with the status', () => {
    const other = { ...sidecarSet(), metadata: { ...sidecarSet().metadata, name: 'other' } };
    const withCondition = (c: NonNullable<ReturnType<typeof upgradableCondition>>): Pod => ({ ...pod!, status: { ...pod!.status, conditions: [...pod!.status!.conditions!, c] } });
    const refused = withCondition(upgradableCondition(other, pod!, false, now)!);
    assert.equal(upgradableCondition(other, refused, false, new Date('2024-05-02T00:00:00Z')), undefined);
    const both = upgradableCondition(sidecarSet(), refused, true, new Date('2024-05-02T00:00:00Z'))!;
    assert.deepEqual([both.status, both.message, both.lastTransitionTime], ['False', '{"other":false,"test-sidecarset":true}', '2024-05-01T10:00:00Z']);
    const allowed = upgradableCondition(other, withCondition(both), true, new Date('2024-05-03T00:00:00Z'))!;
    assert.deepEqual([allowed.status, allowed.reason, allowed.message, allowed.lastTransitionTime], ['True', 'AllSidecarsetUpgradable', '{"other":true,"test-sidecarset":true}', '2024-05-03T00:00:00Z']);
  });
});

describe('scatterStrategy (pkg/util/updatesort/scatter_sort_test.go)', () => {
  const podsLabelled = (labels: string[]): Pod[] =>
    labels.map((text, i) => ({
      metadata: { name: String(i), labels: Object.fromEntries(text.split(',').map((l) => l.split('=')).filter((kv) => kv.length === 2)) },
    }));

  it('TestScatterPodsByRule: matching pods are spread over the order, one kept for the end', () => {
    const cases: Array<[string, string[], number[]]> = [
      ['no label', [''], [0]],
      ['only one scattered pod', ['labelA=AAA'], [0]],
      ['odd scattered pod + odd ordinary pod', ['labelA=AAA', 'bbb'], [0, 1]],
      ['even scattered pods + even ordinary pods', ['', '', '', '', 'labelA=AAA', 'labelA=AAA'], [4, 0, 1, 2, 3, 5]],
      ['odd scattered pods + odd ordinary pods', ['', '', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA'], [3, 0, 1, 4, 2, 5]],
      ['even scattered pods + odd ordinary pods', ['', '', '', 'labelA=AAA', '', '', 'labelA=AAA'], [3, 0, 1, 2, 4, 5, 6]],
      ['odd scattered pods + even ordinary pods', ['', '', '', '', '', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA'], [6, 0, 1, 2, 7, 3, 4, 5, 8]],
      ['even scattered + even ordinary, more scattered', ['', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA'], [2, 3, 0, 4, 1, 5]],
      ['odd scattered + odd ordinary, more scattered', ['', '', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA'], [3, 0, 1, 4, 2, 5]],
      ['even scattered + odd ordinary, more scattered', ['', '', 'labelA=AAA', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA'], [2, 4, 0, 5, 6, 1, 7, 3, 8]],
      ['odd scattered + even ordinary, more scattered', ['', 'labelA=AAA', '', 'labelA=AAA', '', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA'], [1, 0, 3, 2, 6, 4, 7, 5, 8]],
      ['invalid label', ['', '', '', '', 'ee', 'a', '', 'labelA=AAA', 'labelA=AAA', 'labelA=AAA,labelB=BBB'], [7, 0, 1, 2, 3, 8, 4, 5, 6, 9]],
    ];
    for (const [name, labels, expected] of cases) {
      const list = podsLabelled(labels);
      assert.deepEqual(scatterOrder([{ key: 'labelA', value: 'AAA' }], list, list.map((_, i) => i)), expected, name);
    }
  });

  it('"*" stands for every value the pods have; a round takes the pods of each zone in turn', () => {
    const zones = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b'];
    const list = podsLabelled(zones.map((z) => `zone=${z}`));
    assert.deepEqual(expandScatterTerms([{ key: 'zone', value: '*' }, { key: 'zone', value: 'a' }], list), [
      { key: 'zone', value: 'a' },
      { key: 'zone', value: 'b' },
    ]);
    const set = sidecarSet({ maxUnavailable: 2, scatterStrategy: [{ key: 'zone', value: '*' }] });
    const ready = pods(8, 0, 0).map((p, i) => ({ ...p, metadata: { ...p.metadata, labels: { ...p.metadata!.labels, zone: zones[i]! } } }));
    const round = nextUpgradePods(set, ready).upgrade.map((p) => p.metadata!.labels!.zone);
    assert.deepEqual(round.sort(), ['a', 'b']);
  });
});

describe('the version a new pod gets (getSuitableRevisionSidecarSet, pkg/webhook/pod/mutating/sidecarset_test.go)', () => {
  const revision = (name: string, image: string, revisionNumber: number, customVersion?: string): ControllerRevision => ({
    metadata: {
      name,
      namespace: 'sidecarset-system',
      labels: { 'kruise.io/sidecarset-name': 'test-sidecarset', ...(customVersion ? { [SidecarSetCustomVersionLabel]: customVersion } : {}) },
      annotations: { [SidecarSetHashAnnotation]: `hash-${image}`, [SidecarSetHashWithoutImageAnnotation]: 'without-aaa' },
    },
    data: { spec: { $patch: 'replace', containers: [{ name: 'test-sidecar', image }], imagePullSecrets: null, initContainers: null, patchPodMetadata: null, volumes: [{ name: 'v', emptyDir: {} }] } },
    revision: revisionNumber,
  });
  const revisions = [revision('test-sidecarset-1', 'test-image:v1', 1, 'canary'), revision('test-sidecarset-2', 'test-image:v2', 2, 'canary'), revision('test-sidecarset-3', 'test-image:v3', 3)];
  const [pod] = pods(1, 0, 0);
  const withRevision = (injection: NonNullable<NonNullable<SidecarSet['spec']>['injectionStrategy']>['revision'], strategy: NonNullable<SidecarSet['spec']>['updateStrategy'] = {}): SidecarSet => {
    const set = sidecarSet(strategy);
    set.spec!.injectionStrategy = { revision: injection };
    return set;
  };

  it('without a revision named: the SidecarSet as it is', () => {
    const set = sidecarSet();
    assert.equal(sidecarSetForNewPod(set, pod!, revisions), set);
  });

  it('revisionName: the revision\'s containers and volumes, its hashes, and latestRevision naming it', () => {
    const history = sidecarSetForNewPod(withRevision({ revisionName: 'test-sidecarset-1' }), pod!, revisions);
    assert.deepEqual(history.spec, { containers: [{ name: 'test-sidecar', image: 'test-image:v1' }], volumes: [{ name: 'v', emptyDir: {} }] });
    assert.equal(history.metadata!.annotations![SidecarSetHashAnnotation], 'hash-test-image:v1');
    assert.equal(history.status!.latestRevision, 'test-sidecarset-1');
  });

  it('customVersion: the newest revision with that label', () => {
    assert.equal(sidecarSetForNewPod(withRevision({ customVersion: 'canary' }), pod!, revisions).status!.latestRevision, 'test-sidecarset-2');
  });

  it('a revision that is not there refuses the pod, with kube\'s NotFound text', () => {
    assert.throws(() => sidecarSetForNewPod(withRevision({ revisionName: 'gone' }), pod!, revisions), { name: 'Error', message: 'controllerrevisions.apps "gone" not found' });
    assert.throws(() => sidecarSetForNewPod(withRevision({ customVersion: 'nope' }), pod!, revisions), { message: 'ControllerRevision.apps "test-sidecarset" not found' });
  });

  it('Partial: pods outside updateStrategy.selector get the revision; selected ones the latest unless a percentage partition draws the revision', () => {
    const partial = { revisionName: 'test-sidecarset-1', policy: 'Partial' };
    const outside = withRevision(partial, { selector: { matchLabels: { canary: 'true' } } });
    assert.equal(sidecarSetForNewPod(outside, pod!, revisions).status!.latestRevision, 'test-sidecarset-1');
    const selected = { ...pod!, metadata: { ...pod!.metadata, labels: { ...pod!.metadata!.labels, canary: 'true' } } };
    assert.equal(sidecarSetForNewPod(outside, selected, revisions), outside);
    const byPercent = withRevision(partial, { partition: '30%' });
    assert.equal(sidecarSetForNewPod(byPercent, pod!, revisions, () => 0.2).status!.latestRevision, 'test-sidecarset-1');
    assert.equal(sidecarSetForNewPod(byPercent, pod!, revisions, () => 0.5), byPercent);
    const byCount = withRevision(partial, { partition: 3 });
    assert.equal(sidecarSetForNewPod(byCount, pod!, revisions, () => 0), byCount);
    // Paused: always the revision.
    assert.equal(sidecarSetForNewPod(withRevision(partial, { paused: true, partition: '0%' }), pod!, revisions, () => 0.99).status!.latestRevision, 'test-sidecarset-1');
  });
});
