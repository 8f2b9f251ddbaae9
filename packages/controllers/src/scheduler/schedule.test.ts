import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeObject, PodObject } from '../objects.js';
import { filterNode, tolerates } from './filters.js';
import { podRequests, usageOf } from './resources.js';
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
    assert.deepEqual(schedulePod(pod('b'), many, usageOfNode, cursor), { node: 'node-0420' }, 'the next search starts where the last stopped');
    assert.equal(cursor.next, 840);
    // Nodes that do not fit do not count: with every node full but the last, the search goes all the way round.
    const full = many.map((n, i) => (i === 999 ? n : node(n.metadata.name!, { pods: '0' })));
    visited = 0;
    assert.deepEqual(schedulePod(pod('c'), full, usageOfNode, cursor), { node: 'node-0999' });
    assert.equal(visited, 1000);
  });
});
