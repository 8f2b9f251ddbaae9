/**
 * The persistent volume binder and its simulated provisioner judged by the
 * real kubectl against `operant server --nodes 1`: a claim of the default
 * StorageClass gets a volume and is Bound; a claim binds to a matching
 * volume made by hand; a WaitForFirstConsumer claim waits for a scheduled
 * pod; a deleted claim's volume follows its reclaim policy.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { hasKubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { RunningKubectl, kit, tableRows } from './kubectl-support.js';

let server: ServerProcess;

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '1'] });
});
after(async () => {
  await server?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server, [...args, '-o', 'json'])) as Json;
const apply = (yaml: string): Promise<string> => kubectlOk(server, ['apply', '-f', '-'], { input: yaml });
const claim = (name: string, extra = ''): string =>
  `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: ${name}}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}${extra}}\n`;

describe('operant server --nodes 1: PersistentVolumeClaims are bound', () => {
  kit('a claim of the default StorageClass gets a provisioned volume; deleting the claim deletes it', async () => {
    await apply('apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}\nprovisioner: rancher.io/local-path\n');
    await apply(claim('data'));
    await kubectlOk(server, ['wait', 'pvc/data', '--for=jsonpath={.status.phase}=Bound', '--timeout=30s']);
    const pvc = await json(['get', 'pvc', 'data']);
    const pvName = `pvc-${pvc.metadata.uid}`;
    assert.equal(pvc.spec.volumeName, pvName);
    assert.equal(pvc.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(pvc.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'rancher.io/local-path');
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'pvc', 'data']))[1]!.slice(0, 7), ['data', 'Bound', pvName, '1Gi', 'RWO', 'standard', '<unset>']);
    const pvRow = tableRows(await kubectlOk(server, ['get', 'pv', pvName]))[1]!;
    assert.deepEqual(pvRow.slice(0, 7), [pvName, '1Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'standard']);
    const events = await kubectlOk(server, ['get', 'events', '--field-selector', 'involvedObject.name=data']);
    assert.match(events, new RegExp(`ProvisioningSucceeded\\s+persistentvolumeclaim/data\\s+Successfully provisioned volume ${pvName}`));

    await kubectlOk(server, ['delete', 'pvc', 'data']);
    await kubectlOk(server, ['wait', `pv/${pvName}`, '--for=delete', '--timeout=30s']);
  });

  kit('a claim binds to the smallest Available volume of its class that is big enough', async () => {
    for (const [name, size] of [['big', '10Gi'], ['small', '2Gi']]) {
      await apply(`apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: ${name}}\nspec: {capacity: {storage: ${size}}, accessModes: [ReadWriteOnce], storageClassName: manual, hostPath: {path: /data/${name}}}\n`);
      await kubectlOk(server, ['wait', `pv/${name}`, '--for=jsonpath={.status.phase}=Available', '--timeout=30s']);
    }
    await apply(claim('static', ', storageClassName: manual'));
    await kubectlOk(server, ['wait', 'pvc/static', '--for=jsonpath={.status.phase}=Bound', '--timeout=30s']);
    assert.equal((await json(['get', 'pvc', 'static'])).spec.volumeName, 'small');
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'pv', 'small']))[1]!.slice(0, 6), ['small', '2Gi', 'RWO', 'Retain', 'Bound', 'default/static']);
    await kubectlOk(server, ['delete', 'pvc', 'static']);
    await kubectlOk(server, ['wait', 'pv/small', '--for=jsonpath={.status.phase}=Released', '--timeout=30s']);
  });

  kit('a WaitForFirstConsumer claim is provisioned once a pod that uses it is scheduled', async () => {
    await apply('apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: local.csi.example.com\nvolumeBindingMode: WaitForFirstConsumer\n');
    await apply(claim('later', ', storageClassName: local'));
    const events = new RunningKubectl(server, ['get', 'events', '--field-selector', 'involvedObject.name=later', '-w']);
    try {
      await events.waitForLine(/WaitForFirstConsumer\s+persistentvolumeclaim\/later\s+waiting for first consumer to be created before binding/, 0, 20_000);
    } finally {
      await events.kill();
    }
    assert.equal((await json(['get', 'pvc', 'later'])).status.phase, 'Pending');
    await apply('apiVersion: v1\nkind: Pod\nmetadata: {name: user}\nspec:\n  containers: [{name: c, image: busybox}]\n  volumes: [{name: data, persistentVolumeClaim: {claimName: later}}]\n');
    await kubectlOk(server, ['wait', 'pvc/later', '--for=jsonpath={.status.phase}=Bound', '--timeout=30s']);
  });
});
