import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeObject, PodObject } from '../objects.js';
import { filterNode, tolerates } from './filters.js';
import { clusterPodsOf, type ClusterPods } from './pod-checks.js';
import { podRequests, usageOf, type NodeUsage } from './resources.js';
import { feasibleNodesToFind, fitErrorMessage, schedulePod } from './schedule.js';

function node(name: string, extra: { cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: NodeObject['spec'] extends infer S ? S extends { taints?: infer T } ? T : never : never; unschedulable?: boolean; ready?: 'True' | 'False' | 'Unknown' } = {}): NodeObject {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra.labels } },
    spec: { taints: extra.taints, unschedulable: extra.unschedulable },
    status: {
      allocatable: { cpu: extra.cpu ?? '4', memory: extra.memory ?? '8Gi', pods: extra.pods ?? '110' },
      conditions: [{ type: 'Ready', status: extra.ready ?? 'True' }],
    },
  } as NodeObject;
}

function pod(name: string, spec: Partial<NonNullable<PodObject['spec']>> = {}, requests?: Record<string, string>): PodObject {
  return {
    metadata: { name, namespace: 'default', uid: `${name}-uid` },
    spec: { containers: [{ name: 'app', image: 'nginx', ...(requests ? { resources: { requests } } : {}) }], ...spec },
  } as PodObject;
}

const empty = usageOf([]);

describe('scheduler filters', () => {
  it('tolerations match taints as kube matches them', () => {
    const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    assert.equal(tolerates({ key: 'dedicated', operator: 'Equal', value: 'gpu' }, taint), true);
    assert.equal(tolerates({ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }, taint), false);
    assert.equal(tolerates({ key: 'dedicated', operator: 'Exists' }, taint), true);
    assert.equal(tolerates({ operator: 'Exists' }, taint), true);
    assert.equal(tolerates({ key: 'dedicated', value: 'cpu' }, taint), false);
  });

  it('an untolerated NoSchedule or NoExecute taint keeps a pod off; readiness counts only through the taints the node lifecycle controller puts', () => {
    const tainted = node('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
    assert.deepEqual(filterNode(pod('p'), tainted, empty), { reasons: ['node(s) had untolerated taint {dedicated: gpu}'], unresolvable: true });
    assert.equal(filterNode(pod('p', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }), tainted, empty), undefined);
    const soft = node('n2', { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] });
    assert.equal(filterNode(pod('p'), soft, empty), undefined);
    // kube-scheduler does not look at a node's Ready condition.
    assert.equal(filterNode(pod('p'), node('n3', { ready: 'False' }), empty), undefined);
    const notReady = node('n3', { ready: 'False', taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] });
    assert.deepEqual(filterNode(pod('p'), notReady, empty)?.reasons, ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']);
    const unreachable = node('n4', { ready: 'Unknown', taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' }] });
    assert.deepEqual(filterNode(pod('p'), unreachable, empty)?.reasons, ['node(s) had untolerated taint {node.kubernetes.io/unreachable: }']);
    assert.deepEqual(filterNode(pod('p'), node('n5', { unschedulable: true }), empty)?.reasons, ['node(s) were unschedulable']);
  });

  it('nodeSelector and required node affinity', () => {
    const zoneA = node('a', { labels: { zone: 'a', gen: '5' } });
    const mismatch = { reasons: ["node(s) didn't match Pod's node affinity/selector"], unresolvable: true };
    assert.equal(filterNode(pod('p', { nodeSelector: { zone: 'a' } }), zoneA, empty), undefined);
    assert.deepEqual(filterNode(pod('p', { nodeSelector: { zone: 'b' } }), zoneA, empty), mismatch);
    const affinity = (expr: Record<string, unknown>) =>
      pod('p', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr as never] }] } } } });
    assert.equal(filterNode(affinity({ key: 'zone', operator: 'In', values: ['a', 'b'] }), zoneA, empty), undefined);
    assert.deepEqual(filterNode(affinity({ key: 'zone', operator: 'NotIn', values: ['a'] }), zoneA, empty), mismatch);
    assert.equal(filterNode(affinity({ key: 'gen', operator: 'Gt', values: ['4'] }), zoneA, empty), undefined);
    assert.deepEqual(filterNode(affinity({ key: 'gpu', operator: 'Exists' }), zoneA, empty), mismatch);
  });

  it('resources: requests against allocatable minus what the node\'s pods request; every shortage named', () => {
    const small = node('s', { cpu: '1', memory: '1Gi', pods: '2' });
    const used = usageOf([pod('a', {}, { cpu: '600m', memory: '512Mi' })]);
    assert.equal(filterNode(pod('p', {}, { cpu: '400m' }), small, used), undefined);
    assert.deepEqual(filterNode(pod('p', {}, { cpu: '500m', memory: '600Mi' }), small, used), { reasons: ['Insufficient cpu', 'Insufficient memory'], unresolvable: false });
    const full = usageOf([pod('a'), pod('b')]);
    assert.deepEqual(filterNode(pod('p'), small, full)?.reasons, ['Too many pods']);
    assert.deepEqual(filterNode(pod('p', {}, { 'nvidia.com/gpu': '1' }), small, empty)?.reasons, ['Insufficient nvidia.com/gpu']);
  });

  it('a pod requests the most of its containers and its init containers, plus overhead', () => {
    const p = pod('p', {
      initContainers: [
        { name: 'sidecar', image: 'envoy', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
        { name: 'migrate', image: 'tool', resources: { requests: { cpu: '2' } } },
      ],
      containers: [
        { name: 'app', image: 'nginx', resources: { requests: { cpu: '500m' }, limits: { memory: '1Gi' } } },
        { name: 'log', image: 'fluentd', resources: { requests: { cpu: '250m' } } },
      ],
      overhead: { cpu: '10m' },
    });
    const r = podRequests(p);
    // max(500m + 250m + sidecar 100m, migrate 2 + sidecar 100m) + 10m overhead; memory from the limit.
    assert.equal(r.get('cpu'), 2110);
    assert.equal(r.get('memory'), 2 ** 30 * 1000);
  });
});

describe('scheduling decisions', () => {
  const nodes = [node('node-1'), node('node-2'), node('node-3')];

  it('spreads equal pods over equal nodes, least requested first', () => {
    const placed = new Map<string, PodObject[]>();
    const names: string[] = [];
    for (let i = 0; i < 6; i++) {
      const p = pod(`p${i}`);
      const result = schedulePod(p, nodes, (n) => usageOf(placed.get(n) ?? []));
      assert.ok('node' in result);
      names.push(result.node);
      placed.set(result.node, [...(placed.get(result.node) ?? []), p]);
    }
    assert.deepEqual(names, ['node-1', 'node-2', 'node-3', 'node-1', 'node-2', 'node-3']);
    // A node with more room wins.
    const busy = new Map([['node-1', [pod('x', {}, { cpu: '2' })]]]);
    const result = schedulePod(pod('y', {}, { cpu: '1' }), [node('node-1'), node('node-2', { cpu: '2' })], (n) => usageOf(busy.get(n) ?? []));
    assert.deepEqual(result, { node: 'node-2' });
  });

  it("a pod that fits nowhere gets kube-scheduler's FitError message", () => {
    const result = schedulePod(pod('big', {}, { cpu: '64' }), nodes, () => empty);
    assert.deepEqual(result, {
      message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..',
    });
    const mixed = [node('a', { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] }), node('b'), node('c', { cpu: '1' })];
    const why = schedulePod(pod('p', {}, { cpu: '2', memory: '9Gi' }), mixed, () => empty);
    assert.deepEqual(why, {
      message:
        '0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: db}, 2 Insufficient memory. ' +
        'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod..',
    });
    assert.deepEqual(schedulePod(pod('p'), [], () => empty), { message: 'no nodes available to schedule pods' });
    const never = fitErrorMessage(pod('p', { preemptionPolicy: 'Never' }), 1, new Map([['a', { reasons: ['Insufficient cpu'], unresolvable: false }]]));
    assert.equal(never, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
  });

  it("a large cluster is sampled as kube-scheduler samples it: enough feasible nodes, then on from where the last search stopped", () => {
    // kube's adaptive percentageOfNodesToScore: all nodes under 100, never fewer than 100 (49% of 200 is 98), 42% of 1,000, at least 5%.
    assert.deepEqual([50, 99, 100, 200, 1000, 5000, 10_000].map(feasibleNodesToFind), [50, 99, 100, 100, 420, 500, 500]);
    const many = Array.from({ length: 1000 }, (_, i) => node(`node-${String(i).padStart(4, '0')}`));
    const usage = new Map<string, number>();
    let visited = 0;
    const usageOfNode = (n: string) => {
      visited++;
      return usageOf(Array.from({ length: usage.get(n) ?? 0 }, (_, i) => pod(`${n}-${i}`)));
    };
    const cursor = { next: 0 };
    const first = schedulePod(pod('a'), many, usageOfNode, cursor);
    assert.equal(visited, 420, 'stops once 420 nodes fit');
    assert.deepEqual(first, { node: 'node-0000' });
    assert.equal(cursor.next, 420);
    usage.set('node-0000', 1);
    visited = 0;
    // The 420 empty nodes from node-0420 on tie; the ties take turns (kube picks one at random), and this is the second decision with a tie.
    assert.deepEqual(schedulePod(pod('b'), many, usageOfNode, cursor), { node: 'node-0421' }, 'the next search starts where the last stopped');
    assert.equal(cursor.next, 840);
    // Nodes that do not fit do not count: with every node full but the last, the search goes all the way round.
    const full = many.map((n, i) => (i === 999 ? n : node(n.metadata.name!, { pods: '0' })));
    visited = 0;
    assert.deepEqual(schedulePod(pod('c'), full, usageOfNode, cursor), { node: 'node-0999' });
    assert.equal(visited, 1000);
  });
});

describe('pod affinity, anti-affinity and topology spread', () => {
  const zoned = [node('node-1', { labels: { zone: 'a' } }), node('node-2', { labels: { zone: 'a' } }), node('node-3', { labels: { zone: 'b' } })];
  const labelled = (name: string, labels: Record<string, string>, spec: Partial<NonNullable<PodObject['spec']>> = {}, namespace = 'default'): PodObject => {
    const p = pod(name, spec);
    p.metadata.labels = labels;
    p.metadata.namespace = namespace;
    return p;
  };
  const term = (labels: Record<string, string>, topologyKey: string, extra: Record<string, unknown> = {}) => ({ labelSelector: { matchLabels: labels }, topologyKey, ...extra });
  const antiAffinity = (...terms: ReturnType<typeof term>[]) => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } } });
  const affinity = (...terms: ReturnType<typeof term>[]) => ({ affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } } });
  /** A decision that sees placed pods' anti-affinity (the scheduler's cache tells it where they are; here every node is looked at). */
  const decide = (p: PodObject, on: NodeObject[], usage: (n: string) => NodeUsage, _cursor?: undefined, cluster?: ClusterPods) =>
    schedulePod(p, on, usage, undefined, cluster ?? clusterPodsOf(on, usage));
  /** Places `pods` one after another, each seeing the ones before (as the cache's assumed pods make them seen). */
  const placeAll = (pods: PodObject[], on: NodeObject[] = zoned, placed = new Map<string, PodObject[]>()) =>
    pods.map((p) => {
      const result = decide(p, on, (n) => usageOf(placed.get(n) ?? []));
      if ('node' in result) placed.set(result.node, [...(placed.get(result.node) ?? []), p]);
      return 'node' in result ? result.node : result.message;
    });

  it('required anti-affinity on the hostname: one replica per node, then none fits, worded as kube words it', () => {
    const replica = (i: number) => labelled(`web-${i}`, { app: 'web' }, antiAffinity(term({ app: 'web' }, 'kubernetes.io/hostname')));
    assert.deepEqual(placeAll([0, 1, 2, 3].map(replica)), [
      'node-1',
      'node-2',
      'node-3',
      "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..",
    ]);
    // Anti-affinity over a zone: one per zone. Pods of another namespace do not repel (the term's namespace is the pod's own).
    const zonal = (i: number, ns = 'default') => labelled(`z-${i}`, { app: 'z' }, antiAffinity(term({ app: 'z' }, 'zone')), ns);
    const placed = placeAll([zonal(0), zonal(1), zonal(2), zonal(3, 'other')]);
    assert.deepEqual(placed.slice(0, 2), ['node-1', 'node-3']);
    assert.match(placed[2]!, /^0\/3 nodes are available: 3 node\(s\) didn't match pod anti-affinity rules\./);
    assert.equal(placed[3], 'node-2');
  });

  it("a placed pod's anti-affinity keeps matching pods away; a node without the topology key is not repelled", () => {
    const guard = labelled('guard', { role: 'guard' }, antiAffinity(term({ app: 'noisy' }, 'zone')));
    const noisy = labelled('noisy', { app: 'noisy' });
    const nodes = [...zoned, node('node-4')];
    const placed = new Map([['node-3', [guard]]]);
    const usage = (n: string) => usageOf(placed.get(n) ?? []);
    assert.deepEqual(filterNode(noisy, zoned[2]!, usage('node-3')), undefined, 'the node filters alone do not see it');
    const result = decide(noisy, [nodes[2]!, nodes[3]!], usage);
    assert.deepEqual(result, { node: 'node-4' });
    const none = decide(noisy, [nodes[2]!], usage);
    assert.deepEqual(none, {
      message:
        "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod..",
    });
    // A namespaceSelector on the placed pod's term matches the incoming pod's namespace by its labels.
    const selective = labelled('guard2', { role: 'guard' }, antiAffinity(term({ app: 'noisy' }, 'zone', { namespaceSelector: { matchLabels: { team: 'x' } } })));
    const elsewhere = new Map([['node-3', [selective]]]);
    const other = labelled('noisy2', { app: 'noisy' }, {}, 'team-x');
    const cluster: ClusterPods = {
      nodesWithRequiredAntiAffinity: () => ['node-3'],
      namespaceLabels: (ns: string): Record<string, string> => (ns === 'team-x' ? { team: 'x' } : {}),
      namespaces: () => [{ name: 'team-x', labels: { team: 'x' } }],
    };
    const u = (n: string) => usageOf(elsewhere.get(n) ?? []);
    assert.ok('message' in decide(other, [nodes[2]!], u, undefined, cluster));
    assert.deepEqual(decide(labelled('noisy3', { app: 'noisy' }), [nodes[2]!], u, undefined, cluster), { node: 'node-3' }, 'default is not team x');
  });

  it('required affinity: with the pods it names, in their domain; the first of a self-affine group goes anywhere; unresolvable', () => {
    const db = labelled('db', { app: 'db' });
    const placed = new Map([['node-3', [db]]]);
    const usage = (n: string) => usageOf(placed.get(n) ?? []);
    const nearDb = labelled('cache', { app: 'cache' }, affinity(term({ app: 'db' }, 'zone')));
    assert.deepEqual(decide(nearDb, zoned, usage), { node: 'node-3' });
    const missing = labelled('x', { app: 'x' }, affinity(term({ app: 'nope' }, 'zone')));
    assert.deepEqual(decide(missing, zoned, usage), {
      message: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..",
    });
    // Pods with affinity to each other: the first goes where the score sends it, the rest follow it into its zone.
    const group = (i: number) => labelled(`g-${i}`, { app: 'g' }, affinity(term({ app: 'g' }, 'zone')));
    const where = placeAll([0, 1, 2, 3].map(group));
    assert.deepEqual(where, ['node-1', 'node-2', 'node-1', 'node-2']);
    // A node without the topology key never fits a pod with affinity.
    assert.ok('message' in decide(nearDb, [node('bare')], () => empty));
  });

  it('topology spread DoNotSchedule: maxSkew over the domains, self-match, minDomains, missing label, and pods left out', () => {
    const spread = (name: string, key: string, extra: Record<string, unknown> = {}) =>
      labelled(name, { app: 'web' }, { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, ...extra } as never] });
    // Over zones a (2 nodes) and b (1 node): 3 and 3, so node-3 takes three (the score alone would put 4 in zone a).
    const where = placeAll([0, 1, 2, 3, 4, 5].map((i) => spread(`z-${i}`, 'zone')));
    assert.deepEqual(where.filter((n) => n === 'node-3').length, 3, where.join(','));
    // A node busy with other work would get none by score; the constraint over the hostname still gives it its share.
    const busy = new Map([['node-1', [labelled('big', { app: 'batch' }, {}, 'default')]]]);
    busy.get('node-1')![0]!.spec!.containers[0]!.resources = { requests: { cpu: '3' } };
    const hosts = placeAll([0, 1, 2, 3, 4, 5].map((i) => spread(`h-${i}`, 'kubernetes.io/hostname')), zoned, busy);
    assert.deepEqual(['node-1', 'node-2', 'node-3'].map((n) => hosts.filter((h) => h === n).length), [2, 2, 2], hosts.join(','));
    // A node without the key holds no domain and cannot take the pod (unresolvable); a skew can (preemption could help).
    const skewed = new Map([['node-1', [labelled('a', { app: 'web' }), labelled('b', { app: 'web' })]]]);
    const nolabel = { ...node('nolabel'), metadata: { name: 'nolabel', labels: {} } } as NodeObject;
    const onSkewed = (n: string) => usageOf(skewed.get(n) ?? []);
    assert.deepEqual(decide(spread('p', 'zone'), [zoned[0]!, zoned[2]!, nolabel], onSkewed), { node: 'node-3' });
    const cordoned = node('node-3', { labels: { zone: 'b' }, unschedulable: true });
    assert.deepEqual(decide(spread('p', 'zone'), [zoned[0]!, cordoned, nolabel], onSkewed), {
      message:
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) didn't match pod topology spread constraints (missing required label), " +
        '1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling..',
    });
    // minDomains 2 with one domain: the minimum is taken as 0, so a second pod cannot join the first.
    const withMin = (name: string) => spread(name, 'zone', { minDomains: 2 });
    assert.deepEqual(placeAll([withMin('m0'), withMin('m1')], [zoned[0]!]).map((r) => (r.startsWith('0/1 nodes') ? 'none' : r)), ['node-1', 'none']);
    // Pods of other namespaces, pods being deleted, and pods the selector does not match do not count.
    const live = labelled('d', { app: 'web' });
    const deleting = { ...live, metadata: { ...live.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } } as PodObject;
    const noisy = new Map([['node-1', [labelled('o', { app: 'web' }, {}, 'other'), deleting, labelled('n', { app: 'api' })]]]);
    assert.deepEqual(placeAll([spread('q0', 'kubernetes.io/hostname'), spread('q1', 'kubernetes.io/hostname')], [zoned[0]!, zoned[1]!], noisy), ['node-2', 'node-1']);
    // matchLabelKeys: only the pods with the pod's own value of the key count (node-1 is big enough to win on score).
    const rev = (name: string, hash: string) => {
      const p = spread(name, 'kubernetes.io/hostname', { matchLabelKeys: ['pod-template-hash'] });
      p.metadata.labels = { app: 'web', 'pod-template-hash': hash };
      return p;
    };
    const twoNodes = [node('node-1', { cpu: '64', memory: '256Gi' }), node('node-2')];
    const old = new Map([['node-1', [rev('old-0', 'v1'), rev('old-1', 'v1')]]]);
    assert.deepEqual(decide(rev('new-0', 'v2'), twoNodes, (n) => usageOf(old.get(n) ?? [])), { node: 'node-1' });
    assert.deepEqual(decide(rev('old-2', 'v1'), twoNodes, (n) => usageOf(old.get(n) ?? [])), { node: 'node-2' });
  });
});
