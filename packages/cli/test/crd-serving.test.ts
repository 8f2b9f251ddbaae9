/**
 * The real kubectl and the CRDs users write: OpenKruise's SidecarSet
 * (cluster-scoped) and the CronTab of the Kubernetes docs (namespaced). A CRD
 * is Established as soon as it is accepted and its resources are served at
 * once; discovery, explain, printer columns, the status and scale
 * subresources, several versions and deleting a CRD behave as on a cluster.
 */
import { before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, kubectlOk } from './harness.js';
import { applyYaml, header, kit, kubectlFails, row, serverForFile, tableRows } from './kubectl-support.js';
import { crdYaml, fixturePath } from './crd-support.js';

const server = serverForFile();

const sidecarSet = (name: string): string => `apiVersion: apps.kruise.io/v1alpha1
kind: SidecarSet
metadata:
  name: ${name}
spec:
  selector:
    matchLabels:
      app: nginx
  updateStrategy:
    type: RollingUpdate
    maxUnavailable: 1
  containers:
  - name: sidecar1
    image: centos:6.7
    command: ["sleep", "999d"]
    volumeMounts:
    - name: log-volume
      mountPath: /var/log
  volumes:
  - name: log-volume
    emptyDir: {}
`;

const cronTab = (name: string, ns: string, spec = '{cronSpec: "* * * * */5", image: my-awesome-cron-image}'): string => `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: ${name}, namespace: ${ns}}
spec: ${spec}
`;

describe('CRDs are accepted, Established at once and served immediately', () => {
  kit('the SidecarSet CRD (cluster-scoped): apply, create a SidecarSet right away, get and describe the CRD', async () => {
    const s = server();
    assert.equal(
      (await kubectlOk(s, ['apply', '-f', fixturePath('sidecarset-crd.yaml')])).trim(),
      'customresourcedefinition.apiextensions.k8s.io/sidecarsets.apps.kruise.io created',
    );
    // No wait: the resource is served as soon as the CRD is written.
    assert.equal((await applyYaml(s, sidecarSet('test-sidecarset'))).trim(), 'sidecarset.apps.kruise.io/test-sidecarset created');
    const crds = await kubectlOk(s, ['get', 'crd', 'sidecarsets.apps.kruise.io']);
    assert.deepEqual(header(crds), ['NAME', 'CREATED AT']);
    assert.match(row(crds, 'sidecarsets.apps.kruise.io')[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const described = await kubectlOk(s, ['describe', 'crd', 'sidecarsets.apps.kruise.io']);
    assert.match(described, /^Name:\s+sidecarsets\.apps\.kruise\.io$/m);
    const status = described.slice(described.indexOf('\nStatus:'));
    assert.match(status, /Accepted Names:\n\s+Kind:\s+SidecarSet\n\s+List Kind:\s+SidecarSetList\n\s+Plural:\s+sidecarsets\n\s+Singular:\s+sidecarset\n/);
    assert.match(
      status,
      /Message:\s+no conflicts found\n\s+Reason:\s+NoConflicts\n\s+Status:\s+True\n\s+Type:\s+NamesAccepted\n/,
    );
    assert.match(
      status,
      /Message:\s+the initial names have been accepted\n\s+Reason:\s+InitialNamesAccepted\n\s+Status:\s+True\n\s+Type:\s+Established\n/,
    );
    assert.match(status, /Stored Versions:\n\s+v1alpha1\n/);

    // Cluster-scoped: no namespace on the object, and -n is ignored.
    const got = JSON.parse(await kubectlOk(s, ['get', 'sidecarset', 'test-sidecarset', '-n', 'kube-system', '-o', 'json']));
    assert.equal(got.metadata.namespace, undefined);
    assert.equal(got.metadata.generation, 1);
    assert.equal(got.kind, 'SidecarSet');
  });

  kit('kubectl wait --for=condition=Established returns at once, and a CronTab is created right after (namespaced)', async () => {
    const s = server();
    await kubectlOk(s, ['create', 'namespace', 'cron']);
    const started = Date.now();
    const out = await kubectlOk(s, ['apply', '-f', fixturePath('crontab-crd.yaml')]);
    assert.equal(out.trim(), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    const waited = await kubectlOk(s, ['wait', '--for=condition=Established', '--timeout=5s', 'crd/crontabs.stable.example.com']);
    assert.equal(waited.trim(), 'customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met');
    assert.ok(Date.now() - started < 4000, 'wait returned at once');
    const names = await kubectlOk(s, ['wait', '--for=condition=NamesAccepted', '--timeout=5s', 'crd/crontabs.stable.example.com']);
    assert.match(names, /condition met/);
    assert.equal((await applyYaml(s, cronTab('my-new-cron-object', 'cron'))).trim(), 'crontab.stable.example.com/my-new-cron-object created');
    const got = JSON.parse(await kubectlOk(s, ['get', 'ct', 'my-new-cron-object', '-n', 'cron', '-o', 'json']));
    assert.equal(got.metadata.namespace, 'cron');
    // replicas carries a default in the docs' schema.
    assert.deepEqual(got.spec, { cronSpec: '* * * * */5', image: 'my-awesome-cron-image', replicas: 1 });
    // Namespaced: the object is not found in another namespace.
    const missing = await kubectlFails(s, ['get', 'ct', 'my-new-cron-object', '-n', 'default']);
    assert.match(missing.stderr, /Error from server \(NotFound\): crontabs\.stable\.example\.com "my-new-cron-object" not found/);
  });
});

describe('discovery and explain', () => {
  kit('api-resources shows short names, scope, kind and categories', async () => {
    const s = server();
    const out = await kubectlOk(s, ['api-resources', '-o', 'wide', '--api-group', 'stable.example.com']);
    assert.deepEqual(header(out), ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES']);
    assert.deepEqual(row(out, 'crontabs'), [
      'crontabs',
      'ct',
      'stable.example.com/v1',
      'true',
      'CronTab',
      'delete,deletecollection,get,list,patch,create,update,watch',
      'all',
    ]);
    const kruise = await kubectlOk(s, ['api-resources', '--api-group', 'apps.kruise.io']);
    // No short name: the SHORTNAMES cell is empty.
    assert.deepEqual(row(kruise, 'sidecarsets'), ['sidecarsets', 'apps.kruise.io/v1alpha1', 'false', 'SidecarSet']);
    const all = await kubectlOk(s, ['api-resources', '--categories', 'all', '-o', 'name']);
    assert.ok(all.split('\n').includes('crontabs.stable.example.com'), all);
    assert.ok(!all.includes('sidecarsets'), all);
    const clusterScoped = await kubectlOk(s, ['api-resources', '--namespaced=false', '-o', 'name']);
    assert.ok(clusterScoped.split('\n').includes('sidecarsets.apps.kruise.io'), clusterScoped);
  });

  kit('get all includes the CronTabs (category all) with their printer columns', async () => {
    const out = await kubectlOk(server(), ['get', 'all', '-n', 'cron']);
    const block = out.split('\n\n').find((b) => b.includes('crontab.stable.example.com/'));
    assert.ok(block, out);
    assert.deepEqual(header(block), ['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    assert.deepEqual(row(block, 'crontab.stable.example.com/my-new-cron-object').slice(0, 3), [
      'crontab.stable.example.com/my-new-cron-object',
      '* * * * */5',
      '1',
    ]);
  });

  kit('explain <kind>.spec.<field> prints the description from the schema', async () => {
    const s = server();
    const cron = await kubectlOk(s, ['explain', 'crontab.spec.cronSpec']);
    assert.match(cron, /^GROUP:\s+stable\.example\.com\nKIND:\s+CronTab\nVERSION:\s+v1\n\nFIELD: cronSpec <string>\n/);
    assert.match(cron, /DESCRIPTION:\n\s+The cron schedule, in cron format\.\n/);
    const spec = await kubectlOk(s, ['explain', 'ct.spec']);
    assert.match(spec, /CronTabSpec is the desired state of a CronTab\./);
    assert.match(spec, /FIELDS:\n\s+cronSpec\t<string>\n\s+The cron schedule, in cron format\.\n/);
    assert.match(spec, /replicas\t<integer>\n\s+How many jobs to launch\./);
    const ss = await kubectlOk(s, ['explain', 'sidecarsets.spec.revisionHistoryLimit']);
    assert.match(ss, /KIND:\s+SidecarSet\nVERSION:\s+v1alpha1\n\nFIELD: revisionHistoryLimit <integer>\n/);
    // kubectl wraps descriptions at its own width.
    assert.match(ss, /DESCRIPTION:\n\s+RevisionHistoryLimit indicates the maximum quantity of stored revisions\s+about the SidecarSet\. default value is 10\n/);
  });
});

describe('printer columns', () => {
  kit('SidecarSet: NAME MATCHED UPDATED READY AGE, filled in from status', async () => {
    const s = server();
    const before = await kubectlOk(s, ['get', 'sidecarsets']);
    assert.deepEqual(header(before), ['NAME', 'MATCHED', 'UPDATED', 'READY', 'AGE']);
    // Unset status: the integer cells are empty, Age is shown.
    const cells = tableRows(before).find((r) => r[0] === 'test-sidecarset')!;
    assert.equal(cells.length, 2, before);
    assert.match(cells[1], /^\d+s$/);
    await kubectlOk(s, ['patch', 'sidecarset', 'test-sidecarset', '--subresource=status', '--type=merge', '-p', '{"status":{"matchedPods":3,"updatedPods":2,"readyPods":1}}']);
    const after = await kubectlOk(s, ['get', 'sidecarset', 'test-sidecarset']);
    assert.deepEqual(row(after, 'test-sidecarset').slice(0, 4), ['test-sidecarset', '3', '2', '1']);
    // The SidecarSet has no priority>0 columns: wide shows the same.
    assert.deepEqual(header(await kubectlOk(s, ['get', 'sidecarsets', '-o', 'wide'])), ['NAME', 'MATCHED', 'UPDATED', 'READY', 'AGE']);
  });

  kit('CronTab: priority>0 columns only with -o wide', async () => {
    const s = server();
    const out = await kubectlOk(s, ['get', 'ct', '-n', 'cron']);
    assert.deepEqual(header(out), ['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    const wide = await kubectlOk(s, ['get', 'ct', '-n', 'cron', '-o', 'wide']);
    assert.deepEqual(header(wide), ['NAME', 'SPEC', 'REPLICAS', 'IMAGE', 'AGE']);
    assert.deepEqual(row(wide, 'my-new-cron-object').slice(0, 4), ['my-new-cron-object', '* * * * */5', '1', 'my-awesome-cron-image']);
    // --show-labels and custom columns work on CRs too.
    const custom = await kubectlOk(s, ['get', 'ct', '-n', 'cron', '-o', 'custom-columns=N:.metadata.name,IMG:.spec.image']);
    assert.deepEqual(tableRows(custom), [['N', 'IMG'], ['my-new-cron-object', 'my-awesome-cron-image']]);
  });

  kit('a CRD without printer columns shows NAME AGE', async () => {
    const s = server();
    await applyYaml(s, crdYaml({ group: 'plain.example.com', kind: 'Note', schema: 'type: object\nx-kubernetes-preserve-unknown-fields: true' }));
    await applyYaml(s, 'apiVersion: plain.example.com/v1\nkind: Note\nmetadata: {name: hello, namespace: default}\ntext: hi\n');
    const out = await kubectlOk(s, ['get', 'notes']);
    assert.deepEqual(header(out), ['NAME', 'AGE']);
    assert.match(row(out, 'hello')[1], /^\d+s$/);
    assert.deepEqual(header(await kubectlOk(s, ['get', 'notes', '-o', 'wide'])), ['NAME', 'AGE']);
  });
});

describe('status subresource and generation', () => {
  before(async () => {
    if (!hasKubectl) return;
    await applyYaml(server(), cronTab('gen', 'cron', '{cronSpec: "0 * * * *", image: busybox, replicas: 2}'));
  });

  const get = async (): Promise<{ spec: Record<string, unknown>; status?: Record<string, unknown>; metadata: { generation: number; labels?: Record<string, string> } }> =>
    JSON.parse(await kubectlOk(server(), ['get', 'ct', 'gen', '-n', 'cron', '-o', 'json']));

  kit('the main endpoint ignores status; generation stays at 1 for metadata-only changes', async () => {
    const s = server();
    const applied = await kubectl(s, ['apply', '-f', '-'], {
      input: cronTab('gen', 'cron', '{cronSpec: "0 * * * *", image: busybox, replicas: 2}') + 'status: {replicas: 7}\n',
    });
    assert.equal(applied.code, 0, applied.stderr);
    const merge = await kubectlOk(s, ['patch', 'ct', 'gen', '-n', 'cron', '--type=merge', '-p', '{"status":{"replicas":7}}']);
    assert.equal(merge.trim(), 'crontab.stable.example.com/gen patched (no change)');
    await kubectlOk(s, ['label', 'ct', 'gen', '-n', 'cron', 'team=a']);
    await kubectlOk(s, ['annotate', 'ct', 'gen', '-n', 'cron', 'note=x']);
    const obj = await get();
    assert.equal(obj.status, undefined);
    assert.equal(obj.metadata.generation, 1);
    assert.equal(obj.metadata.labels?.team, 'a');
  });

  kit('patch --subresource=status changes only status, and does not bump generation', async () => {
    const s = server();
    const out = await kubectlOk(s, [
      'patch', 'ct', 'gen', '-n', 'cron', '--subresource=status', '--type=merge',
      '-p', '{"status":{"replicas":2,"labelSelector":"app=gen"},"spec":{"replicas":9},"metadata":{"labels":{"team":"b"}}}',
    ]);
    assert.equal(out.trim(), 'crontab.stable.example.com/gen patched');
    const obj = await get();
    assert.deepEqual(obj.status, { replicas: 2, labelSelector: 'app=gen' });
    assert.equal(obj.spec.replicas, 2);
    assert.equal(obj.metadata.labels?.team, 'a');
    assert.equal(obj.metadata.generation, 1);
    // JSON patch on the status subresource too.
    await kubectlOk(s, ['patch', 'ct', 'gen', '-n', 'cron', '--subresource=status', '--type=json', '-p', '[{"op":"replace","path":"/status/replicas","value":3}]']);
    assert.equal((await get()).status?.replicas, 3);
  });

  kit('a spec change bumps generation; the status is kept', async () => {
    const s = server();
    await kubectlOk(s, ['patch', 'ct', 'gen', '-n', 'cron', '--type=merge', '-p', '{"spec":{"image":"busybox:1.36"}}']);
    const obj = await get();
    assert.equal(obj.metadata.generation, 2);
    assert.equal(obj.spec.image, 'busybox:1.36');
    assert.deepEqual(obj.status, { replicas: 3, labelSelector: 'app=gen' });
  });
});

describe('scale subresource', () => {
  kit('kubectl scale sets spec.replicas; /scale is an autoscaling/v1 Scale', async () => {
    const s = server();
    await applyYaml(s, cronTab('scaled', 'cron', '{cronSpec: "0 * * * *", image: busybox, replicas: 1}'));
    await kubectlOk(s, ['patch', 'ct', 'scaled', '-n', 'cron', '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":1,"labelSelector":"app=scaled"}}']);
    assert.equal((await kubectlOk(s, ['scale', '--replicas=3', 'crontab/scaled', '-n', 'cron'])).trim(), 'crontab.stable.example.com/scaled scaled');
    const obj = JSON.parse(await kubectlOk(s, ['get', 'ct', 'scaled', '-n', 'cron', '-o', 'json']));
    assert.equal(obj.spec.replicas, 3);
    assert.equal(obj.metadata.generation, 2);
    const scale = JSON.parse(await kubectlOk(s, ['get', '--raw', '/apis/stable.example.com/v1/namespaces/cron/crontabs/scaled/scale']));
    assert.deepEqual(scale, {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'scaled',
        namespace: 'cron',
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
        creationTimestamp: obj.metadata.creationTimestamp,
      },
      spec: { replicas: 3 },
      status: { replicas: 1, selector: 'app=scaled' },
    });
    // --current-replicas is checked against the Scale.
    const stale = await kubectlFails(s, ['scale', '--current-replicas=2', '--replicas=4', 'crontab/scaled', '-n', 'cron']);
    assert.match(stale.stderr, /error: Expected replicas to be 2, was 3/);
    // Scaling past the schema's maximum is rejected by the CR's validation.
    const tooMany = await kubectlFails(s, ['scale', '--replicas=11', 'crontab/scaled', '-n', 'cron']);
    assert.match(tooMany.stderr, /spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10/);
  });
});

describe('several versions, conversion None', () => {
  const twoVersions = (storage: 'v1' | 'v1beta1'): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: databases.data.example.com}
spec:
  group: data.example.com
  scope: Namespaced
  names: {plural: databases, singular: database, kind: Database, shortNames: [db]}
  conversion: {strategy: None}
  versions:
  - name: v1beta1
    served: true
    storage: ${storage === 'v1beta1'}
    deprecated: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {engine: {type: string}, size: {type: string}}}
  - name: v1
    served: true
    storage: ${storage === 'v1'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              engine: {type: string}
              size: {type: string, default: small}
`;

  kit('a CR created in v1 reads back in v1beta1 (with its deprecation warning); storedVersions is kept', async () => {
    const s = server();
    await applyYaml(s, twoVersions('v1'));
    await applyYaml(s, 'apiVersion: data.example.com/v1\nkind: Database\nmetadata: {name: orders, namespace: default}\nspec: {engine: postgres}\n');
    const v1 = JSON.parse(await kubectlOk(s, ['get', 'databases.v1.data.example.com', 'orders', '-o', 'json']));
    assert.equal(v1.apiVersion, 'data.example.com/v1');
    assert.deepEqual(v1.spec, { engine: 'postgres', size: 'small' });
    const r = await kubectl(s, ['get', 'databases.v1beta1.data.example.com', 'orders', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: data\.example\.com\/v1beta1 Database is deprecated$/m);
    const beta = JSON.parse(r.stdout);
    assert.equal(beta.apiVersion, 'data.example.com/v1beta1');
    assert.equal(beta.metadata.uid, v1.metadata.uid);
    assert.equal(beta.spec.engine, 'postgres');
    // The preferred version is the highest by kube's ordering (v1 before v1beta1, whatever the order of
    // spec.versions): it is what `kubectl get db` reads.
    assert.equal((await kubectlOk(s, ['get', 'db', 'orders', '-o', 'jsonpath={.apiVersion}'])), 'data.example.com/v1');
    assert.equal(await kubectlOk(s, ['get', 'crd', 'databases.data.example.com', '-o', 'jsonpath={.status.storedVersions}']), '["v1"]');

    // Moving storage to v1beta1 adds it to storedVersions; objects stay readable in both.
    await applyYaml(s, twoVersions('v1beta1'));
    assert.equal(await kubectlOk(s, ['get', 'crd', 'databases.data.example.com', '-o', 'jsonpath={.status.storedVersions}']), '["v1","v1beta1"]');
    await applyYaml(s, 'apiVersion: data.example.com/v1beta1\nkind: Database\nmetadata: {name: users, namespace: default}\nspec: {engine: mysql}\n');
    const users = JSON.parse(await kubectlOk(s, ['get', 'databases.v1.data.example.com', 'users', '-o', 'json']));
    assert.equal(users.apiVersion, 'data.example.com/v1');
    assert.deepEqual(users.spec, { engine: 'mysql', size: 'small' });
    const list = await kubectlOk(s, ['get', 'databases.v1beta1.data.example.com', '-o', 'name']);
    assert.deepEqual(list.trim().split('\n'), ['database.data.example.com/orders', 'database.data.example.com/users']);

    // A version listed in storedVersions may not be dropped from spec.versions.
    const dropped = await kubectlFails(s, ['apply', '-f', '-'], { input: twoVersions('v1').replace(/  - name: v1beta1\n[\s\S]*?(?=  - name: v1\n)/, '') });
    assert.equal(
      dropped.stderr.trim(),
      'The CustomResourceDefinition "databases.data.example.com" is invalid: status.storedVersions[1]: Invalid value: "v1beta1": missing from spec.versions; ' +
        'v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions',
    );
  });
});

describe('deleting a CRD', () => {
  kit('deletes its custom resources; re-creating the CRD starts empty', async () => {
    const s = server();
    const crd = crdYaml({ group: 'temp.example.com', kind: 'Scratch', plural: 'scratches', schema: 'type: object\nx-kubernetes-preserve-unknown-fields: true' });
    await applyYaml(s, crd);
    await applyYaml(s, ['a', 'b', 'c'].map((n) => `apiVersion: temp.example.com/v1\nkind: Scratch\nmetadata: {name: ${n}, namespace: default}\n`).join('---\n'));
    assert.equal((await kubectlOk(s, ['get', 'scratches', '-o', 'name'])).trim().split('\n').length, 3);
    const deleted = await kubectlOk(s, ['delete', 'crd', 'scratches.temp.example.com']);
    assert.equal(deleted.trim(), 'customresourcedefinition.apiextensions.k8s.io "scratches.temp.example.com" deleted');
    const gone = await kubectlFails(s, ['get', 'crd', 'scratches.temp.example.com']);
    assert.match(gone.stderr, /Error from server \(NotFound\): customresourcedefinitions\.apiextensions\.k8s\.io "scratches\.temp\.example\.com" not found/);
    const unserved = await kubectlFails(s, ['get', '--raw', '/apis/temp.example.com/v1/namespaces/default/scratches']);
    assert.match(unserved.stderr, /NotFound/);
    await applyYaml(s, crd);
    const empty = await kubectl(s, ['get', 'scratches']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stderr.trim(), 'No resources found in default namespace.');
  });
});
