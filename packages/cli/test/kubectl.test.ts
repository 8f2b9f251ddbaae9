/**
 * The real kubectl against `operant server`: discovery, OpenAPI, explain, and
 * every way kubectl writes objects (create, apply, replace, edit, label,
 * annotate, patch), with kube's answers to bad input.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, row, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

/** Writes a file next to the kubeconfig and returns its path. */
function file(name: string, text: string): string {
  const path = join(server().dir, name);
  writeFileSync(path, text);
  return path;
}

async function json(args: string[]): Promise<any> {
  return JSON.parse(await kubectlOk(server(), [...args, '-o', 'json']));
}

async function namespace(name: string): Promise<void> {
  await applyYaml(server(), `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`);
}

describe('kubectl: discovery', () => {
  kit('version reports the server as v1.32', async () => {
    const out = await kubectlOk(server(), ['version']);
    assert.match(out, /^Server Version: v1\.32\.\d+$/m);
    const v = JSON.parse(await kubectlOk(server(), ['version', '-o', 'json']));
    assert.equal(v.serverVersion.major, '1');
    assert.equal(v.serverVersion.minor, '32');
    assert.match(v.serverVersion.gitVersion, /^v1\.32\.\d+$/);
    assert.match(v.serverVersion.platform, /^\w+\/\w+$/);
  });

  kit('api-resources lists the built-ins with short names, groups, scope and kinds', async () => {
    const out = await kubectlOk(server(), ['api-resources']);
    assert.deepEqual(tableRows(out)[0], ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    assert.deepEqual(row(out, 'pods'), ['pods', 'po', 'v1', 'true', 'Pod']);
    assert.deepEqual(row(out, 'namespaces'), ['namespaces', 'ns', 'v1', 'false', 'Namespace']);
    assert.deepEqual(row(out, 'configmaps'), ['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
    assert.deepEqual(row(out, 'services'), ['services', 'svc', 'v1', 'true', 'Service']);
    assert.deepEqual(row(out, 'deployments'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
    assert.deepEqual(row(out, 'replicasets'), ['replicasets', 'rs', 'apps/v1', 'true', 'ReplicaSet']);
    assert.deepEqual(row(out, 'customresourcedefinitions'), ['customresourcedefinitions', 'crd,crds', 'apiextensions.k8s.io/v1', 'false', 'CustomResourceDefinition']);

    const names = (await kubectlOk(server(), ['api-resources', '-o', 'name'])).trim().split('\n');
    for (const n of ['pods', 'deployments.apps', 'replicasets.apps', 'leases.coordination.k8s.io', 'roles.rbac.authorization.k8s.io', 'events.events.k8s.io']) {
      assert.ok(names.includes(n), `${n} missing from api-resources -o name: ${names.join(' ')}`);
    }
    const wide = await kubectlOk(server(), ['api-resources', '--api-group=apps', '-o', 'wide']);
    const deploy = tableRows(wide).find((r) => r[0] === 'deployments')!;
    assert.ok(deploy, wide);
    assert.deepEqual(deploy, ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment', 'create,delete,deletecollection,get,list,patch,update,watch', 'all']);
    assert.ok(!wide.includes('pods'), 'only apps resources with --api-group=apps');
  });

  kit('api-versions lists every served group/version', async () => {
    const versions = (await kubectlOk(server(), ['api-versions'])).trim().split('\n');
    for (const gv of ['v1', 'apps/v1', 'coordination.k8s.io/v1', 'events.k8s.io/v1', 'rbac.authorization.k8s.io/v1', 'apiextensions.k8s.io/v1', 'admissionregistration.k8s.io/v1', 'authorization.k8s.io/v1']) {
      assert.ok(versions.includes(gv), `${gv} missing: ${versions.join(' ')}`);
    }
    assert.deepEqual(versions, [...versions].sort(), 'kubectl sorts them');
  });

  kit('cluster-info names the control plane URL', async () => {
    const out = await kubectlOk(server(), ['cluster-info']);
    assert.ok(out.includes(`Kubernetes control plane is running at ${server().url}`), out);
  });

  kit('get --raw serves discovery documents', async () => {
    const core = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/api/v1']));
    assert.equal(core.kind, 'APIResourceList');
    assert.equal(core.groupVersion, 'v1');
    const pods = core.resources.find((r: any) => r.name === 'pods');
    assert.equal(pods.kind, 'Pod');
    assert.equal(pods.namespaced, true);
    assert.equal(pods.singularName, 'pod');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.deepEqual([...pods.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.ok(core.resources.some((r: any) => r.name === 'pods/status' && r.kind === 'Pod'), 'pods/status subresource');

    const legacy = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/api']));
    assert.equal(legacy.kind, 'APIVersions');
    assert.deepEqual(legacy.versions, ['v1']);

    const groups = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/apis']));
    assert.equal(groups.kind, 'APIGroupList');
    const apps = groups.groups.find((g: any) => g.name === 'apps');
    assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });

    const appsV1 = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/apis/apps/v1']));
    assert.equal(appsV1.groupVersion, 'apps/v1');
    assert.ok(appsV1.resources.some((r: any) => r.name === 'deployments/scale'), 'deployments/scale subresource');
  });

  kit('get --raw serves the OpenAPI v3 index and group-version documents', async () => {
    const index = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/openapi/v3']));
    assert.match(index.paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    assert.match(index.paths['apis/apps/v1'].serverRelativeURL, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
    const doc = JSON.parse(await kubectlOk(server(), ['get', '--raw', index.paths['apis/apps/v1'].serverRelativeURL]));
    assert.match(doc.openapi, /^3\./);
    const deployment = doc.components.schemas['io.k8s.api.apps.v1.Deployment'];
    assert.deepEqual(deployment['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    assert.ok(Object.keys(patch.requestBody.content).includes('application/strategic-merge-patch+json'));
    const params = [...(patch.parameters ?? []), ...(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].parameters ?? [])];
    assert.ok(params.some((p: any) => (p.name ?? '') === 'fieldValidation' || String(p.$ref ?? '').includes('fieldValidation')), 'PATCH lists fieldValidation');
  });

  kit('explain prints field descriptions from the OpenAPI documents', async () => {
    const out = await kubectlOk(server(), ['explain', 'pods.spec.containers']);
    assert.match(out, /^KIND:\s+Pod$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    assert.match(out, /^FIELD: containers <\[\]Container>$/m);
    assert.match(out, /DESCRIPTION:\n\s+List of containers belonging to the pod\./);
    assert.match(out, /^ {2}name\t<string> -required-$/m);
    assert.match(out, /^ {2}image\t<string>$/m);
    assert.match(out, /^ {2}env\t<\[\]EnvVar>$/m);

    const replicas = await kubectlOk(server(), ['explain', 'deployments.spec.replicas']);
    assert.match(replicas, /^GROUP:\s+apps$/m);
    assert.match(replicas, /^FIELD: replicas <integer>$/m);
    assert.match(replicas, /Number of desired pods\./);

    const bad = await kubectlFails(server(), ['explain', 'pods.spec.nope']);
    assert.match(bad.stderr, /field "nope" does not exist/);
  });
});

describe('kubectl: create with generators (protobuf bodies)', () => {
  kit('create namespace, configmap and deployment', async () => {
    assert.equal((await kubectlOk(server(), ['create', 'namespace', 'gen'])).trim(), 'namespace/gen created');
    const ns = await kubectlOk(server(), ['get', 'namespace', 'gen']);
    assert.deepEqual(row(ns, 'gen').slice(0, 2), ['gen', 'Active']);
    assert.equal((await kubectlOk(server(), ['create', 'configmap', 'cfg', '-n', 'gen', '--from-literal=a=1', '--from-literal=b=2'])).trim(), 'configmap/cfg created');
    assert.deepEqual((await json(['get', 'configmap', 'cfg', '-n', 'gen'])).data, { a: '1', b: '2' });
    assert.equal((await kubectlOk(server(), ['create', 'deployment', 'web', '-n', 'gen', '--image=nginx:1.25', '--replicas=3'])).trim(), 'deployment.apps/web created');
    const d = await json(['get', 'deployment', 'web', '-n', 'gen']);
    assert.equal(d.spec.replicas, 3);
    assert.deepEqual(d.spec.selector, { matchLabels: { app: 'web' } });
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.25');
    assert.equal(d.metadata.generation, 1);
  });

  kit('run, create secret, service, serviceaccount, role, rolebinding, and --dry-run=server', async () => {
    await namespace('gen2');
    const ok = async (args: string[], expected: string): Promise<void> => {
      assert.equal((await kubectlOk(server(), [...args, '-n', 'gen2'])).trim(), expected);
    };
    await ok(['run', 'nginx', '--image=nginx:1.25', '--labels=app=n', '--port=80'], 'pod/nginx created');
    const pod = await json(['get', 'pod', 'nginx', '-n', 'gen2']);
    assert.deepEqual(pod.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(pod.metadata.labels, { app: 'n' });
    assert.equal(pod.status.phase, 'Pending');
    await ok(['create', 'secret', 'generic', 'creds', '--from-literal=user=admin'], 'secret/creds created');
    assert.deepEqual((await json(['get', 'secret', 'creds', '-n', 'gen2'])).data, { user: 'YWRtaW4=' });
    await ok(['create', 'service', 'clusterip', 'front', '--tcp=80:8080'], 'service/front created');
    const svc = await json(['get', 'svc', 'front', '-n', 'gen2']);
    assert.deepEqual(svc.spec.ports, [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
    assert.deepEqual(svc.spec.selector, { app: 'front' });
    await ok(['create', 'serviceaccount', 'robot'], 'serviceaccount/robot created');
    await ok(['create', 'role', 'reader', '--verb=get,list', '--resource=pods'], 'role.rbac.authorization.k8s.io/reader created');
    assert.deepEqual((await json(['get', 'role', 'reader', '-n', 'gen2'])).rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);
    await ok(['create', 'rolebinding', 'read', '--role=reader', '--user=jane'], 'rolebinding.rbac.authorization.k8s.io/read created');
    await ok(['create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server'], 'configmap/dry created (server dry run)');
    const gone = await kubectlFails(server(), ['get', 'cm', 'dry', '-n', 'gen2']);
    assert.equal(gone.stderr.trim(), 'Error from server (NotFound): configmaps "dry" not found');
  });

  kit('create configmap with an invalid name gets the DNS-1123 error', async () => {
    const r = await kubectlFails(server(), ['create', 'configmap', 'Bad_Name']);
    // kubectl's generator commands prefix the server's Status message with their own.
    assert.equal(
      r.stderr.trim(),
      `error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    const ns = await kubectlFails(server(), ['create', 'namespace', 'Bad_NS']);
    assert.match(ns.stderr, /^The Namespace "Bad_NS" is invalid: metadata\.name: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'/);
  });

  kit("a cluster IP in use or outside the service CIDR gets kube's allocator errors, from create service and from apply", async () => {
    await namespace('ips');
    const create = (name: string, ip: string): string[] => ['create', 'service', 'clusterip', name, `--clusterip=${ip}`, '--tcp=80', '-n', 'ips'];
    assert.equal((await kubectlOk(server(), create('a', '10.96.0.10'))).trim(), 'service/a created');
    const taken = await kubectlFails(server(), create('b', '10.96.0.10'));
    assert.equal(
      taken.stderr.trim(),
      'error: failed to create ClusterIP service: Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
    const outside = await kubectlFails(server(), create('c', '10.0.0.10'));
    assert.equal(
      outside.stderr.trim(),
      'error: failed to create ClusterIP service: Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.10"}: failed to allocate IP 10.0.0.10: the provided IP (10.0.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    const applied = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: Service\nmetadata: {name: d, namespace: ips}\nspec:\n  clusterIP: 10.96.0.10\n  ports: [{port: 80}]\n',
    });
    assert.equal(
      applied.stderr.trim(),
      'The Service "d" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    );
  });
});

const manifests = (ns: string, value: string): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data:
  mode: ${value}
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: ${ns}
type: Opaque
data:
  password: aHVudGVyMg==
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${ns}
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: ${ns}
  labels:
    app: web
spec:
  containers:
  - name: main
    image: nginx:1.25
    ports:
    - containerPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: main
        image: nginx:1.25
`;

describe('kubectl: apply, create, replace, edit', () => {
  kit('apply -f creates built-ins with default validation, and re-apply reports configured/unchanged', async () => {
    await namespace('apply');
    const path = file('apply.yaml', manifests('apply', 'one'));
    const first = await kubectl(server(), ['apply', '-f', path, '-v=6']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.stdout.trim().split('\n'), [
      'configmap/settings created',
      'secret/creds created',
      'service/web created',
      'pod/solo created',
      'deployment.apps/web created',
    ]);
    // kubectl's default validation is server-side Strict, chosen from the OpenAPI v3 documents.
    assert.match(first.stderr, /POST \S+\/api\/v1\/namespaces\/apply\/configmaps\?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 201/);
    assert.doesNotMatch(first.stderr, /openapi\/v2/);

    assert.deepEqual((await kubectlOk(server(), ['apply', '-f', path])).trim().split('\n'), [
      'configmap/settings unchanged',
      'secret/creds unchanged',
      'service/web unchanged',
      'pod/solo unchanged',
      'deployment.apps/web unchanged',
    ]);

    const changed = manifests('apply', 'two').replace('replicas: 2', 'replicas: 4').replace('image: nginx:1.25\n    ports', 'image: nginx:1.26\n    ports');
    writeFileSync(path, changed);
    assert.deepEqual((await kubectlOk(server(), ['apply', '-f', path])).trim().split('\n'), [
      'configmap/settings configured',
      'secret/creds unchanged',
      'service/web unchanged',
      'pod/solo configured',
      'deployment.apps/web configured',
    ]);
    assert.deepEqual((await json(['get', 'cm', 'settings', '-n', 'apply'])).data, { mode: 'two' });
    const d = await json(['get', 'deploy', 'web', '-n', 'apply']);
    assert.equal(d.spec.replicas, 4);
    assert.equal(d.metadata.generation, 2);
    const lastApplied = JSON.parse(d.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(lastApplied.spec.replicas, 4);
    assert.equal((await json(['get', 'pod', 'solo', '-n', 'apply'])).spec.containers[0].image, 'nginx:1.26');
    const svc = await json(['get', 'svc', 'web', '-n', 'apply']);
    assert.match(svc.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
    assert.deepEqual(svc.spec.ports, [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }]);
    assert.equal((await json(['get', 'secret', 'creds', '-n', 'apply'])).data.password, 'aHVudGVyMg==');

    // Dropping a key from the file removes it from the object (the three-way merge).
    writeFileSync(path, changed.replace('  mode: two\n', '  other: x\n'));
    await kubectlOk(server(), ['apply', '-f', path]);
    assert.deepEqual((await json(['get', 'cm', 'settings', '-n', 'apply'])).data, { other: 'x' });
  });

  kit('apply -f rejects changes kube forbids, with kube\'s messages', async () => {
    await namespace('forbid');
    const path = file('forbid.yaml', manifests('forbid', 'one'));
    await kubectlOk(server(), ['apply', '-f', path]);
    const pod = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: Pod\nmetadata: {name: solo, namespace: forbid, labels: {app: web}}\nspec:\n  restartPolicy: Never\n  containers: [{name: main, image: nginx:1.25, ports: [{containerPort: 8080}]}]\n',
    });
    assert.match(pod.stderr, /The Pod "solo" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,`spec\.initContainers\[\*\]\.image`,`spec\.activeDeadlineSeconds`/);
    const selector = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: manifests('forbid', 'one').split('---\n')[4].replace(/app: web/g, 'app: other'),
    });
    assert.match(selector.stderr, /The Deployment "web" is invalid: spec\.selector: Invalid value: .*: field is immutable/);
  });

  kit(
    'apply -f of a kind: List, as kubectl get -o yaml writes it',
    async () => {
      await namespace('lists');
      await applyYaml(server(), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: lists}\ndata: {k: one}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: lists}\ndata: {k: one}\n');
      const dump = await kubectlOk(server(), ['get', 'cm', 'a', 'b', '-n', 'lists', '-o', 'yaml']);
      assert.match(dump, /^kind: List$/m);
      const path = file('list.yaml', dump.replace(/k: one/g, 'k: two'));
      assert.equal((await kubectlOk(server(), ['apply', '-f', path])).trim(), 'configmap/a configured\nconfigmap/b configured');
      assert.equal(await kubectlOk(server(), ['get', 'cm', '-n', 'lists', '-o', 'jsonpath={.items[*].data.k}']), 'two two');
      // The server still validates every item: an unknown field in a List item is refused.
      const bad = file('list-bad.yaml', dump.replace(/k: one/g, 'k: three').replace(/^(\s+)data:/gm, '$1bogus: 1\n$1data:'));
      const refused = await kubectlFails(server(), ['apply', '-f', bad]);
      assert.match(refused.stderr, /unknown field "bogus"/);
    },
  );

  kit('apply of an object with an invalid name gets the DNS-1123 error', async () => {
    const r = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n  namespace: default\n' });
    assert.match(
      r.stderr,
      /The ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character/,
    );
    // Namespaces are DNS-1123 labels: kube singles out dots.
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: Bad_NS\n' });
    assert.match(
      bad.stderr,
      /The Namespace "Bad_NS" is invalid: metadata\.name: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character \(e\.g\. 'my-name',  or '123-abc', regex used for validation is '\[a-z0-9\]\(\[-a-z0-9\]\*\[a-z0-9\]\)\?'\)/,
    );
    const dotted = await kubectlFails(server(), ['apply', '-f', '-'], { input: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: my.ns\n' });
    assert.match(dotted.stderr, /The Namespace "my\.ns" is invalid: metadata\.name: Invalid value: "my\.ns": must not contain dots/);
  });

  kit('apply of an unknown field gets kube\'s strict decoding error', async () => {
    await namespace('strict');
    const deployment = (extra: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: strict
spec:
${extra}  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: main, image: nginx}]
`;
    const created = await kubectlFails(server(), ['apply', '-f', '-'], { input: deployment('  x: 1\n') });
    assert.match(created.stderr, /Error from server \(BadRequest\): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec\.x"/);
    // On an existing object the same check runs on the patched result, and is answered as kube's
    // patch handler answers it: a 422 naming the patch (here kubectl's strategic merge patch, as a Go map).
    await kubectlOk(server(), ['apply', '-f', '-'], { input: deployment('') });
    const patched = await kubectlFails(server(), ['apply', '-f', '-'], { input: deployment('  x: 1\n') });
    assert.match(patched.stderr, /^The request is invalid: patch: Invalid value: "map\[metadata:map\[annotations:map\[kubectl\.kubernetes\.io\/last-applied-configuration:.*\]\] spec:map\[x:1\]\]": strict decoding error: unknown field "spec\.x"$/ms);
    // --validate=false sends fieldValidation=Ignore: the field is dropped.
    assert.equal((await kubectlOk(server(), ['apply', '--validate=false', '-f', '-'], { input: deployment('  x: 1\n') })).trim(), 'deployment.apps/web configured');
    assert.equal((await json(['get', 'deploy', 'web', '-n', 'strict'])).spec.x, undefined);
  });

  kit('create -f, replace -f, and create of an existing object', async () => {
    await namespace('crud');
    const path = file('crud.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: crud\ndata:\n  k: one\n');
    assert.equal((await kubectlOk(server(), ['create', '-f', path])).trim(), 'configmap/c created');
    const again = await kubectlFails(server(), ['create', '-f', path]);
    assert.match(again.stderr, /Error from server \(AlreadyExists\): error when creating ".*crud\.yaml": configmaps "c" already exists/);
    const before = await json(['get', 'cm', 'c', '-n', 'crud']);
    writeFileSync(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: crud\ndata:\n  k: two\n');
    assert.equal((await kubectlOk(server(), ['replace', '-f', path])).trim(), 'configmap/c replaced');
    const after = await json(['get', 'cm', 'c', '-n', 'crud']);
    assert.deepEqual(after.data, { k: 'two' });
    assert.equal(after.metadata.uid, before.metadata.uid);
    assert.ok(Number(after.metadata.resourceVersion) > Number(before.metadata.resourceVersion));

    const missing = await kubectlFails(server(), ['replace', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nope\n  namespace: crud\n' });
    assert.match(missing.stderr, /Error from server \(NotFound\): error when replacing "STDIN": configmaps "nope" not found/);

    // A stale resourceVersion is a conflict with kube's message.
    const stale = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: crud\n  resourceVersion: "${before.metadata.resourceVersion}"\ndata:\n  k: three\n`;
    const conflict = await kubectlFails(server(), ['replace', '-f', '-'], { input: stale });
    assert.match(conflict.stderr, /Error from server \(Conflict\): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again/);

    // resourceVersion "0" is read as none at all: an unconditional replace, as kube-apiserver does (issue 17).
    const zero = stale.replace(/resourceVersion: "\d+"/, 'resourceVersion: "0"').replace('k: three', 'k: four');
    assert.equal((await kubectlOk(server(), ['replace', '-f', '-'], { input: zero })).trim(), 'configmap/c replaced');
    assert.deepEqual((await json(['get', 'cm', 'c', '-n', 'crud'])).data, { k: 'four' });
  });

  kit('edit with a scripted EDITOR', async () => {
    await namespace('edit');
    await applyYaml(server(), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: e\n  namespace: edit\ndata:\n  color: blue\n');
    const editor = file('editor.mjs', "import { readFileSync, writeFileSync } from 'node:fs';\nconst f = process.argv[2];\nwriteFileSync(f, readFileSync(f, 'utf8').replace('color: blue', 'color: green\\n  size: large'));\n");
    const out = await kubectlOk(server(), ['edit', 'configmap', 'e', '-n', 'edit'], { env: { EDITOR: `${process.execPath} ${editor}`, KUBE_EDITOR: '' } });
    assert.equal(out.trim(), 'configmap/e edited');
    assert.deepEqual((await json(['get', 'cm', 'e', '-n', 'edit'])).data, { color: 'green', size: 'large' });

    // An editor that changes nothing cancels the edit.
    const none = await kubectlOk(server(), ['edit', 'configmap', 'e', '-n', 'edit'], { env: { EDITOR: 'true', KUBE_EDITOR: '' } });
    assert.equal(none.trim(), '');

    // An edit the server rejects is reported with kube's Invalid message.
    const badEditor = file('bad-editor.mjs', "import { readFileSync, writeFileSync } from 'node:fs';\nconst f = process.argv[2];\nwriteFileSync(f, readFileSync(f, 'utf8').replace('size: large', 'bad key!: x'));\n");
    const bad = await kubectl(server(), ['edit', 'configmap', 'e', '-n', 'edit'], { env: { EDITOR: `${process.execPath} ${badEditor}`, KUBE_EDITOR: '', TMPDIR: server().dir } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^error: configmaps "e" is invalid$/m);
    assert.match(bad.stderr, /^error: Edit cancelled, no valid changes were saved\.$/m);
    const copy = /A copy of your changes has been stored to "([^"]+)"/.exec(bad.stderr);
    assert.ok(copy, bad.stderr);
    // kubectl writes the server's causes into the copy it keeps.
    assert.match(
      readFileSync(copy[1], 'utf8'),
      /^# \* data\[bad key!\]: Invalid value: "bad key!": a valid config key must consist of alphanumeric characters, '-', '_' or '\.' \(e\.g\. 'key\.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '\[-\._a-zA-Z0-9\]\+'\)$/m,
    );
    assert.deepEqual((await json(['get', 'cm', 'e', '-n', 'edit'])).data, { color: 'green', size: 'large' });
  });
});

describe('kubectl: label, annotate, patch', () => {
  kit('label: add, refuse to overwrite, overwrite, remove; selectors see it', async () => {
    await namespace('labels');
    await applyYaml(server(), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: l\n  namespace: labels\n');
    assert.equal((await kubectlOk(server(), ['label', 'cm', 'l', '-n', 'labels', 'tier=front', 'team=a'])).trim(), 'configmap/l labeled');
    const refused = await kubectlFails(server(), ['label', 'cm', 'l', '-n', 'labels', 'tier=back']);
    assert.match(refused.stderr, /error: 'tier' already has a value \(front\), and --overwrite is false/);
    assert.equal((await kubectlOk(server(), ['label', 'cm', 'l', '-n', 'labels', 'tier=back', '--overwrite'])).trim(), 'configmap/l labeled');
    assert.deepEqual((await json(['get', 'cm', 'l', '-n', 'labels'])).metadata.labels, { tier: 'back', team: 'a' });
    assert.equal((await kubectlOk(server(), ['get', 'cm', '-n', 'labels', '-l', 'tier=back', '-o', 'name'])).trim(), 'configmap/l');
    assert.equal((await kubectlOk(server(), ['label', 'cm', 'l', '-n', 'labels', 'tier-', 'team-'])).trim(), 'configmap/l unlabeled');
    const meta = (await json(['get', 'cm', 'l', '-n', 'labels'])).metadata;
    assert.equal(meta.labels, undefined, `labels should be gone (kube omits an empty map), got ${JSON.stringify(meta.labels)}`);
  });

  kit('annotate: add, refuse to overwrite, overwrite, remove with key-', async () => {
    await namespace('annotations');
    await applyYaml(server(), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: annotations\nstringData:\n  k: v\n');
    assert.equal((await kubectlOk(server(), ['annotate', 'secret', 's', '-n', 'annotations', 'note=first', 'owner=ops'])).trim(), 'secret/s annotated');
    const refused = await kubectlFails(server(), ['annotate', 'secret', 's', '-n', 'annotations', 'note=second']);
    assert.match(refused.stderr, /error: --overwrite is false but found the following declared annotation\(s\): 'note' already has a value \(first\)/);
    assert.equal((await kubectlOk(server(), ['annotate', 'secret', 's', '-n', 'annotations', 'note=second', '--overwrite'])).trim(), 'secret/s annotated');
    let ann = (await json(['get', 'secret', 's', '-n', 'annotations'])).metadata.annotations;
    assert.equal(ann.note, 'second');
    assert.equal(ann.owner, 'ops');
    assert.equal((await kubectlOk(server(), ['annotate', 'secret', 's', '-n', 'annotations', 'note-'])).trim(), 'secret/s annotated');
    ann = (await json(['get', 'secret', 's', '-n', 'annotations'])).metadata.annotations;
    assert.equal(ann.note, undefined);
    assert.equal(ann.owner, 'ops');
    // stringData was merged into data and is not stored.
    const s = await json(['get', 'secret', 's', '-n', 'annotations']);
    assert.deepEqual(s.data, { k: Buffer.from('v').toString('base64') });
    assert.equal(s.stringData, undefined);
  });

  kit('patch --type merge, json and strategic (the default)', async () => {
    await namespace('patch');
    await applyYaml(server(), `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: patch
spec:
  selector:
    matchLabels: {app: d}
  template:
    metadata:
      labels: {app: d}
    spec:
      containers:
      - name: main
        image: nginx:1.25
        env: [{name: A, value: "1"}]
      - name: side
        image: busybox
`);
    assert.equal((await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'merge', '-p', '{"spec":{"replicas":3}}'])).trim(), 'deployment.apps/d patched');
    let d = await json(['get', 'deploy', 'd', '-n', 'patch']);
    assert.equal(d.spec.replicas, 3);
    assert.equal(d.metadata.generation, 2);

    await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/template/spec/containers/1/image","value":"busybox:1.36"},{"op":"add","path":"/metadata/labels","value":{"x":"y"}}]']);
    d = await json(['get', 'deploy', 'd', '-n', 'patch']);
    assert.equal(d.spec.template.spec.containers[1].image, 'busybox:1.36');
    assert.deepEqual(d.metadata.labels, { x: 'y' });

    // Strategic merge: containers merge by name, env by name.
    await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"nginx:1.26","env":[{"name":"B","value":"2"}]}]}}}}']);
    d = await json(['get', 'deploy', 'd', '-n', 'patch']);
    const containers = d.spec.template.spec.containers;
    assert.deepEqual(containers.map((c: any) => [c.name, c.image]), [['main', 'nginx:1.26'], ['side', 'busybox:1.36']]);
    assert.deepEqual(containers[0].env, [{ name: 'B', value: '2' }, { name: 'A', value: '1' }]);
    // The same patch as a merge patch replaces the whole list.
    await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'merge', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"only","image":"x"}]}}}}']);
    d = await json(['get', 'deploy', 'd', '-n', 'patch']);
    assert.deepEqual(d.spec.template.spec.containers.map((c: any) => c.name), ['only']);
    // $retainKeys/$patch directives of strategic merge: delete one element.
    await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"extra","image":"y"}]}}}}']);
    await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"only","$patch":"delete"}]}}}}']);
    d = await json(['get', 'deploy', 'd', '-n', 'patch']);
    assert.deepEqual(d.spec.template.spec.containers.map((c: any) => c.name), ['extra']);

    const noop = await kubectlOk(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'merge', '-p', '{"spec":{"replicas":3}}']);
    assert.equal(noop.trim(), 'deployment.apps/d patched (no change)');

    const badTest = await kubectlFails(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'json', '-p', '[{"op":"test","path":"/spec/replicas","value":9}]']);
    // kube answers a failed JSON patch test with a bare 422 Invalid.
    assert.equal(badTest.stderr.trim(), 'The request is invalid: the server rejected our request due to an error in our request');
    const invalid = await kubectlFails(server(), ['patch', 'deploy', 'd', '-n', 'patch', '--type', 'merge', '-p', '{"spec":{"replicas":-1}}']);
    assert.match(invalid.stderr, /The Deployment "d" is invalid: spec\.replicas: Invalid value: -1: must be greater than or equal to 0/);
  });
});

describe('kubectl: describe', () => {
  kit('describe pod and deployment show their events', async () => {
    await namespace('desc');
    await applyYaml(server(), `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: desc
  labels: {app: p}
spec:
  containers:
  - name: main
    image: nginx:1.25
    ports: [{containerPort: 80}]
    env: [{name: MODE, value: fast}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  namespace: desc
spec:
  replicas: 2
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: main, image: nginx:1.25}]
`);
    const pod = await json(['get', 'pod', 'p', '-n', 'desc']);
    const dep = await json(['get', 'deploy', 'd', '-n', 'desc']);
    const event = (name: string, kind: string, apiVersion: string, obj: any, reason: string, message: string, type = 'Normal'): string => `apiVersion: v1
kind: Event
metadata:
  name: ${name}
  namespace: desc
involvedObject:
  apiVersion: ${apiVersion}
  kind: ${kind}
  name: ${obj.metadata.name}
  namespace: desc
  uid: ${obj.metadata.uid}
reason: ${reason}
message: ${JSON.stringify(message)}
type: ${type}
source: {component: ${kind === 'Pod' ? 'kubelet' : 'deployment-controller'}}
count: 3
firstTimestamp: "${new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, 'Z')}"
lastTimestamp: "${new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z')}"
---
`;
    await applyYaml(
      server(),
      event('p.pulled', 'Pod', 'v1', pod, 'Pulled', 'Successfully pulled image "nginx:1.25"') +
        event('p.backoff', 'Pod', 'v1', pod, 'BackOff', 'Back-off restarting failed container', 'Warning') +
        event('d.scaled', 'Deployment', 'apps/v1', dep, 'ScalingReplicaSet', 'Scaled up replica set d-abc to 2'),
    );

    const p = await kubectlOk(server(), ['describe', 'pod', 'p', '-n', 'desc']);
    assert.match(p, /^Name:\s+p$/m);
    assert.match(p, /^Namespace:\s+desc$/m);
    assert.match(p, /^Labels:\s+app=p$/m);
    assert.match(p, /^Status:\s+Pending$/m);
    assert.match(p, /^ {4}Image:\s+nginx:1\.25$/m);
    assert.match(p, /^ {4}Port:\s+80\/TCP$/m);
    assert.match(p, /^ {6}MODE:\s+fast$/m);
    assert.match(p, /^QoS Class:\s+BestEffort$/m);
    assert.match(p, /^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n\s+----/m);
    assert.match(p, /^ {2}Normal\s+Pulled\s+\S+ \(x3 over \S+\)\s+kubelet\s+Successfully pulled image "nginx:1\.25"$/m);
    assert.match(p, /^ {2}Warning\s+BackOff\s+\S+ \(x3 over \S+\)\s+kubelet\s+Back-off restarting failed container$/m);
    assert.doesNotMatch(p, /ScalingReplicaSet/);

    const d = await kubectlOk(server(), ['describe', 'deployment', 'd', '-n', 'desc']);
    assert.match(d, /^Name:\s+d$/m);
    assert.match(d, /^Selector:\s+app=d$/m);
    assert.match(d, /^Replicas:\s+2 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
    assert.match(d, /^StrategyType:\s+RollingUpdate$/m);
    assert.match(d, /^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
    assert.match(d, /^ {2}Normal\s+ScalingReplicaSet\s+\S+ \(x3 over \S+\)\s+deployment-controller\s+Scaled up replica set d-abc to 2$/m);
    assert.doesNotMatch(d, /Pulled/);

    // The ReplicaSet the deployment controls (by ownerReference) is listed as its new one.
    await applyYaml(server(), `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: d-abc
  namespace: desc
  labels: {app: d}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: d, uid: ${dep.metadata.uid}, controller: true, blockOwnerDeletion: true}]
spec:
  replicas: 2
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: main, image: nginx:1.25}]
`);
    const withRs = await kubectlOk(server(), ['describe', 'deployment', 'd', '-n', 'desc']);
    assert.match(withRs, /^NewReplicaSet:\s+d-abc \(0\/2 replicas created\)$/m);
    const rs = await kubectlOk(server(), ['describe', 'rs', 'd-abc', '-n', 'desc']);
    assert.match(rs, /^Controlled By:\s+Deployment\/d$/m);
  });
});
