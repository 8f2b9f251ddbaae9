/**
 * The real kubectl against `operant server`: flowcontrol.apiserver.k8s.io/v1
 * FlowSchemas and PriorityLevelConfigurations are stored and served (the
 * server does not apply priority and fairness), with kube's defaults,
 * kubectl's columns and kube's checks.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

describe('kubectl and flowcontrol.apiserver.k8s.io', () => {
  kit('a PriorityLevelConfiguration and a FlowSchema get kube\'s defaults and print kubectl\'s columns', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=flowcontrol.apiserver.k8s.io'])).slice(1).map((r) => r.join(' '));
    assert.deepEqual(rows, [
      'flowschemas flowcontrol.apiserver.k8s.io/v1 false FlowSchema',
      'prioritylevelconfigurations flowcontrol.apiserver.k8s.io/v1 false PriorityLevelConfiguration',
    ]);
    await applyYaml(
      server(),
      `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: operators}
spec:
  type: Limited
  limited: {limitResponse: {type: Queue, queuing: {}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: operators}
spec:
  priorityLevelConfiguration: {name: operators}
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [{kind: Group, group: {name: system:serviceaccounts}}]
    resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]
`,
    );
    const plc = JSON.parse(await kubectlOk(server(), ['get', 'prioritylevelconfiguration', 'operators', '-o', 'json'])) as { spec: { limited: Record<string, unknown> } };
    assert.equal(plc.spec.limited.nominalConcurrencyShares, 30);
    assert.deepEqual((plc.spec.limited.limitResponse as Record<string, unknown>).queuing, { handSize: 8, queueLengthLimit: 50, queues: 64 });
    const levels = tableRows(await kubectlOk(server(), ['get', 'prioritylevelconfigurations']));
    assert.deepEqual(levels[0], ['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
    assert.deepEqual(levels.find((r) => r[0] === 'operators')!.slice(0, 6), ['operators', 'Limited', '30', '64', '8', '50']);
    const schemas = tableRows(await kubectlOk(server(), ['get', 'flowschemas']));
    assert.deepEqual(schemas[0], ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    // MISSINGPL is the Dangling condition kube's priority-and-fairness controller keeps (False: the level exists).
    const operators = schemas.find((r) => r[0] === 'operators')!;
    assert.deepEqual([...operators.slice(0, 4), operators[5]], ['operators', 'operators', '1000', 'ByUser', 'False']);

    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: bad}\nspec: {type: Limited}\n',
    });
    assert.match(bad.stderr, /spec.limited: Required value: must not be empty when type is Limited/);
  });

  kit("kube's bootstrap configuration is there: the mandatory and suggested flow schemas and priority levels", async () => {
    const levels = tableRows(await kubectlOk(server(), ['get', 'prioritylevelconfigurations']));
    const level = (name: string): string[] => levels.find((r) => r[0] === name)!.slice(1, 6);
    for (const name of ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']) assert.ok(level(name), name);
    assert.deepEqual(level('exempt'), ['Exempt', '<none>', '<none>', '<none>', '<none>']);
    assert.deepEqual(level('catch-all'), ['Limited', '5', '<none>', '<none>', '<none>']);
    assert.deepEqual(level('workload-low'), ['Limited', '100', '128', '6', '50']);
    assert.deepEqual(level('leader-election'), ['Limited', '10', '16', '4', '50']);

    const schemas = tableRows(await kubectlOk(server(), ['get', 'flowschemas', '--sort-by=.spec.matchingPrecedence']));
    assert.deepEqual(
      schemas.slice(1).map((r) => [r[0], r[1], r[2], r[3], r[5]]).filter((r) => r[0] !== 'operators'),
      [
        ['exempt', 'exempt', '1', '<none>', 'False'],
        ['probes', 'exempt', '2', '<none>', 'False'],
        ['system-leader-election', 'leader-election', '100', 'ByUser', 'False'],
        ['endpoint-controller', 'workload-high', '150', 'ByUser', 'False'],
        ['workload-leader-election', 'leader-election', '200', 'ByUser', 'False'],
        ['system-node-high', 'node-high', '400', 'ByUser', 'False'],
        ['system-nodes', 'system', '500', 'ByUser', 'False'],
        ['kube-controller-manager', 'workload-high', '800', 'ByNamespace', 'False'],
        ['kube-scheduler', 'workload-high', '800', 'ByNamespace', 'False'],
        ['kube-system-service-accounts', 'workload-high', '900', 'ByNamespace', 'False'],
        ['service-accounts', 'workload-low', '9000', 'ByUser', 'False'],
        ['global-default', 'global-default', '9900', 'ByUser', 'False'],
        ['catch-all', 'catch-all', '10000', 'ByUser', 'False'],
      ],
    );
    const annotations = JSON.parse(await kubectlOk(server(), ['get', 'flowschema', 'exempt', '-o', 'jsonpath={.metadata.annotations}']));
    assert.deepEqual(annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
  });
});
