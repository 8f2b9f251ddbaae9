/**
 * The real kubectl against `operant server`: core/v1 ReplicationControllers,
 * PodTemplates, LimitRanges and ResourceQuotas with kube's defaults,
 * validation messages, scale subresource and kubectl's columns.
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[]): Promise<Json> => JSON.parse(await kubectlOk(server(), [...args, '-o', 'json'])) as Json;

describe('kubectl and the core/v1 ReplicationController, PodTemplate, LimitRange and ResourceQuota APIs', () => {
  kit('api-resources lists them with kube\'s short names', async () => {
    const names = tableRows(await kubectlOk(server(), ['api-resources', '--api-group='])).map((r) => r.slice(0, 2).join(' '));
    for (const r of ['limitranges limits', 'podtemplates v1', 'replicationcontrollers rc', 'resourcequotas quota']) assert.ok(names.includes(r), `${r} in ${names.join('; ')}`);
  });

  kit('a ReplicationController takes its selector and labels from its template, prints kubectl\'s columns, scales, and is validated as kube does', async () => {
    await applyYaml(
      server(),
      `apiVersion: v1
kind: ReplicationController
metadata: {name: nginx}
spec:
  template:
    metadata: {labels: {app: nginx}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
`,
    );
    const rc = await json(['get', 'rc', 'nginx']);
    assert.deepEqual(rc.spec.selector, { app: 'nginx' });
    assert.deepEqual(rc.metadata.labels, { app: 'nginx' });
    assert.equal(rc.spec.replicas, 1);
    assert.equal(rc.spec.template.spec.restartPolicy, 'Always');
    await kubectlOk(server(), ['scale', 'rc', 'nginx', '--replicas=3']);
    const wide = tableRows(await kubectlOk(server(), ['get', 'rc', '-o', 'wide']));
    assert.deepEqual(wide[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual([...wide[1]!.slice(0, 4), ...wide[1]!.slice(5)], ['nginx', '3', '0', '0', 'nginx', 'nginx:1.27', 'app=nginx']);
    const scale = JSON.parse(await kubectlOk(server(), ['get', '--raw', '/api/v1/namespaces/default/replicationcontrollers/nginx/scale'])) as Json;
    assert.equal(scale.status.selector, 'app=nginx');

    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ReplicationController\nmetadata: {name: bad}\nspec:\n  selector: {app: one}\n  template:\n    metadata: {labels: {app: two}}\n    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n',
    });
    assert.match(bad.stderr, /spec.template.metadata.labels: Invalid value: .*`selector` does not match template `labels`/);
    assert.match(bad.stderr, /spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"/);
  });

  kit('a PodTemplate prints its containers and pod labels', async () => {
    await applyYaml(server(), 'apiVersion: v1\nkind: PodTemplate\nmetadata: {name: worker}\ntemplate:\n  metadata: {labels: {role: worker}}\n  spec: {containers: [{name: w, image: busybox:1.36}]}\n');
    const rows = tableRows(await kubectlOk(server(), ['get', 'podtemplates']));
    assert.deepEqual(rows[0], ['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS']);
    assert.deepEqual(rows[1], ['worker', 'w', 'busybox:1.36', 'role=worker']);
  });

  kit('a LimitRange gets kube\'s container defaults (limit from max, request from limit or min) and its checks', async () => {
    await applyYaml(
      server(),
      'apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits}\nspec:\n  limits:\n  - type: Container\n    max: {cpu: "2", memory: 1Gi}\n    min: {cpu: 100m}\n    default: {memory: 512Mi}\n',
    );
    const item = (await json(['get', 'limits', 'limits'])).spec.limits[0];
    assert.deepEqual(item.default, { cpu: '2', memory: '512Mi' });
    assert.deepEqual(item.defaultRequest, { cpu: '2', memory: '512Mi' });
    const bad = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: LimitRange\nmetadata: {name: bad}\nspec:\n  limits:\n  - {type: Node}\n  - {type: Container, max: {cpu: 100m}, min: {cpu: "1"}}\n',
    });
    assert.match(bad.stderr, /spec.limits\[0\].type: Unsupported value: "Node": supported values: "Container", "Pod", "PersistentVolumeClaim"/);
    assert.match(bad.stderr, /spec.limits\[1\].min\[cpu\]: Invalid value: "1": min value 1 is greater than max value 100m/);
  });

  kit('kubectl create quota prints kubectl\'s REQUEST and LIMIT columns', async () => {
    await kubectlOk(server(), ['create', 'quota', 'compute', '--hard=requests.cpu=1,limits.memory=2048Mi,pods=10']);
    const rows = tableRows(await kubectlOk(server(), ['get', 'quota']));
    assert.deepEqual(rows[0], ['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    assert.deepEqual([rows[1]![0], ...rows[1]!.slice(2)], ['compute', 'pods: 0/10, requests.cpu: 0/1', 'limits.memory: 0/2Gi']);
    const bad = await kubectlFails(server(), ['create', 'quota', 'neg', '--hard=pods=-1']);
    assert.match(bad.stderr, /spec.hard\[pods\]: Invalid value: "-1": must be greater than or equal to 0/);
  });
});
