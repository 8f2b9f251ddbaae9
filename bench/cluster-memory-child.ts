/**
 * The simulated cluster in a child process for cluster-memory.ts: the same
 * startSimulatedCluster that `startSimulatedClusterProcess` runs, plus
 * answers about its own memory (raw, and after a forced collection when
 * started with --expose-gc) and heap snapshots on request.
 */
import { writeHeapSnapshot } from 'node:v8';
import { startSimulatedCluster } from '@operant/controllers';
import { settle } from './settle.js';

export type ToChild = { type: 'start'; kubeconfigText: string; nodes: number } | { type: 'memory'; gc: boolean; id: number } | { type: 'snapshot'; file: string; id: number } | { type: 'stop' };
export type FromChild = { type: 'ready' } | { type: 'memory'; id: number; heap: number; heapTotal: number; rss: number; external: number } | { type: 'snapshot'; id: number; file: string };

let cluster: Awaited<ReturnType<typeof startSimulatedCluster>> | undefined;
const send = (m: FromChild): void => void process.send!(m);

process.on('message', (m: ToChild) => {
  void (async () => {
    if (m.type === 'start') {
      cluster = await startSimulatedCluster({ kubeconfig: { kubeconfigText: m.kubeconfigText }, nodes: m.nodes });
      send({ type: 'ready' });
    } else if (m.type === 'memory') {
      if (m.gc) await settle();
      const u = process.memoryUsage();
      send({ type: 'memory', id: m.id, heap: u.heapUsed, heapTotal: u.heapTotal, rss: u.rss, external: u.external });
    } else if (m.type === 'snapshot') {
      send({ type: 'snapshot', id: m.id, file: writeHeapSnapshot(m.file) });
    } else {
      await cluster?.stop();
      process.exit(0);
    }
  })();
});
process.on('disconnect', () => process.exit(0));
