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

describe('kubectl and the CSI kinds of storage.k8s.io', () => {
  kit('CSIDrivers, CSINodes, VolumeAttachments and CSIStorageCapacities: kube\'s defaults, columns and checks', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=storage.k8s.io'])).slice(1).map((r) => r.join(' '));
    assert.deepEqual(rows, [
      'csidrivers storage.k8s.io/v1 false CSIDriver',
      'csinodes storage.k8s.io/v1 false CSINode',
      'csistoragecapacities storage.k8s.io/v1 true CSIStorageCapacity',
      'storageclasses sc storage.k8s.io/v1 false StorageClass',
      'volumeattachments storage.k8s.io/v1 false VolumeAttachment',
    ]);
    await applyYaml(
      server(),
      `apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {tokenRequests: [{audience: sts.amazonaws.com}]}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-0123}]}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: csi-0123}
spec: {attacher: ebs.csi.aws.com, nodeName: node-1, source: {persistentVolumeName: pv-1}}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: zone-a}
storageClassName: fast
capacity: 2048Mi
`,
    );
    const driver = JSON.parse(await kubectlOk(server(), ['get', 'csidriver', 'ebs.csi.aws.com', '-o', 'json'])) as { spec: Record<string, unknown> };
    assert.deepEqual(
      [driver.spec.attachRequired, driver.spec.podInfoOnMount, driver.spec.fsGroupPolicy, driver.spec.volumeLifecycleModes, driver.spec.requiresRepublish],
      [true, false, 'ReadWriteOnceWithFSType', ['Persistent'], false],
    );
    const drivers = tableRows(await kubectlOk(server(), ['get', 'csidrivers']));
    assert.deepEqual(drivers[0], ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
    assert.deepEqual(drivers[1]!.slice(0, 7), ['ebs.csi.aws.com', 'true', 'false', 'false', 'sts.amazonaws.com', 'false', 'Persistent']);
    assert.deepEqual(tableRows(await kubectlOk(server(), ['get', 'csinodes']))[1]!.slice(0, 2), ['node-1', '1']);
    const attachments = tableRows(await kubectlOk(server(), ['get', 'volumeattachments']));
    assert.deepEqual(attachments[0], ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE']);
    assert.deepEqual(attachments[1]!.slice(0, 5), ['csi-0123', 'ebs.csi.aws.com', 'pv-1', 'node-1', 'false']);
    const capacities = tableRows(await kubectlOk(server(), ['get', 'csistoragecapacities']));
    assert.deepEqual(capacities[0], ['NAME', 'STORAGECLASSNAME', 'CAPACITY', 'AGE']);
    assert.deepEqual(capacities[1]!.slice(0, 3), ['zone-a', 'fast', '2Gi']);

    const moved = await kubectlFails(server(), ['patch', 'volumeattachment', 'csi-0123', '--type=merge', '-p', '{"spec":{"nodeName":"node-2"}}']);
    assert.match(moved.stderr, /spec: Invalid value: .*: field is immutable/);
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata: {name: bad}\nspec: {attacher: x.example.com, nodeName: node-9, source: {}}\n',
    });
    assert.match(bad.stderr, /spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName/);
  });
});

describe('kubectl and PersistentVolumes and PersistentVolumeClaims', () => {
  kit('a claim without a class gets the default StorageClass; both print kubectl\'s columns; kube\'s checks apply', async () => {
    const core = tableRows(await kubectlOk(server(), ['api-resources', '--api-group='])).map((r) => r.slice(0, 2).join(' '));
    for (const r of ['persistentvolumeclaims pvc', 'persistentvolumes pv']) assert.ok(core.includes(r), `${r} in ${core.join('; ')}`);
    // The default class of the StorageClass test above ('standard') is the default here too.
    await kubectlOk(server(), ['get', 'sc', 'standard']).catch(() =>
      applyYaml(server(), 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}\nprovisioner: rancher.io/local-path\n'),
    );
    await applyYaml(
      server(),
      `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  hostPath: {path: /data/pv-1}
  storageClassName: manual
`,
    );
    const pvc = JSON.parse(await kubectlOk(server(), ['get', 'pvc', 'data', '-o', 'json'])) as { spec: Record<string, unknown>; status: Record<string, unknown> };
    assert.equal(pvc.spec.storageClassName, 'standard');
    assert.equal(pvc.spec.volumeMode, 'Filesystem');
    assert.equal(pvc.status.phase, 'Pending');
    const claims = tableRows(await kubectlOk(server(), ['get', 'pvc']));
    assert.deepEqual(claims[0], ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE']);
    assert.deepEqual(claims[1]!.slice(0, 4), ['data', 'Pending', 'standard', '<unset>']);
    const volumes = tableRows(await kubectlOk(server(), ['get', 'pv']));
    assert.deepEqual(volumes[0], ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE']);
    assert.deepEqual(volumes[1]!.slice(0, 6), ['pv-1', '5Gi', 'RWO,ROX', 'Retain', 'Pending', 'manual']);

    const resized = await kubectlFails(server(), ['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}']);
    assert.match(resized.stderr, /spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims/);
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: bad}\nspec: {resources: {}}\n' });
    assert.match(bad.stderr, /spec.accessModes: Required value: at least 1 access mode is required/);
    assert.match(bad.stderr, /spec.resources\[storage\]: Required value/);
    const noSource = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: bad}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}\n',
    });
    assert.match(noSource.stderr, /spec: Required value: must specify a volume type/);
  });
});
