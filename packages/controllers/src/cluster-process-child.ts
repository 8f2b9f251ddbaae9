/**
 * The child side of {@link startSimulatedClusterProcess}: waits for its
 * options on the IPC channel, starts the simulated cluster, says `ready`,
 * and stops it (then exits) when the parent asks, on SIGTERM or SIGINT, or
 * when the channel closes because the parent is gone.
 */
import { loadKubeConfig } from '@operant/runtime';
import { acceleratedClockSince } from './clock.js';
import { startSimulatedCluster, type SimulatedCluster } from './cluster.js';
import type { FromClusterChild, ToClusterChild } from './cluster-process.js';

let cluster: Promise<SimulatedCluster> | undefined;
let stopping = false;

function answer(message: FromClusterChild): void {
  if (process.connected) process.send!(message);
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await (await cluster?.catch(() => undefined))?.stop();
  } finally {
    process.exit(0);
  }
}

process.on('message', (message: ToClusterChild) => {
  if (message.type === 'stop') {
    void stop();
    return;
  }
  if (cluster) return;
  const { timeScale = 1, timeAnchor, kubeconfig, socketPath, ...options } = message.options;
  const clock = timeScale === 1 ? undefined : acceleratedClockSince(timeAnchor, timeScale);
  // On the server's private socket: the kubeconfig's credentials, the socket as the way there.
  cluster = socketPath === undefined ? startSimulatedCluster({ ...options, kubeconfig, clock }) : loadKubeConfig(kubeconfig).then((config) => startSimulatedCluster({ ...options, kubeconfig: { ...config, socketPath }, clock }));
  cluster.then(
    (c) => answer({ type: 'ready', nodes: [...c.nodes] }),
    (err: unknown) => {
      answer({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
      process.exit(1);
    },
  );
});
// The parent is gone (even killed with SIGKILL: the kernel closes its end of the channel).
process.on('disconnect', () => void stop());
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
