/**
 * `operant convert` and the seed article's v1beta1 CRD: the embedded server
 * refuses apiextensions.k8s.io/v1beta1 as Kubernetes 1.22+ does, and the
 * converted v1 CRD is accepted and served.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { kubectl, kubectlOk } from './harness.js';
import { kit, serverForFile } from './kubectl-support.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');

/** The seed article's Tekton ClusterTask CRD, as its 2019 release shipped it. */
const tektonClusterTasks = `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: clustertasks.tekton.dev
spec:
  group: tekton.dev
  names:
    categories:
    - all
    - tekton-pipelines
    kind: ClusterTask
    plural: clustertasks
  scope: Cluster
  subresources:
    status: {}
  version: v1alpha1
`;

const withSchema = `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  versions:
  - name: v1
    served: true
    storage: true
  scope: Namespaced
  names: { plural: crontabs, singular: crontab, kind: CronTab }
  preserveUnknownFields: false
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          properties:
            cronSpec: { type: string }
            replicas: { type: integer, maximum: 10 }
  additionalPrinterColumns:
  - name: Spec
    type: string
    JSONPath: .spec.cronSpec
---
apiVersion: v1
kind: ConfigMap
metadata: { name: untouched }
`;

function convert(yaml: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'operant-convert-'));
  const file = join(dir, 'crd.yaml');
  writeFileSync(file, yaml);
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, 'convert', '-f', file], (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }));
  });
}

describe('operant convert', () => {
  it('moves the top-level version, schema, subresources and columns into each version, JSONPath to jsonPath', async () => {
    const r = await convert(withSchema);
    assert.equal(r.code, 0, r.stderr);
    const [crd, cm] = r.stdout.split(/^---$/m).map((d) => parse(d));
    assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
    assert.deepEqual(crd.spec.versions, [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer', maximum: 10 } } } } } },
        additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
      },
    ]);
    for (const gone of ['validation', 'additionalPrinterColumns', 'preserveUnknownFields', 'version']) assert.equal(crd.spec[gone], undefined, gone);
    assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'untouched' } });
    assert.equal(r.stderr, '');
  });

  it('a CRD without a schema gets one that keeps every field, and says so', async () => {
    const r = await convert(tektonClusterTasks);
    assert.equal(r.code, 0, r.stderr);
    const crd = parse(r.stdout);
    assert.deepEqual(crd.spec.versions, [
      { name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, subresources: { status: {} } },
    ]);
    assert.match(r.stderr, /^note: clustertasks\.tekton\.dev: version v1alpha1 had no schema; it gets type: object with x-kubernetes-preserve-unknown-fields: true/m);
  });
});

describe('the seed\'s CRD on the embedded server', () => {
  const server = serverForFile();

  kit('v1beta1 is refused as 1.22+ refuses it; the converted CRD is served', async () => {
    const refused = await kubectl(server(), ['create', '-f', '-'], { input: tektonClusterTasks });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /no matches for kind "CustomResourceDefinition" in version "apiextensions\.k8s\.io\/v1beta1"/);
    const converted = await convert(tektonClusterTasks);
    await kubectlOk(server(), ['create', '-f', '-'], { input: converted.stdout });
    await kubectlOk(server(), ['wait', '--for=condition=Established', 'crd/clustertasks.tekton.dev', '--timeout=20s']);
    await kubectlOk(server(), ['create', '-f', '-'], { input: 'apiVersion: tekton.dev/v1alpha1\nkind: ClusterTask\nmetadata: { name: build }\nspec: { steps: [{ name: compile, image: golang }] }\n' });
    const out = await kubectlOk(server(), ['get', 'clustertasks']);
    assert.match(out, /^NAME\s+AGE\nbuild\s+\S+\n$/);
    const task = JSON.parse(await kubectlOk(server(), ['get', 'clustertask', 'build', '-o', 'json']));
    assert.deepEqual(task.spec, { steps: [{ name: 'compile', image: 'golang' }] });
  });
});
