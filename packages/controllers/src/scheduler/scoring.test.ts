import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { labelSelectorFromObject } from '@operant/apimachinery';
import type { NodeObject, PodObject } from '../objects.js';
import { defaultSpreadSelector, type WorkloadListers } from './default-spread.js';
import { defaultNormalize } from './node-scorer.js';
import { clusterPodsOf, type ClusterPods } from './pod-checks.js';
import { balancedAllocationScore, leastAllocatedScore } from './resource-scores.js';
import { footprintOf, usageOf, type NodeUsage } from './resources.js';
import { schedulePod, type SearchCursor } from './schedule.js';

type Spec = Partial<NonNullable<PodObject['spec']>>;

function node(name: string, extra: { cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: NonNullable<NodeObject['spec']>['taints'] } = {}): NodeObject {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra.labels } },
    spec: { taints: extra.taints },
    status: { allocatable: { cpu: extra.cpu ?? '4', memory: extra.memory ?? '8Gi', pods: extra.pods ?? '110' } },
  } as NodeObject;
}

function pod(name: string, labels: Record<string, string> = {}, spec: Spec = {}, requests?: Record<string, string>): PodObject {
  return {
    metadata: { name, namespace: 'default', uid: `${name}-uid`, labels },
    spec: { containers: [{ name: 'app', image: 'nginx', ...(requests ? { resources: { requests } } : {}) }], ...spec },
  } as PodObject;
}

/** Places `pods` one after another on `nodes`, each seeing the ones before (as the scheduler's cache shows them); the node of each, or its message. */
function placeAll(pods: PodObject[], nodes: NodeObject[], placed = new Map<string, PodObject[]>(), extra: Partial<ClusterPods> = {}): string[] {
  const cursor: SearchCursor = { next: 0, ties: 0 };
  return pods.map((p) => {
    const usage = (n: string): NodeUsage => usageOf(placed.get(n) ?? []);
    const result = schedulePod(p, nodes, usage, cursor, { ...clusterPodsOf(nodes, usage), ...extra });
    if (!('node' in result)) return result.message;
    placed.set(result.node, [...(placed.get(result.node) ?? []), p]);
    return result.node;
  });
}

const count = (where: string[], name: string): number => where.filter((n) => n === name).length;

/** A node LeastAllocated prefers to every other: eight times the room. */
const big = (name: string, labels: Record<string, string> = {}) => node(name, { cpu: '32', memory: '64Gi', labels });

describe('scoring: kube-scheduler default profile', () => {
  it('preferred pod anti-affinity on the hostname: one replica per node while it can, then a fourth still placed (soft)', () => {
    const replica = (i: number) =>
      pod(`web-${i}`, { app: 'web' }, {
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' } }],
          },
        },
      }, { cpu: '500m' });
    const nodes = [big('node-1'), node('node-2'), node('node-3')];
    const where = placeAll([0, 1, 2, 3].map(replica), nodes);
    assert.deepEqual(where.slice(0, 3).sort(), ['node-1', 'node-2', 'node-3'], where.join(','));
    assert.match(where[3]!, /^node-\d$/, 'the fourth is placed: the term is only a preference');
  });

  it('preferred node affinity: the labelled node wins over a roomier one, while it has room', () => {
    const nodes = [big('node-1'), node('node-2', { labels: { disk: 'ssd' } })];
    const prefersSsd = (name: string, cpu: string) =>
      pod(name, {}, {
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } },
      }, { cpu });
    assert.deepEqual(placeAll([prefersSsd('a', '1'), prefersSsd('b', '1'), prefersSsd('c', '3')], nodes), ['node-2', 'node-2', 'node-1']);
  });

  it('ScheduleAnyway spread: six pods 2/2/2 over three zones, and no pod is kept waiting when the spread cannot hold', () => {
    const nodes = [
      big('a-1', { zone: 'a' }),
      big('a-2', { zone: 'a' }),
      node('b-1', { pods: '2', labels: { zone: 'b' } }),
      node('c-1', { pods: '2', labels: { zone: 'c' } }),
    ];
    const spread = (i: number) =>
      pod(`s-${i}`, { app: 's' }, {
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 's' } } }],
      });
    const where = placeAll([0, 1, 2, 3, 4, 5, 6, 7].map(spread), nodes);
    const zoneOf = (n: string) => n.split('-')[0]!;
    const first6 = where.slice(0, 6).map(zoneOf);
    assert.deepEqual(['a', 'b', 'c'].map((z) => count(first6, z)), [2, 2, 2], where.join(','));
    // b and c are full: the seventh and eighth go to zone a, 4/2/2, a skew DoNotSchedule would refuse.
    assert.deepEqual(where.slice(6).map(zoneOf), ['a', 'a']);
  });

  it('a PreferNoSchedule taint keeps pods off a node while others fit; a pod that tolerates it is not kept off', () => {
    const nodes = [big('node-1'), node('node-2', { pods: '2' }), node('node-3', { pods: '2' })];
    nodes[0]!.spec!.taints = [{ key: 'spot', value: 'true', effect: 'PreferNoSchedule' }];
    const where = placeAll([0, 1, 2, 3, 4].map((i) => pod(`p-${i}`)), nodes);
    assert.deepEqual([count(where, 'node-1'), count(where, 'node-2'), count(where, 'node-3')], [1, 2, 2], where.join(','));
    assert.equal(where[4], 'node-1', 'the fifth: node-2 and node-3 are full');
    const tolerant = pod('t', {}, { tolerations: [{ key: 'spot', operator: 'Exists', effect: 'PreferNoSchedule' }] });
    assert.deepEqual(placeAll([tolerant], nodes), ['node-1']);
  });

  it('NodeResourcesFit LeastAllocated and BalancedAllocation: whole-number scores as kube computes them', () => {
    // kube's own example: 3000m of 4000m cpu and 5000 of 10000 bytes: (25 + 50) / 2 = 37; on 6000m: (50 + 50) / 2 = 50.
    const request = footprintOf(pod('p', {}, {}, { cpu: '3', memory: '5000' }));
    const small = node('n1', { cpu: '4', memory: '10000' });
    const large = node('n2', { cpu: '6', memory: '10000' });
    assert.equal(leastAllocatedScore(small, usageOf([]), request), 37);
    assert.equal(leastAllocatedScore(large, usageOf([]), request), 50);
    // Balanced: shares 0.75 and 0.5, deviation 0.125: 87; on the large node 0.5 and 0.5: 100.
    assert.equal(balancedAllocationScore(small, usageOf([]), request), 87);
    assert.equal(balancedAllocationScore(large, usageOf([]), request), 100);
    // Pods go to the emptier node.
    const busy = new Map([['node-1', [pod('x', {}, {}, { cpu: '2', memory: '4Gi' })]]]);
    assert.deepEqual(placeAll([pod('y', {}, {}, { cpu: '1', memory: '1Gi' })], [node('node-1'), node('node-2')], busy), ['node-2']);
    // Of two nodes about as full, the one whose cpu and memory stay balanced: 50% of the cpu and none of the memory
    // requested (LeastAllocated 73 + Balanced 75) against 40% and 40% (59 + 99).
    const half = new Map([
      ['node-1', [pod('c', {}, {}, { cpu: '1500m' })]],
      ['node-2', [pod('m', {}, {}, { cpu: '1100m', memory: '3Gi' })]],
    ]);
    const bal = pod('z', {}, {}, { cpu: '500m', memory: '2Mi' });
    assert.deepEqual(placeAll([bal], [node('node-1'), node('node-2', { memory: '7680Mi' })], half), ['node-2']);
  });

  it("kube's system default spreading: a ReplicaSet's pods spread over the nodes even where one node has more room", () => {
    const nodes = [big('node-1'), node('node-2'), node('node-3')];
    const owned = (i: number) => {
      const p = pod(`rs-${i}`, { app: 'rs' });
      p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }];
      return p;
    };
    const selector = labelSelectorFromObject({ matchLabels: { app: 'rs' } });
    const withDefaults = placeAll([0, 1, 2].map(owned), nodes, new Map(), { defaultSpreadSelector: () => selector });
    assert.deepEqual(withDefaults.slice().sort(), ['node-1', 'node-2', 'node-3'], withDefaults.join(','));
    // Without a Service or controller that selects them, pods go by room alone.
    assert.deepEqual(placeAll([0, 1, 2].map(owned), nodes), ['node-1', 'node-1', 'node-1']);
  });

  it("the default spread selector: the pod's Services' selectors and its ReplicationController's, ReplicaSet's or StatefulSet's", () => {
    const listers: WorkloadListers = {
      services: (ns) =>
        ns === 'default'
          ? [
              { spec: { selector: { app: 'web' } } },
              { spec: { selector: { app: 'other' } } },
              { spec: {} }, // no selector: selects nothing
            ]
          : [],
      replicationController: (_ns, name) => (name === 'rc' ? { spec: { selector: { app: 'web', rc: 'yes' } } } : undefined),
      replicaSet: (_ns, name) => (name === 'rs' ? { spec: { selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] } } } as never : undefined),
      statefulSet: () => undefined,
    };
    const owned = (kind: string, name: string, apiVersion = kind === 'ReplicationController' ? 'v1' : 'apps/v1') => {
      const p = pod(`${kind}-pod`, { app: 'web', rc: 'yes', tier: 'a' });
      p.metadata.ownerReferences = [{ apiVersion, kind, name, uid: 'u', controller: true }];
      return p;
    };
    assert.equal(defaultSpreadSelector(pod('bare', { app: 'web' }), listers)?.toString(), 'app=web');
    assert.equal(defaultSpreadSelector(pod('alone', { app: 'none' }), listers), undefined);
    assert.equal(defaultSpreadSelector(owned('ReplicationController', 'rc'), listers)?.toString(), 'app=web,rc=yes');
    assert.equal(defaultSpreadSelector(owned('ReplicaSet', 'rs'), listers)?.toString(), 'app=web,tier in (a)');
    // A Job is no spreading controller; a ReplicaSet not in the cache adds nothing.
    assert.equal(defaultSpreadSelector(owned('Job', 'j', 'batch/v1'), listers)?.toString(), 'app=web');
    assert.equal(defaultSpreadSelector(owned('ReplicaSet', 'gone'), listers)?.toString(), 'app=web');
  });

  it("placed pods' preferred affinity draws a matching pod to them; equal nodes take turns", () => {
    const nodes = [big('node-1'), node('node-2')];
    const likesCache = pod('web', { app: 'web' }, {
      affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' } }] } },
    });
    const placed = new Map([['node-2', [likesCache]]]);
    assert.deepEqual(placeAll([pod('cache', { app: 'cache' })], nodes, placed), ['node-2']);
    // Ties: equal nodes, equal pods, in turn.
    const equal = [node('e-1', { cpu: '64', memory: '512Gi' }), node('e-2', { cpu: '64', memory: '512Gi' }), node('e-3', { cpu: '64', memory: '512Gi' })];
    assert.deepEqual(placeAll([0, 1, 2, 3].map((i) => pod(`t-${i}`)), equal), ['e-1', 'e-2', 'e-3', 'e-1']);
  });

  it('ImageLocality: a node that already has a big image of the pod draws it; an image every node has does not', () => {
    const withImages = (name: string, images: { names: string[]; sizeBytes: number }[]) => {
      const n = node(name, { cpu: '64', memory: '128Gi' });
      n.status!.images = images;
      return n;
    };
    const ml = { names: ['registry.example/ml:2.1'], sizeBytes: 3000 * 2 ** 20 };
    const base = { names: ['nginx:latest'], sizeBytes: 500 * 2 ** 20 };
    const nodes = [withImages('node-1', [base]), withImages('node-2', [base]), withImages('node-3', [base, ml])];
    const runs = (image: string) => pod(`p-${image}`, {}, { containers: [{ name: 'app', image }] });
    assert.deepEqual(placeAll([runs('registry.example/ml:2.1')], nodes), ['node-3']);
    // `nginx` is `nginx:latest`, on every node: each scores the same, and the ties take turns.
    assert.deepEqual(placeAll([runs('nginx'), runs('nginx'), runs('nginx')], nodes).sort(), ['node-1', 'node-2', 'node-3']);
  });

  it("kube's DefaultNormalizeScore", () => {
    const scores = [0, 5, 10];
    defaultNormalize(scores, false);
    assert.deepEqual(scores, [0, 50, 100]);
    const reverse = [0, 1, 3];
    defaultNormalize(reverse, true);
    assert.deepEqual(reverse, [100, 67, 0]);
    const none = [0, 0];
    defaultNormalize(none, true);
    assert.deepEqual(none, [100, 100]);
  });
});
