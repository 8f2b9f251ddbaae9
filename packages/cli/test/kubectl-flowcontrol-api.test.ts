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
    assert.deepEqual(levels[1]!.slice(0, 6), ['operators', 'Limited', '30', '64', '8', '50']);
    const schemas = tableRows(await kubectlOk(server(), ['get', 'flowschemas']));
    assert.deepEqual(schemas[0], ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
    assert.deepEqual([...schemas[1]!.slice(0, 4), schemas[1]![5]], ['operators', 'operators', '1000', 'ByUser', '?']);

    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: PriorityLevelConfiguration\nmetadata: {name: bad}\nspec: {type: Limited}\n',
    });
    assert.match(bad.stderr, /spec.limited: Required value: must not be empty when type is Limited/);
  });
});
