/**
 * Which cluster `operant dev` works against: the one a kubeconfig names
 * (--kubeconfig, KUBECONFIG, ~/.kube/config), or, with none or with
 * --embedded, an embedded API server started in this process with its
 * kubeconfig written to .operant/kubeconfig.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';

export interface DevCluster {
  /** The kubeconfig file the manager and kubectl use. */
  kubeconfig: string;
  /** The embedded server, when dev started one. */
  embedded?: RunningApiServer;
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

export async function devCluster(options: { kubeconfig?: string; embedded?: boolean; dir: string }): Promise<DevCluster> {
  const configured = options.embedded ? undefined : configuredKubeconfig(options.kubeconfig);
  if (configured) return { kubeconfig: configured, describe: `the cluster in ${configured}` };
  const stateDir = join(options.dir, '.operant');
  mkdirSync(stateDir, { recursive: true });
  const kubeconfig = join(stateDir, 'kubeconfig');
  const embedded = await startApiServer({ port: 0, kubeconfigPath: kubeconfig });
  return { kubeconfig, embedded, describe: `an embedded API server at ${embedded.url} (kubectl --kubeconfig ${kubeconfig} ...)` };
}
