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

describe('kubectl and StorageClasses', () => {
  kit('a StorageClass gets kube\'s defaults and columns, the default class is marked, and its settings cannot change', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=storage.k8s.io']));
    assert.ok(rows.some((r) => r.join(' ') === 'storageclasses sc storage.k8s.io/v1 false StorageClass'), JSON.stringify(rows));
    await applyYaml(
      server(),
      `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
parameters: {type: gp3}
reclaimPolicy: Retain
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
`,
    );
    const standard = JSON.parse(await kubectlOk(server(), ['get', 'sc', 'standard', '-o', 'json'])) as Record<string, unknown>;
    assert.equal(standard.reclaimPolicy, 'Delete');
    assert.equal(standard.volumeBindingMode, 'Immediate');
    const printed = tableRows(await kubectlOk(server(), ['get', 'storageclass']));
    assert.deepEqual(printed[0], ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    assert.deepEqual(printed.slice(1).map((r) => r.slice(0, 5)), [
      ['fast', 'ebs.csi.aws.com', 'Retain', 'WaitForFirstConsumer', 'true'],
      ['standard (default)', 'rancher.io/local-path', 'Delete', 'Immediate', 'false'],
    ]);

    const changed = await kubectlFails(server(), ['patch', 'sc', 'fast', '--type=merge', '-p', '{"parameters":{"type":"io2"},"reclaimPolicy":"Delete"}']);
    assert.match(changed.stderr, /parameters: Forbidden: updates to parameters are forbidden./);
    assert.match(changed.stderr, /reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden./);
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: bad}\nprovisioner: ""\nreclaimPolicy: Recycle\nvolumeBindingMode: Later\n',
    });
    assert.match(bad.stderr, /provisioner: Required value/);
    assert.match(bad.stderr, /reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"/);
    assert.match(bad.stderr, /volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"/);
  });
});
