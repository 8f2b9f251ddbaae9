/**
 * Which cluster `operant dev` works against: the one a kubeconfig names
 * (--kubeconfig, KUBECONFIG, ~/.kube/config), or, with none or with
 * --embedded, an embedded API server started in this process with its
 * kubeconfig written to .operant/kubeconfig.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultServingCacheDir, startApiServer } from '@operant/apiserver';

export interface DevCluster {
  /** The kubeconfig file the manager and kubectl use. */
  kubeconfig: string;
  /** Stops what dev started (the embedded server and its simulated nodes); nothing for a cluster of the user's. */
  stop(): Promise<void>;
  /** One line saying what this is, for the terminal. */
  describe: string;
}

function configuredKubeconfig(flag: string | undefined): string | undefined {
  if (flag) return resolve(flag);
  const env = process.env.KUBECONFIG?.split(':').find((p) => p && existsSync(p));
  if (env) return resolve(env);
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? home : undefined;
}

/**
 * The cluster to develop against. An embedded one gets `nodes` simulated nodes with the
 * workload controllers and a scheduler, so the operator's Deployments and pods run.
 */
export async function devCluster(options: { kubeconfig?: string; embedded?: boolean; dir: string; nodes: number }): Promise<DevCluster> {
  const configured = options.embedded ? undefined : configuredKubeconfig(options.kubeconfig);
  if (configured) return { kubeconfig: configured, stop: async () => {}, describe: `the cluster in ${configured}` };
  const stateDir = join(options.dir, '.operant');
  mkdirSync(stateDir, { recursive: true });
  const kubeconfig = join(stateDir, 'kubeconfig');
  // In memory, as operant server: the CA and serving certificate come from the user's cache.
  const embedded = await startApiServer({ port: 0, kubeconfigPath: kubeconfig, servingCacheDir: defaultServingCacheDir() });
  const cluster =
    options.nodes > 0 ? await (await import('@operant/controllers')).startSimulatedCluster({ kubeconfig: { kubeconfigText: embedded.kubeconfig }, nodes: options.nodes }) : undefined;
  const nodes = cluster ? ` with ${options.nodes} simulated node(s)` : '';
  return {
    kubeconfig,
    async stop() {
      await cluster?.stop();
      await embedded.stop();
    },
    describe: `an embedded API server${nodes} at ${embedded.url} (kubectl --kubeconfig ${kubeconfig} ...)`,
  };
}
