/**
 * Deployments whose namespace is deleted as soon as they are created (a
 * test's namespace, deleted as the test ends): the controller's ReplicaSet
 * creates are refused, 403 with the NamespaceTerminating cause. kube's
 * deployment controller forgets such a sync (its handleErr drops an error with
 * that cause, without a log line or a retry): the namespace, and the
 * Deployment with it, are on their way out. The simulated one logged a
 * 'Reconciler error' for each, at the end of every such test.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, Deployment, Namespace, loadKubeConfig, type LogFields, type LogMethods } from '@operant/runtime';
import { startSimulatedCluster, type SimulatedCluster } from '../cluster.js';

const lines: Array<{ level: string; fields: LogFields; msg: string }> = [];
const capture = (level: string) => (fields: LogFields, msg: string) => void lines.push({ level, fields, msg });
const logger: LogMethods = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };

let server: RunningApiServer;
let cluster: SimulatedCluster;
let client: Client;
before(async () => {
  server = await startApiServer({ port: 0 });
  cluster = await startSimulatedCluster({ nodes: 1, logger, kubeconfig: { kubeconfigText: server.kubeconfig } });
  client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
});
after(async () => {
  client.close();
  await cluster.stop();
  await server.stop();
});

test('ReplicaSet creates refused because the namespace is terminating log no reconcile error', async () => {
  for (let round = 0; round < 5; round++) {
    const ns = `going-${round}`;
    await client.create(Namespace, { metadata: { name: ns } });
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.create(Deployment, {
          metadata: { name: `web-${i}`, namespace: ns },
          spec: { replicas: 1, selector: { matchLabels: { app: `web-${i}` } }, template: { metadata: { labels: { app: `web-${i}` } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
        }),
      ),
    );
    await client.delete(Namespace, ns);
  }
  // Until every namespace is gone: by then each Deployment was synced, or deleted before it could be.
  const deadline = Date.now() + 30_000;
  while ((await client.list(Namespace)).items.some((n) => n.metadata.name!.startsWith('going-'))) {
    assert.ok(Date.now() < deadline, 'the namespaces are deleted');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // (The scheduler's bindings into such a namespace are refused too; kube's scheduler logs those as well.)
  const refused = lines.filter((l) => l.level === 'error' && l.fields.controller === 'deployment' && /because it is being terminated/.test(String((l.fields.err as Error | undefined)?.message)));
  assert.deepEqual(refused.map((l) => `${String(l.fields.controller)} ${String(l.fields.namespace)}/${String(l.fields.name)}: ${l.msg}`), []);
});
