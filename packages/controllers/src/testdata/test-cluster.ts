/**
 * What the controllers' tests against the embedded server share: one API
 * server and one simulated cluster per test file, started before its tests
 * and stopped after them, with a client of its own.
 */
import { after, before } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, loadKubeConfig } from '@operant/runtime';
import { startSimulatedCluster, type SimulatedCluster, type SimulatedClusterOptions } from '../cluster.js';

/** The running server, cluster and client (valid once the file's `before` hooks ran). */
export interface TestCluster {
  readonly server: RunningApiServer;
  readonly cluster: SimulatedCluster;
  readonly client: Client;
}

/**
 * Registers the hooks that start a server and a simulated cluster with
 * `options` (then call `started` with them) and stop them after the file's tests.
 */
export function useTestCluster(options: Omit<SimulatedClusterOptions, 'kubeconfig'>, started: (env: TestCluster) => void = () => undefined): TestCluster {
  let server: RunningApiServer | undefined;
  let cluster: SimulatedCluster | undefined;
  let client: Client | undefined;
  before(async () => {
    server = await startApiServer({ port: 0 });
    cluster = await startSimulatedCluster({ ...options, kubeconfig: { kubeconfigText: server.kubeconfig } });
    client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
    started(env);
  });
  after(async () => {
    client?.close();
    await cluster?.stop();
    await server?.stop();
  });
  const running = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the test cluster has not started: use it inside a test');
    return value;
  };
  const env: TestCluster = {
    get server() {
      return running(server);
    },
    get cluster() {
      return running(cluster);
    },
    get client() {
      return running(client);
    },
  };
  return env;
}
