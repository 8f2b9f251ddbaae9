/**
 * The real kubectl against `operant server`: `kubectl get apiservices` lists
 * the local APIService of every group version served, Available, as on a
 * 1.32 cluster; a user's APIService with a service shows why it is not.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

describe('kubectl and apiregistration.k8s.io APIServices', () => {
  kit('get apiservices lists the local ones; a user\'s shows its availability', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=apiregistration.k8s.io']));
    assert.deepEqual(rows[1], ['apiservices', 'apiregistration.k8s.io/v1', 'false', 'APIService']);

    const printed = tableRows(await kubectlOk(server(), ['get', 'apiservices']));
    assert.deepEqual(printed[0], ['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    const byName = new Map(printed.slice(1).map((r) => [r[0], r]));
    for (const name of ['v1.', 'v1.apps', 'v2.autoscaling', 'v1.certificates.k8s.io']) assert.deepEqual(byName.get(name)?.slice(1, 3), ['Local', 'True'], name);

    await applyYaml(
      server(),
      `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {name: metrics-server, namespace: kube-system}
`,
    );
    const status = await kubectlOk(server(), ['wait', '--for=condition=Available=False', 'apiservice/v1beta1.metrics.k8s.io', '--timeout=10s']);
    assert.match(status, /condition met/);
    const metrics = tableRows(await kubectlOk(server(), ['get', 'apiservice', 'v1beta1.metrics.k8s.io']));
    assert.deepEqual(metrics[1].slice(0, 3), ['v1beta1.metrics.k8s.io', 'kube-system/metrics-server', 'False (ServiceNotFound)']);

    const wrong = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: metrics}\nspec: {group: metrics.k8s.io, version: v1, groupPriorityMinimum: 100, versionPriority: 100}\n',
    });
    assert.match(wrong.stderr, /metadata.name: Invalid value: "metrics": must be `spec.version\+"."\+spec.group`: "v1.metrics.k8s.io"/);
  });
});
