/**
 * The real kubectl against `operant server`: a v1 Binding created with
 * `kubectl create -f` goes to the top-level `bindings` resource and binds the
 * pod it names, as pods/<name>/binding would (kube's LegacyBindingREST).
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();
const binding = 'apiVersion: v1\nkind: Binding\nmetadata: {name: web}\ntarget: {apiVersion: v1, kind: Node, name: node-a}\n';

describe('kubectl and the bindings resource', () => {
  kit('create -f of a Binding binds the pod; a second one is kube\'s conflict', async () => {
    await applyYaml(server(), 'apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n');
    await kubectlOk(server(), ['run', 'web', '--image=nginx']);
    await kubectlOk(server(), ['create', '-f', '-'], { input: binding });
    const rows = tableRows(await kubectlOk(server(), ['get', 'pod', 'web', '-o', 'wide']));
    assert.equal(rows[1][rows[0].indexOf('NODE')], 'node-a');

    const again = await kubectlFails(server(), ['create', '-f', '-'], { input: binding });
    assert.match(again.stderr, /Error from server \(Conflict\): error when creating "STDIN": Operation cannot be fulfilled on pods\/binding "web": pod web is already assigned to node "node-a"/);
  });
});
