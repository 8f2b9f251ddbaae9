/**
 * The real kubectl against `operant server`: scheduling.k8s.io/v1
 * PriorityClasses with the system classes every cluster has, kube's default
 * preemption policy, kubectl's columns, and kube's refusals (user values
 * above 1e9, `system-` names, immutable values, a second global default,
 * deleting a system class).
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

describe('kubectl and scheduling.k8s.io PriorityClasses', () => {
  kit('api-resources lists pc; the system classes are there; create priorityclass prints kubectl\'s columns', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=scheduling.k8s.io']));
    assert.deepEqual(rows[1], ['priorityclasses', 'pc', 'scheduling.k8s.io/v1', 'false', 'PriorityClass']);

    await kubectlOk(server(), ['create', 'priorityclass', 'high', '--value=1000', '--description=important']);
    const printed = tableRows(await kubectlOk(server(), ['get', 'pc']));
    assert.deepEqual(printed[0], ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    const byName = new Map(printed.slice(1).map((r) => [r[0], r]));
    assert.deepEqual([...byName.keys()].sort(), ['high', 'system-cluster-critical', 'system-node-critical']);
    assert.deepEqual(byName.get('system-node-critical')!.slice(1, 3), ['2000001000', 'false']);
    assert.deepEqual(byName.get('system-cluster-critical')!.slice(1, 3), ['2000000000', 'false']);
    const high = byName.get('high')!;
    assert.deepEqual([high[1], high[2], high[4]], ['1000', 'false', 'PreemptLowerPriority']);
  });

  kit('kube\'s refusals, in kube\'s words', async () => {
    const tooHigh = await kubectlFails(server(), ['create', 'priorityclass', 'huge', '--value=2000000000']);
    assert.match(tooHigh.stderr, /value: Forbidden: maximum allowed value of a user defined priority is 1000000000/);
    const reserved = await kubectlFails(server(), ['create', 'priorityclass', 'system-mine', '--value=10']);
    assert.match(reserved.stderr, /metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class/);
    const policy = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: odd}\nvalue: 5\npreemptionPolicy: Sometimes\n',
    });
    assert.match(policy.stderr, /preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"/);

    await applyYaml(server(), 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: batch}\nvalue: 10\n');
    const changed = await kubectlFails(server(), ['patch', 'pc', 'batch', '--type=merge', '-p', '{"value":11}']);
    assert.match(changed.stderr, /value: Forbidden: may not be changed in an update./);

    await kubectlOk(server(), ['create', 'priorityclass', 'default-one', '--value=1', '--global-default']);
    const second = await kubectlFails(server(), ['create', 'priorityclass', 'default-two', '--value=2', '--global-default']);
    assert.match(second.stderr, /priorityclasses.scheduling.k8s.io "default-two" is forbidden: PriorityClass default-one is already marked as default. Only one default can exist/);

    const system = await kubectlFails(server(), ['delete', 'pc', 'system-node-critical']);
    assert.match(system.stderr, /priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted/);
  });
});
