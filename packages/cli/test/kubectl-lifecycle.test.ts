/**
 * The real kubectl deleting and waiting against `operant server`: cascading
 * deletes through ownerReferences (the garbage collector), namespace
 * termination, and `kubectl wait` for conditions and deletion.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk } from './harness.js';
import { RunningKubectl, applyYaml, kit, kubectlFails, row, serverForFile } from './kubectl-support.js';

const server = serverForFile();

async function obj(args: string[]): Promise<any> {
  return JSON.parse(await kubectlOk(server(), ['get', ...args, '-o', 'json']));
}

async function notFound(args: string[]): Promise<void> {
  const r = await kubectl(server(), ['get', ...args]);
  assert.notEqual(r.code, 0, `expected ${args.join(' ')} to be gone, got:\n${r.stdout}`);
  assert.match(r.stderr, /Error from server \(NotFound\): .* not found/);
}

/** `kubectl wait` that must succeed: it awaits the server's watch events, no polling here. */
async function waitOk(args: string[], timeout = '15s'): Promise<string> {
  return kubectlOk(server(), ['wait', ...args, `--timeout=${timeout}`]);
}

async function namespace(name: string): Promise<void> {
  await applyYaml(server(), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`);
}

/**
 * A Deployment owning a ReplicaSet owning a Pod, through ownerReferences made
 * here (the server runs no deployment controller). `rsFinalizer` holds the
 * ReplicaSet once it is deleted.
 */
async function ownedChain(ns: string, name: string, rsFinalizer?: string): Promise<void> {
  await applyYaml(server(), `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: main, image: nginx}]}
`);
  const d = await obj(['deploy', name, '-n', ns]);
  await applyYaml(server(), `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: ${name}-rs
  namespace: ${ns}
  labels: {app: ${name}}
${rsFinalizer ? `  finalizers: [${rsFinalizer}]\n` : ''}  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: ${name}, uid: ${d.metadata.uid}, controller: true, blockOwnerDeletion: true}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: main, image: nginx}]}
`);
  const rs = await obj(['rs', `${name}-rs`, '-n', ns]);
  await applyYaml(server(), `apiVersion: v1
kind: Pod
metadata:
  name: ${name}-pod
  namespace: ${ns}
  labels: {app: ${name}}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: ${name}-rs, uid: ${rs.metadata.uid}, controller: true, blockOwnerDeletion: true}
spec: {containers: [{name: main, image: nginx}]}
`);
}

describe('kubectl delete --cascade', () => {
  kit('background: the owner goes at once, the garbage collector removes its dependents', async () => {
    await namespace('bg');
    await ownedChain('bg', 'app');
    assert.equal((await kubectlOk(server(), ['delete', 'deployment', 'app', '-n', 'bg', '--cascade=background', '--wait'])).trim(), 'deployment.apps "app" deleted');
    await notFound(['deploy', 'app', '-n', 'bg']);
    // The collector works after the owner is gone: wait for its deletes by watch.
    await waitOk(['--for=delete', 'replicaset/app-rs', 'pod/app-pod', '-n', 'bg']);
    await notFound(['rs', 'app-rs', '-n', 'bg']);
    await notFound(['pod', 'app-pod', '-n', 'bg']);
  });

  kit('foreground: dependents are deleted first, and the owner waits for them', async () => {
    await namespace('fg');
    await ownedChain('fg', 'quick');
    assert.equal((await kubectlOk(server(), ['delete', 'deployment', 'quick', '-n', 'fg', '--cascade=foreground', '--wait'])).trim(), 'deployment.apps "quick" deleted');
    // --wait returned once the owner was gone, which foreground deletion allows only after its blocking dependents.
    await notFound(['rs', 'quick-rs', '-n', 'fg']);
    await notFound(['pod', 'quick-pod', '-n', 'fg']);

    // With a finalizer holding the ReplicaSet, the Deployment stays in foreground deletion.
    await ownedChain('fg', 'held', 'example.com/hold');
    await kubectlOk(server(), ['delete', 'deployment', 'held', '-n', 'fg', '--cascade=foreground', '--wait=false']);
    const d = await obj(['deploy', 'held', '-n', 'fg']);
    assert.ok(d.metadata.deletionTimestamp, 'deployment marked for deletion');
    assert.deepEqual(d.metadata.finalizers, ['foregroundDeletion']);
    await waitOk(['--for=delete', 'pod/held-pod', '-n', 'fg']);
    const rs = await obj(['rs', 'held-rs', '-n', 'fg']);
    assert.ok(rs.metadata.deletionTimestamp, 'replicaset deleted by the collector');
    assert.ok(rs.metadata.finalizers.includes('example.com/hold'), JSON.stringify(rs.metadata.finalizers));
    // Still blocked on the ReplicaSet (blockOwnerDeletion).
    assert.ok((await obj(['deploy', 'held', '-n', 'fg'])).metadata.deletionTimestamp);
    const rest = rs.metadata.finalizers.filter((f: string) => f !== 'example.com/hold');
    await kubectlOk(server(), ['patch', 'rs', 'held-rs', '-n', 'fg', '--type=merge', '-p', JSON.stringify({ metadata: { finalizers: rest.length ? rest : null } })]);
    await waitOk(['--for=delete', 'replicaset/held-rs', 'deployment/held', '-n', 'fg']);
    await notFound(['deploy', 'held', '-n', 'fg']);
  });

  kit('orphan: dependents stay, without the ownerReference', async () => {
    await namespace('orphan');
    await ownedChain('orphan', 'app');
    assert.equal((await kubectlOk(server(), ['delete', 'deployment', 'app', '-n', 'orphan', '--cascade=orphan', '--wait'])).trim(), 'deployment.apps "app" deleted');
    await notFound(['deploy', 'app', '-n', 'orphan']);
    const rs = await obj(['rs', 'app-rs', '-n', 'orphan']);
    assert.equal(rs.metadata.ownerReferences, undefined, JSON.stringify(rs.metadata.ownerReferences));
    assert.equal(rs.metadata.deletionTimestamp, undefined);
    assert.equal(rs.metadata.finalizers, undefined);
    // Only the deleted owner's direct dependents are orphaned: the pod still belongs to the ReplicaSet.
    const pod = await obj(['pod', 'app-pod', '-n', 'orphan']);
    assert.deepEqual(pod.metadata.ownerReferences.map((r: any) => `${r.kind}/${r.name}`), ['ReplicaSet/app-rs']);
  });

  kit('delete by label and --all', async () => {
    await namespace('bulk');
    let yaml = '';
    for (const [name, app] of [['a', 'one'], ['b', 'one'], ['c', 'two']]) {
      yaml += `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: bulk, labels: {app: ${app}}}\n`;
    }
    await applyYaml(server(), yaml);
    assert.equal((await kubectlOk(server(), ['delete', 'cm', '-n', 'bulk', '-l', 'app=one'])).trim(), 'configmap "a" deleted\nconfigmap "b" deleted');
    assert.equal((await kubectlOk(server(), ['get', 'cm', '-n', 'bulk', '-o', 'name'])).trim(), 'configmap/c');
    assert.equal((await kubectlOk(server(), ['delete', 'cm', '-n', 'bulk', '--all'])).trim(), 'configmap "c" deleted');
    const missing = await kubectlFails(server(), ['delete', 'cm', 'c', '-n', 'bulk']);
    assert.equal(missing.stderr.trim(), 'Error from server (NotFound): configmaps "c" not found');
  });
});

describe('kubectl delete namespace', () => {
  kit('removes everything inside, then the namespace', async () => {
    await applyYaml(server(), `apiVersion: v1
kind: Namespace
metadata: {name: quick}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: quick}
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: quick}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: quick}
spec: {containers: [{name: main, image: nginx}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: quick}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec: {containers: [{name: main, image: nginx}]}
`);
    // kubectl delete waits (by watch) until the namespace is gone.
    assert.equal((await kubectlOk(server(), ['delete', 'namespace', 'quick'])).trim(), 'namespace "quick" deleted');
    await notFound(['namespace', 'quick']);
    for (const kind of ['configmaps', 'secrets', 'pods', 'deployments', 'serviceaccounts']) {
      const r = await kubectl(server(), ['get', kind, '-n', 'quick', '-o', 'name']);
      assert.equal(r.stdout, '', `${kind} left in deleted namespace`);
    }
  });

  kit('stays Terminating while content has finalizers, refusing new content', async () => {
    await applyYaml(server(), `apiVersion: v1
kind: Namespace
metadata: {name: doomed}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: held, namespace: doomed, finalizers: [example.com/hold]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: free, namespace: doomed}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: doomed}
spec: {containers: [{name: main, image: nginx}]}
`);
    assert.equal((await kubectlOk(server(), ['delete', 'namespace', 'doomed', '--wait=false'])).trim(), 'namespace "doomed" deleted');
    const ns = await kubectlOk(server(), ['get', 'namespace', 'doomed']);
    assert.deepEqual(row(ns, 'doomed').slice(0, 2), ['doomed', 'Terminating']);
    await waitOk(['--for=delete', 'configmap/free', 'pod/p', '-n', 'doomed']);
    const held = await obj(['cm', 'held', '-n', 'doomed']);
    assert.ok(held.metadata.deletionTimestamp, 'held configmap marked for deletion');

    const refused = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late, namespace: doomed}\n' });
    assert.equal(
      refused.stderr.trim(),
      'Error from server (Forbidden): error when creating "STDIN": configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );

    await kubectlOk(server(), ['patch', 'cm', 'held', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    await waitOk(['--for=delete', 'namespace/doomed']);
    await notFound(['namespace', 'doomed']);
  });
});

describe('kubectl wait', () => {
  kit('--for=condition=Ready returns when the pod becomes Ready, and times out before', async () => {
    await namespace('waits');
    await applyYaml(server(), 'apiVersion: v1\nkind: Pod\nmetadata: {name: w, namespace: waits}\nspec: {containers: [{name: main, image: nginx}]}\n');
    const early = await kubectlFails(server(), ['wait', '--for=condition=Ready', 'pod/w', '-n', 'waits', '--timeout=300ms']);
    assert.equal(early.stderr.trim(), 'error: timed out waiting for the condition on pods/w');

    const wait = new RunningKubectl(server(), ['wait', '--for=condition=Ready', 'pod/w', '-n', 'waits', '--timeout=15s', '-v=6']);
    try {
      // Change the pod only once kubectl is watching it.
      await wait.waitForStderr(/GET \S+\/api\/v1\/namespaces\/waits\/pods\?\S*fieldSelector=metadata\.name%3Dw&resourceVersion=\d+\S*&watch=true 200 OK/);
      assert.equal(wait.lines.length, 0, 'not met yet');
      await kubectlOk(server(), [
        'patch', 'pod', 'w', '-n', 'waits', '--subresource=status', '--type=merge',
        '-p', JSON.stringify({ status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } }),
      ]);
      assert.equal(await wait.exit(), 0, wait.stderr);
      assert.deepEqual(wait.lines.filter(Boolean), ['pod/w condition met']);
    } finally {
      await wait.kill();
    }
    assert.equal((await waitOk(['--for=jsonpath={.status.phase}=Running', 'pod/w', '-n', 'waits'])).trim(), 'pod/w condition met');
    assert.equal((await waitOk(['--for=condition=Ready=true', 'pods', '--all', '-n', 'waits'])).trim(), 'pod/w condition met');
  });

  kit('--for=delete returns when the object is deleted', async () => {
    await namespace('waitdel');
    await applyYaml(server(), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gone, namespace: waitdel, finalizers: [example.com/hold]}\n');
    const wait = new RunningKubectl(server(), ['wait', '--for=delete', 'configmap/gone', '-n', 'waitdel', '--timeout=15s', '-v=6']);
    try {
      await wait.waitForStderr(/GET \S+\/api\/v1\/namespaces\/waitdel\/configmaps\?\S*fieldSelector=metadata\.name%3Dgone&resourceVersion=\d+\S*&watch=true 200 OK/);
      // Marked for deletion is not deleted: the finalizer holds it.
      await kubectlOk(server(), ['delete', 'cm', 'gone', '-n', 'waitdel', '--wait=false']);
      assert.ok((await obj(['cm', 'gone', '-n', 'waitdel'])).metadata.deletionTimestamp);
      assert.equal(wait.child.exitCode, null, 'still waiting');
      await kubectlOk(server(), ['patch', 'cm', 'gone', '-n', 'waitdel', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
      assert.equal(await wait.exit(), 0, wait.stderr);
      assert.deepEqual(wait.lines.filter(Boolean), ['configmap/gone condition met']);
    } finally {
      await wait.kill();
    }
    await notFound(['cm', 'gone', '-n', 'waitdel']);
  });
});
