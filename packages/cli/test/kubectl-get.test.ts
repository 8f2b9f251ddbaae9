/**
 * The real kubectl reading from `operant server`: `get` with kubectl's usual
 * columns for each built-in, every output format, label and field selectors,
 * chunked lists, all namespaces, and `get -w` following changes as they happen.
 */
import { before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, kubectlOk } from './harness.js';
import { RunningKubectl, applyYaml, header, kit, kubectlFails, row, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

async function get(args: string[]): Promise<string> {
  return kubectlOk(server(), ['get', ...args]);
}

function patchStatus(kind: string, name: string, ns: string, status: object): Promise<string> {
  return kubectlOk(server(), ['patch', kind, name, '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
}

const ago = (seconds: number): string => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('kubectl get: columns of the built-ins', () => {
  before(async () => {
    if (!hasKubectl) return;
    await applyYaml(server(), `apiVersion: v1
kind: Namespace
metadata: {name: cols}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: cols, labels: {app: web}}
spec:
  nodeName: node-a
  containers:
  - {name: main, image: nginx:1.25}
  - {name: side, image: busybox:1.36}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: cols}
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
  - {name: https, port: 443, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: cols}
spec:
  type: ExternalName
  externalName: example.com
---
apiVersion: v1
kind: ConfigMap
metadata: {name: conf, namespace: cols}
data: {a: "1", b: "2"}
binaryData: {c: AAEC}
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: cols}
type: Opaque
data: {user: YWRtaW4=, pass: c2VjcmV0}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot, namespace: cols}
secrets: [{name: creds}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: cols}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: main, image: nginx:1.25}
      - {name: side, image: busybox:1.36}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-5d4f, namespace: cols}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: nginx:1.25}]
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader, namespace: cols}
spec: {holderIdentity: pod-xyz, leaseDurationSeconds: 15}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: cols}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read-pods, namespace: cols}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}
- {kind: Group, name: devs, apiGroup: rbac.authorization.k8s.io}
- {kind: ServiceAccount, name: robot, namespace: cols}
`);
    await patchStatus('pod', 'web-1', 'cols', {
      phase: 'Running',
      podIP: '10.244.0.7',
      podIPs: [{ ip: '10.244.0.7' }],
      containerStatuses: [
        { name: 'main', ready: true, restartCount: 2, image: 'nginx:1.25', imageID: '', started: true, state: { running: { startedAt: ago(30) } } },
        { name: 'side', ready: false, restartCount: 1, image: 'busybox:1.36', imageID: '', started: false, state: { waiting: { reason: 'CrashLoopBackOff' } } },
      ],
    });
    await patchStatus('deploy', 'web', 'cols', { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 });
    await patchStatus('rs', 'web-5d4f', 'cols', { replicas: 3, readyReplicas: 1 });
  });

  kit('pods: NAME READY STATUS RESTARTS AGE, and wide adds IP and NODE', async () => {
    const out = await get(['pods', '-n', 'cols']);
    assert.deepEqual(header(out), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    // kubectl shows the reason of a waiting container as the pod's status.
    assert.deepEqual(row(out, 'web-1').slice(0, 4), ['web-1', '1/2', 'CrashLoopBackOff', '3']);
    const wide = await get(['pods', '-n', 'cols', '-o', 'wide']);
    assert.deepEqual(header(wide), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    assert.deepEqual(row(wide, 'web-1').slice(5), ['10.244.0.7', 'node-a', '<none>', '<none>']);
  });

  kit('services: TYPE CLUSTER-IP EXTERNAL-IP PORT(S), and wide adds SELECTOR', async () => {
    const out = await get(['services', '-n', 'cols']);
    assert.deepEqual(header(out), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    const web = row(out, 'web');
    assert.equal(web[1], 'ClusterIP');
    assert.match(web[2], /^10\.96\.\d+\.\d+$/);
    assert.deepEqual(web.slice(3, 5), ['<none>', '80/TCP,443/TCP']);
    assert.deepEqual(row(out, 'ext').slice(1, 5), ['ExternalName', '<none>', 'example.com', '<none>']);
    const wide = await get(['svc', 'web', '-n', 'cols', '-o', 'wide']);
    assert.deepEqual(header(wide), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    assert.equal(row(wide, 'web')[6], 'app=web');
  });

  kit('configmaps, secrets, serviceaccounts, namespaces', async () => {
    const cm = await get(['configmaps', 'conf', '-n', 'cols']);
    assert.deepEqual(header(cm), ['NAME', 'DATA', 'AGE']);
    assert.deepEqual(row(cm, 'conf').slice(0, 2), ['conf', '3']);
    const secret = await get(['secrets', 'creds', '-n', 'cols']);
    assert.deepEqual(header(secret), ['NAME', 'TYPE', 'DATA', 'AGE']);
    assert.deepEqual(row(secret, 'creds').slice(0, 3), ['creds', 'Opaque', '2']);
    const sa = await get(['serviceaccounts', '-n', 'cols']);
    assert.deepEqual(header(sa), ['NAME', 'SECRETS', 'AGE']);
    assert.deepEqual(row(sa, 'robot').slice(0, 2), ['robot', '1']);
    // Every namespace gets its default service account.
    assert.deepEqual(row(sa, 'default').slice(0, 2), ['default', '0']);
    const ns = await get(['namespaces']);
    assert.deepEqual(header(ns), ['NAME', 'STATUS', 'AGE']);
    for (const name of ['cols', 'default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.equal(row(ns, name)[1], 'Active', name);
  });

  kit('deployments and replicasets, with wide CONTAINERS IMAGES SELECTOR', async () => {
    const d = await get(['deployments', '-n', 'cols']);
    assert.deepEqual(header(d), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(row(d, 'web').slice(0, 4), ['web', '2/3', '3', '2']);
    const dw = await get(['deploy', '-n', 'cols', '-o', 'wide']);
    assert.deepEqual(header(dw), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(row(dw, 'web').slice(5), ['main,side', 'nginx:1.25,busybox:1.36', 'app=web']);
    const rs = await get(['replicasets', '-n', 'cols']);
    assert.deepEqual(header(rs), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    assert.deepEqual(row(rs, 'web-5d4f').slice(0, 4), ['web-5d4f', '3', '3', '1']);
    const rsw = await get(['rs', '-n', 'cols', '-o', 'wide']);
    assert.deepEqual(header(rsw), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
  });

  kit('events, leases, roles and rolebindings', async () => {
    const pod = JSON.parse(await get(['pod', 'web-1', '-n', 'cols', '-o', 'json']));
    await applyYaml(server(), `apiVersion: v1
kind: Event
metadata: {name: web-1.oom, namespace: cols}
involvedObject: {apiVersion: v1, kind: Pod, name: web-1, namespace: cols, uid: ${pod.metadata.uid}}
reason: OOMKilling
message: Memory cgroup out of memory
type: Warning
source: {component: kubelet, host: node-a}
count: 1
firstTimestamp: "${ago(90)}"
lastTimestamp: "${ago(90)}"
`);
    const ev = await get(['events', '-n', 'cols']);
    assert.deepEqual(header(ev), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    const oom = row(ev, 'OOMKilling', 2);
    assert.match(oom[0], /^9\ds$/, 'LAST SEEN is the age of lastTimestamp');
    assert.deepEqual(oom.slice(1), ['Warning', 'OOMKilling', 'pod/web-1', 'Memory cgroup out of memory']);
    const lease = await get(['leases', '-n', 'cols']);
    assert.deepEqual(header(lease), ['NAME', 'HOLDER', 'AGE']);
    assert.deepEqual(row(lease, 'leader').slice(0, 2), ['leader', 'pod-xyz']);
    const roles = await get(['roles', '-n', 'cols']);
    assert.deepEqual(header(roles), ['NAME', 'CREATED AT']);
    assert.match(row(roles, 'reader')[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const rb = await get(['rolebindings', '-n', 'cols', '-o', 'wide']);
    assert.deepEqual(header(rb), ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    const r = row(rb, 'read-pods');
    assert.equal(r[1], 'Role/reader');
    assert.deepEqual(r.slice(3), ['jane', 'devs', 'cols/robot']);
  });
});

describe('kubectl get: output formats, selectors, paging', () => {
  before(async () => {
    if (!hasKubectl) return;
    let yaml = 'apiVersion: v1\nkind: Namespace\nmetadata: {name: sel}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: sel2}\n';
    const items: Array<[string, string, string]> = [
      ['a', 'web', 'front'],
      ['b', 'web', 'back'],
      ['c', 'db', 'back'],
      ['d', 'db', ''],
      ['e', 'cache', ''],
    ];
    for (const [name, app, tier] of items) {
      const labels = tier ? `{app: ${app}, tier: ${tier}}` : `{app: ${app}}`;
      yaml += `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: sel, labels: ${labels}}\ndata: {app: ${app}}\n`;
    }
    yaml += '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: sel2, labels: {app: web}}\n';
    await applyYaml(server(), yaml);
  });

  kit('-o json, yaml and name', async () => {
    const list = JSON.parse(await get(['cm', '-n', 'sel', '-o', 'json']));
    assert.equal(list.kind, 'List');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['a', 'b', 'c', 'd', 'e']);
    assert.ok(list.items.every((i: any) => i.kind === 'ConfigMap' && i.apiVersion === 'v1'));
    const one = JSON.parse(await get(['cm', 'a', '-n', 'sel', '-o', 'json']));
    assert.equal(one.kind, 'ConfigMap');
    assert.deepEqual(one.metadata.labels, { app: 'web', tier: 'front' });
    assert.match(one.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(one.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const yaml = await get(['cm', 'a', '-n', 'sel', '-o', 'yaml']);
    assert.match(yaml, /^apiVersion: v1$/m);
    assert.match(yaml, /^kind: ConfigMap$/m);
    assert.match(yaml, /^ {2}name: a$/m);
    assert.match(yaml, /^ {2}namespace: sel$/m);
    assert.match(yaml, /^data:\n {2}app: web$/m);
    assert.equal(await get(['cm', '-n', 'sel', '-o', 'name']), 'configmap/a\nconfigmap/b\nconfigmap/c\nconfigmap/d\nconfigmap/e\n');
    assert.equal(await get(['cm', 'a', 'c', '-n', 'sel', '-o', 'name']), 'configmap/a\nconfigmap/c\n');
  });

  kit('-o jsonpath and custom-columns', async () => {
    assert.equal(await get(['cm', '-n', 'sel', '-o', 'jsonpath={.items[*].metadata.name}']), 'a b c d e');
    assert.equal(
      await get(['cm', '-n', 'sel', '-o', 'jsonpath={range .items[?(@.metadata.labels.tier=="back")]}{.metadata.name}={.data.app}{"\\n"}{end}']),
      'b=web\nc=db\n',
    );
    assert.equal(await get(['cm', 'a', '-n', 'sel', '-o', 'jsonpath={.metadata.labels.tier}']), 'front');
    const cc = await get(['cm', '-n', 'sel', '-o', 'custom-columns=NAME:.metadata.name,APP:.data.app,TIER:.metadata.labels.tier']);
    assert.deepEqual(tableRows(cc), [
      ['NAME', 'APP', 'TIER'],
      ['a', 'web', 'front'],
      ['b', 'web', 'back'],
      ['c', 'db', 'back'],
      ['d', 'db', '<none>'],
      ['e', 'cache', '<none>'],
    ]);
  });

  kit('-l with equality and set-based selectors', async () => {
    const names = async (selector: string): Promise<string> => (await get(['cm', '-n', 'sel', '-l', selector, '-o', 'jsonpath={.items[*].metadata.name}'])).trim();
    assert.equal(await names('app=web'), 'a b');
    assert.equal(await names('app==db'), 'c d');
    assert.equal(await names('app!=web'), 'c d e');
    assert.equal(await names('app=web,tier=back'), 'b');
    assert.equal(await names('tier in (front,back)'), 'a b c');
    assert.equal(await names('app notin (web,db)'), 'e');
    assert.equal(await names('tier'), 'a b c');
    assert.equal(await names('!tier'), 'd e');
    assert.equal(await names('app in (db),!tier'), 'd');
    const none = await get(['cm', '-n', 'sel', '-l', 'app=nothing']);
    assert.equal(none, '');
    const bad = await kubectlFails(server(), ['get', 'cm', '-n', 'sel', '-l', 'tier in (a']);
    assert.equal(
      bad.stderr.trim(),
      'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "tier in (a", field selector "": unable to parse requirement: found \'\', expected: \',\' or \')\'',
    );
  });

  kit('--field-selector on metadata and per-type fields', async () => {
    assert.equal(await get(['cm', '-n', 'sel', '--field-selector', 'metadata.name=c', '-o', 'name']), 'configmap/c\n');
    assert.equal(await get(['cm', '-n', 'sel', '--field-selector', 'metadata.name!=c,metadata.name!=a', '-o', 'name']), 'configmap/b\nconfigmap/d\nconfigmap/e\n');
    assert.equal(await get(['cm', '-A', '--field-selector', 'metadata.namespace=sel2', '-o', 'name']), 'configmap/other\n');
    await applyYaml(server(), `apiVersion: v1
kind: Pod
metadata: {name: on-a, namespace: sel}
spec: {nodeName: node-a, containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: on-b, namespace: sel}
spec: {nodeName: node-b, containers: [{name: c, image: x}]}
`);
    await patchStatus('pod', 'on-b', 'sel', { phase: 'Running' });
    assert.equal(await get(['pods', '-n', 'sel', '--field-selector', 'spec.nodeName=node-a', '-o', 'name']), 'pod/on-a\n');
    assert.equal(await get(['pods', '-n', 'sel', '--field-selector', 'status.phase=Running', '-o', 'name']), 'pod/on-b\n');
    assert.equal(await get(['pods', '-n', 'sel', '--field-selector', 'status.phase!=Running,spec.nodeName=node-a', '-o', 'name']), 'pod/on-a\n');
    // Kinds with selectable fields (pods) have kube's field-label conversion; the rest its default one.
    const badPod = await kubectlFails(server(), ['get', 'pods', '-n', 'sel', '--field-selector', 'spec.foo=bar']);
    assert.equal(
      badPod.stderr.trim(),
      'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.foo=bar": field label not supported: spec.foo',
    );
    const badCm = await kubectlFails(server(), ['get', 'cm', '-n', 'sel', '--field-selector', 'spec.foo=bar']);
    assert.equal(
      badCm.stderr.trim(),
      'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "spec.foo=bar": "spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });

  kit('--chunk-size=2 pages through the list with continue tokens', async () => {
    const r = await kubectl(server(), ['get', 'cm', '-n', 'sel', '--chunk-size=2', '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    const requests = r.stderr.split('\n').filter((l) => / GET \S+\/api\/v1\/namespaces\/sel\/configmaps\?/.test(l));
    assert.equal(requests.length, 3, requests.join('\n'));
    assert.match(requests[0], /\?limit=2 200 OK/);
    assert.match(requests[1], /\?continue=[^&\s]+&limit=2 200 OK/);
    assert.match(requests[2], /\?continue=[^&\s]+&limit=2 200 OK/);
    const rows = tableRows(r.stdout);
    assert.deepEqual(rows[0], ['NAME', 'DATA', 'AGE'], 'one header for all pages');
    assert.deepEqual(rows.slice(1).map((x) => x[0]), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(await get(['cm', '-n', 'sel', '--chunk-size=2', '-l', 'app in (web,db)', '-o', 'name']), 'configmap/a\nconfigmap/b\nconfigmap/c\nconfigmap/d\n');
  });

  kit('-A lists across namespaces with a NAMESPACE column', async () => {
    const out = await get(['cm', '-A', '-l', 'app=web']);
    assert.deepEqual(header(out), ['NAMESPACE', 'NAME', 'DATA', 'AGE']);
    assert.deepEqual(tableRows(out).slice(1).map((r) => [r[0], r[1]]), [
      ['sel', 'a'],
      ['sel', 'b'],
      ['sel2', 'other'],
    ]);
    const names = await get(['cm', '--all-namespaces', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}']);
    for (const n of ['sel/a', 'sel/e', 'sel2/other']) assert.ok(names.split(' ').includes(n), names);
  });

  kit('errors: missing object, unknown resource type', async () => {
    const missing = await kubectlFails(server(), ['get', 'cm', 'nope', '-n', 'sel']);
    assert.equal(missing.stderr.trim(), 'Error from server (NotFound): configmaps "nope" not found');
    const unknown = await kubectlFails(server(), ['get', 'widgets']);
    assert.equal(unknown.stderr.trim(), 'error: the server doesn\'t have a resource type "widgets"');
    assert.equal((await kubectl(server(), ['get', 'cm', '-n', 'empty-ns'])).stderr.trim(), 'No resources found in empty-ns namespace.');
  });
});

describe('kubectl get -w', () => {
  before(async () => {
    if (!hasKubectl) return;
    await applyYaml(server(), `apiVersion: v1
kind: Namespace
metadata: {name: watch}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: first, namespace: watch, labels: {app: w}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: watch}
spec: {containers: [{name: main, image: nginx}]}
`);
  });

  kit('prints ADDED, MODIFIED and DELETED as they happen', async () => {
    const w = new RunningKubectl(server(), ['get', 'configmaps', '-n', 'watch', '-w', '--output-watch-events']);
    try {
      await w.waitForLine(/^EVENT\s+NAME\s+DATA\s+AGE$/);
      const first = await w.waitForLine(/^ADDED\s+first\s+0\s+\S+$/);
      await applyYaml(server(), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: second, namespace: watch}\ndata: {k: v}\n');
      const added = await w.waitForLine(/^ADDED\s+second\s+1\s+\S+$/, first.index + 1);
      await kubectlOk(server(), ['patch', 'cm', 'second', '-n', 'watch', '--type=merge', '-p', '{"data":{"k2":"v2"}}']);
      const modified = await w.waitForLine(/^MODIFIED\s+second\s+2\s+\S+$/, added.index + 1);
      await kubectlOk(server(), ['delete', 'cm', 'second', '-n', 'watch']);
      await w.waitForLine(/^DELETED\s+second\s+2\s+\S+$/, modified.index + 1);
    } finally {
      await w.kill();
    }
  });

  kit('prints a pod\'s new row when its status changes', async () => {
    const w = new RunningKubectl(server(), ['get', 'pods', '-n', 'watch', '-w']);
    try {
      await w.waitForLine(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
      const pending = await w.waitForLine(/^p\s+0\/1\s+Pending\s+0\s+\S+$/);
      await patchStatus('pod', 'p', 'watch', {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'main', ready: true, restartCount: 0, image: 'nginx', imageID: '', started: true, state: { running: { startedAt: ago(1) } } }],
      });
      await w.waitForLine(/^p\s+1\/1\s+Running\s+0\s+\S+$/, pending.index + 1);
    } finally {
      await w.kill();
    }
  });

  kit('with a label selector, an object relabelled out of it is DELETED and back in is ADDED', async () => {
    const w = new RunningKubectl(server(), ['get', 'configmaps', '-n', 'watch', '-l', 'app=w', '-w', '--output-watch-events']);
    try {
      const first = await w.waitForLine(/^ADDED\s+first\s/);
      await kubectlOk(server(), ['label', 'cm', 'first', '-n', 'watch', 'app=other', '--overwrite']);
      const gone = await w.waitForLine(/^DELETED\s+first\s/, first.index + 1);
      await kubectlOk(server(), ['label', 'cm', 'first', '-n', 'watch', 'app=w', '--overwrite']);
      await w.waitForLine(/^ADDED\s+first\s/, gone.index + 1);
    } finally {
      await w.kill();
    }
    // Nothing else was printed: changes outside the selector are not seen.
    assert.equal(w.lines.filter((l) => l.trim() !== '').length, 4, w.lines.join('\n'));
  });

  kit('--watch-only prints only later changes', async () => {
    const w = new RunningKubectl(server(), ['get', 'configmaps', '-n', 'watch', '--watch-only', '-o', 'name', '-v=6']);
    try {
      // Create only once kubectl's watch is open (its -v=6 log shows the watch request).
      await w.waitForStderr(/GET \S+\/configmaps\?resourceVersion=\d+&watch=true 200 OK/);
      await applyYaml(server(), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: later, namespace: watch}\n');
      const seen = await w.waitForLine(/^configmap\/later$/);
      assert.equal(seen.index, 0, w.lines.join('\n'));
    } finally {
      await w.kill();
    }
  });
});
