/**
 * The real kubectl against `operant server`: node.k8s.io/v1 RuntimeClasses
 * and storage.k8s.io/v1 StorageClasses with kube's defaults, validation
 * messages, immutable fields and kubectl's columns.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

describe('kubectl and RuntimeClasses', () => {
  kit('a RuntimeClass prints its handler, which must be a DNS label and cannot change', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=node.k8s.io']));
    assert.deepEqual(rows[1], ['runtimeclasses', 'node.k8s.io/v1', 'false', 'RuntimeClass']);
    await applyYaml(server(), 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\n');
    const printed = tableRows(await kubectlOk(server(), ['get', 'runtimeclass']));
    assert.deepEqual(printed[0], ['NAME', 'HANDLER', 'AGE']);
    assert.deepEqual(printed[1]!.slice(0, 2), ['gvisor', 'runsc']);

    const bad = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: bad}\nhandler: Not_A_Label\n' });
    assert.match(bad.stderr, /handler: Invalid value: "Not_A_Label": a lowercase RFC 1123 label must consist of/);
    const changed = await kubectlFails(server(), ['patch', 'runtimeclass', 'gvisor', '--type=merge', '-p', '{"handler":"kata"}']);
    assert.match(changed.stderr, /handler: Invalid value: "kata": field is immutable/);
  });
});
