/**
 * The real kubectl against `operant server`: `kubectl get cs` prints the
 * components a 1.32 cluster reports, with kube's deprecation warning.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectl } from './harness.js';
import { kit, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

describe('kubectl and ComponentStatuses', () => {
  kit('get cs lists the components as Healthy and warns that the API is deprecated', async () => {
    const got = await kubectl(server(), ['get', 'cs']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stderr, /^Warning: v1 ComponentStatus is deprecated in v1\.19\+$/m);
    const rows = tableRows(got.stdout);
    assert.deepEqual(rows[0], ['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
    assert.deepEqual(rows.slice(1).sort(), [['controller-manager', 'Healthy', 'ok'], ['etcd-0', 'Healthy', 'ok'], ['scheduler', 'Healthy', 'ok']]);

    const unknown = await kubectl(server(), ['get', 'componentstatus', 'kubelet']);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /Error from server \(InternalError\): Internal error occurred: Component not found: kubelet/);
  });
});
