/**
 * The real kubectl's server-side apply against the embedded server: applying
 * twice with a changed file (a removed field disappears), a conflict with
 * another manager in kube's words and `--force-conflicts`, `--show-managed-fields`
 * (plain `-o yaml` hides them), `kubectl label` and `kubectl edit` recorded as
 * their own managers, `kubectl diff --server-side` on a built-in and on a custom
 * resource, taking over a client-side-applied object, and `kubectl scale`
 * recorded through the scale subresource (then conflicting with an apply).
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlOk } from './harness.js';
import { kit, kubectlFails, serverForFile } from './kubectl-support.js';
import { fixturePath } from './crd-support.js';

const server = serverForFile();

const deployment = (replicas: number, image: string, env = true): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports:
        - containerPort: 80
${env ? '        env:\n        - name: A\n          value: "1"\n' : ''}`;

const ssa = (yaml: string, ...extra: string[]): Promise<string> => kubectlOk(server(), ['apply', '--server-side', '-f', '-', ...extra], { input: yaml });
const json = async (args: string[]): Promise<any> => JSON.parse(await kubectlOk(server(), [...args, '-o', 'json']));

describe('kubectl apply --server-side', () => {
  kit('applies twice; a field dropped from the file disappears', async () => {
    assert.match(await ssa(deployment(2, 'nginx:1.25')), /^deployment\.apps\/web serverside-applied$/m);
    const first = await json(['get', 'deployment', 'web', '--show-managed-fields']);
    assert.deepEqual(first.spec.template.spec.containers[0].env, [{ name: 'A', value: '1' }]);
    await ssa(deployment(2, 'nginx:1.25', false));
    const second = await json(['get', 'deployment', 'web', '--show-managed-fields']);
    assert.equal(second.spec.template.spec.containers[0].env, undefined);
    const entry = second.metadata.managedFields.find((e: any) => e.manager === 'kubectl');
    assert.equal(entry.operation, 'Apply');
    assert.deepEqual(entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers'], {
      'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
    });
    // kubectl hides managedFields unless asked.
    assert.doesNotMatch(await kubectlOk(server(), ['get', 'deployment', 'web', '-o', 'yaml']), /managedFields/);
    assert.match(await kubectlOk(server(), ['get', 'deployment', 'web', '-o', 'yaml', '--show-managed-fields']), /manager: kubectl\n {4}operation: Apply/);
  });

  kit('a field another manager changed conflicts, in kube’s words, until --force-conflicts', async () => {
    await kubectlOk(server(), ['patch', 'deployment', 'web', '-p', '{"spec":{"replicas":3}}']);
    const r = await kubectlFails(server(), ['apply', '--server-side', '-f', '-'], { input: deployment(4, 'nginx:1.26', false) });
    assert.match(r.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl-patch" using apps\/v1: \.spec\.replicas$/m);
    assert.equal((await json(['get', 'deployment', 'web'])).spec.replicas, 3);
    await ssa(deployment(4, 'nginx:1.26', false), '--force-conflicts');
    const forced = await json(['get', 'deployment', 'web', '--show-managed-fields']);
    assert.equal(forced.spec.replicas, 4);
    assert.equal(forced.spec.template.spec.containers[0].image, 'nginx:1.26');
    // kubectl-patch owned only replicas: its entry is gone.
    assert.deepEqual(forced.metadata.managedFields.map((e: any) => e.manager).sort(), ['kubectl']);
  });

  kit('kubectl label is recorded as its own manager; diff --server-side shows the merged object', async () => {
    await kubectlOk(server(), ['label', 'deployment', 'web', 'team=blue']);
    const labelled = await json(['get', 'deployment', 'web', '--show-managed-fields']);
    const label = labelled.metadata.managedFields.find((e: any) => e.manager === 'kubectl-label');
    assert.deepEqual(label.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:team': {} } } });
    assert.equal(label.operation, 'Update');
    const diff = await kubectlFails(server(), ['diff', '--server-side', '-f', '-'], { input: deployment(5, 'nginx:1.26', false) });
    assert.match(diff.stdout, /^-  replicas: 4\n\+  replicas: 5$/m);
    assert.equal((await json(['get', 'deployment', 'web'])).spec.replicas, 4, 'diff changes nothing');
  });

  kit('kubectl edit is recorded as its own manager', async () => {
    // kubectl runs $KUBE_EDITOR on the object's YAML: sed stands in for a person.
    await kubectlOk(server(), ['edit', 'deployment', 'web'], { env: { KUBE_EDITOR: 'sed -i s/nginx:1.26/nginx:1.27/' } });
    const edited = await json(['get', 'deployment', 'web', '--show-managed-fields']);
    assert.equal(edited.spec.template.spec.containers[0].image, 'nginx:1.27');
    const entry = edited.metadata.managedFields.find((e: any) => e.manager === 'kubectl-edit');
    assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:image': {} } } } } } });
    // The image moved from kubectl's apply to kubectl-edit: re-applying 1.26 is a conflict.
    const r = await kubectlFails(server(), ['apply', '--server-side', '-f', '-'], { input: deployment(4, 'nginx:1.26', false) });
    assert.match(r.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl-edit" using apps\/v1: \.spec\.template\.spec\.containers\[name="nginx"\]\.image$/m);
  });

  kit('custom resources: apply, a removed field disappears, diff --server-side', async () => {
    await kubectlOk(server(), ['apply', '-f', fixturePath('crontab-crd.yaml')]);
    const cronTab = (image?: string): string =>
      `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: nightly, namespace: default}\nspec: {cronSpec: "* * * * */5"${image ? `, image: ${image}` : ''}}\n`;
    await ssa(cronTab('busybox'));
    await ssa(cronTab());
    const applied = await json(['get', 'crontab', 'nightly', '--show-managed-fields']);
    // image is gone; replicas stays, filled in by the schema's default.
    assert.deepEqual(applied.spec, { cronSpec: '* * * * */5', replicas: 1 });
    assert.deepEqual(applied.metadata.managedFields.find((e: any) => e.manager === 'kubectl').fieldsV1, { 'f:spec': { 'f:cronSpec': {} } });
    const diff = await kubectlFails(server(), ['diff', '--server-side', '-f', '-'], { input: cronTab('alpine') });
    assert.match(diff.stdout, /^\+  image: alpine$/m);
  });

  kit('kubectl create records the fields kube records (no "." where the Go zero value already has the struct)', async () => {
    await kubectlOk(server(), ['create', 'deployment', 'created', '--image=nginx']);
    const created = await json(['get', 'deployment', 'created', '--show-managed-fields']);
    assert.deepEqual(
      created.metadata.managedFields.map((e: any) => [e.manager, e.operation, e.apiVersion, e.fieldsType]),
      [['kubectl-create', 'Update', 'apps/v1', 'FieldsV1']],
    );
    // As kube-apiserver 1.32 records `kubectl create deployment created --image=nginx`.
    assert.deepEqual(created.metadata.managedFields[0].fieldsV1, {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:progressDeadlineSeconds': {},
        'f:replicas': {},
        'f:revisionHistoryLimit': {},
        'f:selector': {},
        'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"nginx"}': {
                '.': {},
                'f:image': {},
                'f:imagePullPolicy': {},
                'f:name': {},
                'f:resources': {},
                'f:terminationMessagePath': {},
                'f:terminationMessagePolicy': {},
              },
            },
            'f:dnsPolicy': {},
            'f:restartPolicy': {},
            'f:schedulerName': {},
            'f:securityContext': {},
            'f:terminationGracePeriodSeconds': {},
          },
        },
      },
    });
  });

  kit('kubectl scale is recorded under subresource scale; an apply of spec.replicas then conflicts until --force-conflicts', async () => {
    const replicas = (n: number): string => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: scaled, namespace: default}\nspec:\n  replicas: ${n}\n`;
    await kubectlOk(server(), ['create', 'deployment', 'scaled', '--image=nginx', '--replicas=2']);
    await ssa(replicas(2));
    assert.match(await kubectlOk(server(), ['scale', 'deployment', 'scaled', '--replicas=5']), /deployment\.apps\/scaled scaled/);
    const scaled = await json(['get', 'deployment', 'scaled', '--show-managed-fields']);
    assert.equal(scaled.spec.replicas, 5);
    // kube's ScaleHandler: the manager first seen through the scale has no time.
    assert.deepEqual(
      scaled.metadata.managedFields.find((e: any) => e.subresource === 'scale'),
      { apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, manager: 'kubectl', operation: 'Update', subresource: 'scale' },
    );
    // The apply owned only the replicas (its entry is gone); kubectl create lost them.
    assert.equal(scaled.metadata.managedFields.find((e: any) => e.manager === 'kubectl' && e.operation === 'Apply'), undefined);
    assert.equal(scaled.metadata.managedFields.find((e: any) => e.manager === 'kubectl-create').fieldsV1['f:spec']['f:replicas'], undefined);
    const r = await kubectlFails(server(), ['apply', '--server-side', '-f', '-'], { input: replicas(3) });
    assert.match(r.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps\/v1: \.spec\.replicas$/m);
    await ssa(replicas(3), '--force-conflicts');
    const forced = await json(['get', 'deployment', 'scaled', '--show-managed-fields']);
    assert.equal(forced.spec.replicas, 3);
    assert.equal(forced.metadata.managedFields.find((e: any) => e.subresource === 'scale'), undefined);
  });

  kit('takes over an object created by client-side apply without conflicts', async () => {
    const cm = (a: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: migrated, namespace: default}\ndata: {a: "${a}", b: "2"}\n`;
    await kubectlOk(server(), ['apply', '-f', '-'], { input: cm('1') });
    assert.match(await ssa(cm('9')), /configmap\/migrated serverside-applied/);
    const taken = await json(['get', 'configmap', 'migrated', '--show-managed-fields']);
    assert.deepEqual(taken.data, { a: '9', b: '2' });
    const kubectlEntry = taken.metadata.managedFields.find((e: any) => e.manager === 'kubectl' && e.operation === 'Apply');
    assert.deepEqual(kubectlEntry.fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
    // The annotation follows what kubectl applied.
    assert.equal(JSON.parse(taken.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data.a, '9');
  });
});
