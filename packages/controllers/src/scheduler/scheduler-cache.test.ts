import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject } from '../objects.js';
import { usageOf, type NodeUsage } from './resources.js';
import { SchedulerCache } from './scheduler-cache.js';

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const nodeNames = ['node-1', 'node-2', 'node-3', 'node-4'];

/** A fresh object each time, as the informer gives a new object for each change. */
function podObject(uid: string, cpu: number, hostPort: number | undefined, nodeName?: string, phase?: string): PodObject {
  return {
    metadata: { name: uid, namespace: 'default', uid },
    spec: {
      ...(nodeName ? { nodeName } : {}),
      // Every seventh pod repels its like, so that the nodes with required anti-affinity are followed too.
      ...(Number(uid.slice(1)) % 7 === 0 ? { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {}, topologyKey: 'kubernetes.io/hostname' }] } } } : {}),
      containers: [
        {
          name: 'app',
          image: 'nginx',
          ...(cpu ? { resources: { requests: { cpu: `${cpu}m`, memory: `${cpu}Mi` } } } : {}),
          ...(hostPort ? { ports: [{ containerPort: 80, hostPort }] } : {}),
        },
      ],
    },
    ...(phase ? { status: { phase } } : {}),
  } as PodObject;
}

/** A usage in a form deepEqual can compare: maps as sorted entries, ports sorted. */
function comparable(u: NodeUsage): unknown {
  return {
    requested: [...u.requested].sort(),
    nonZero: [...u.nonZero].sort(),
    podCount: u.podCount,
    hostPorts: u.hostPorts.map((p) => `${p.ip}:${p.port}/${p.protocol}`).sort(),
    pods: [...u.pods].map((p) => p.metadata.uid).sort(),
    repelling: [...u.podsWithRequiredAntiAffinity].map((p) => p.metadata.uid).sort(),
  };
}

describe('scheduler cache', () => {
  for (const seed of [1, 2, 3, 42, 1234]) {
    it(`keeps each node's usage equal to a sum from scratch through random binds, finishes and deletes (seed ${seed})`, () => {
      const rand = random(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const cache = new SchedulerCache();
      /** What the pod informer holds, by uid. */
      const store = new Map<string, PodObject>();
      /** The model of assumed pods: uid to the node and when. */
      const assumed = new Map<string, { node: string; at: number; pod: PodObject }>();
      const shape = new Map<string, { cpu: number; port: number | undefined }>();
      let now = 0;
      let next = 0;
      const informerSet = (pod: PodObject): void => {
        const old = store.get(pod.metadata.uid!);
        store.set(pod.metadata.uid!, pod);
        if (pod.spec?.nodeName) assumed.delete(pod.metadata.uid!);
        cache.observed(pod, old);
      };
      for (let step = 0; step < 3000; step++) {
        now += Math.floor(rand() * 500);
        const pending = [...store.values()].filter((p) => !p.spec?.nodeName && !assumed.has(p.metadata.uid!));
        const placed = [...assumed.keys()];
        const all = [...store.keys()];
        const r = rand();
        if (r < 0.25 || all.length === 0) {
          const uid = `p${next++}`;
          shape.set(uid, { cpu: rand() < 0.2 ? 0 : 100 * (1 + Math.floor(rand() * 5)), port: rand() < 0.1 ? 8000 + Math.floor(rand() * 3) : undefined });
          const s = shape.get(uid)!;
          // Mostly pending pods; a few arrive bound already (a pod made with spec.nodeName).
          informerSet(podObject(uid, s.cpu, s.port, rand() < 0.1 ? pick(nodeNames) : undefined));
        } else if (r < 0.45 && pending.length) {
          const pod = pick(pending);
          const node = pick(nodeNames);
          assumed.set(pod.metadata.uid!, { node, at: now, pod });
          cache.assume(pod, node, now);
        } else if (r < 0.6 && placed.length) {
          // The binding shows in the cache, now and then on another node than assumed.
          const uid = pick(placed);
          const s = shape.get(uid)!;
          informerSet(podObject(uid, s.cpu, s.port, rand() < 0.9 ? assumed.get(uid)!.node : pick(nodeNames)));
        } else if (r < 0.65 && placed.length) {
          const uid = pick(placed);
          assumed.delete(uid);
          cache.forget(uid);
        } else if (r < 0.75) {
          const pod = store.get(pick(all))!;
          if (pod.spec?.nodeName) {
            const s = shape.get(pod.metadata.uid!)!;
            informerSet(podObject(pod.metadata.uid!, s.cpu, s.port, pod.spec.nodeName, rand() < 0.5 ? 'Succeeded' : 'Failed'));
          }
        } else if (r < 0.8) {
          // A status write that changes nothing the scheduler counts, or a resync (the same object again).
          const pod = store.get(pick(all))!;
          if (rand() < 0.5) informerSet(pod);
          else informerSet({ ...pod, status: { ...pod.status, podIP: '10.0.0.1' } } as PodObject);
        } else if (r < 0.95) {
          const uid = pick(all);
          const pod = store.get(uid)!;
          store.delete(uid);
          assumed.delete(uid);
          cache.removed(pod);
        } else {
          for (const [uid, a] of assumed) if (now - a.at > 30_000) assumed.delete(uid);
          cache.expire(now);
        }
        for (const node of nodeNames) {
          const counted = [
            ...[...store.values()].filter((p) => p.spec?.nodeName === node && !['Succeeded', 'Failed'].includes(p.status?.phase ?? '')),
            ...[...assumed.values()].filter((a) => a.node === node).map((a) => a.pod),
          ];
          assert.deepEqual(comparable(cache.usage(node)), comparable(usageOf(counted)), `step ${step}, ${node}`);
          const repels = counted.some((p) => p.spec?.affinity?.podAntiAffinity);
          assert.equal([...cache.nodesWithRequiredAntiAffinity()].includes(node), repels, `step ${step}, ${node} with required anti-affinity`);
        }
      }
    });
  }

  it('an assumed pod counts once the cache shows it bound, and a failed binding frees its room', () => {
    const cache = new SchedulerCache();
    const pod = podObject('a', 500, 8080);
    cache.observed(pod);
    assert.equal(cache.usage('node-1').podCount, 0);
    cache.assume(pod, 'node-1', 0);
    assert.equal(cache.usage('node-1').requested.get('cpu'), 500);
    assert.equal(cache.usage('node-1').hostPorts.length, 1);
    // The pod's own status write, before the binding shows: still assumed.
    cache.observed({ ...pod, status: { conditions: [] } } as PodObject, pod);
    assert.equal(cache.isAssumed('a'), true);
    assert.equal(cache.usage('node-1').podCount, 1);
    cache.forget('a');
    assert.equal(cache.usage('node-1').podCount, 0);
    assert.equal(cache.usage('node-1').hostPorts.length, 0);
    cache.assume(pod, 'node-1', 0);
    cache.observed(podObject('a', 500, 8080, 'node-2'), pod);
    assert.equal(cache.isAssumed('a'), false);
    assert.equal(cache.usage('node-1').podCount, 0);
    assert.equal(cache.usage('node-2').requested.get('cpu'), 500);
    // Forgetting after the cache showed it bound changes nothing.
    cache.forget('a');
    assert.equal(cache.usage('node-2').podCount, 1);
  });
});
