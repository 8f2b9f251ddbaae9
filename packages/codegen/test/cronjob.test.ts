/**
 * The Kubebuilder book's CronJob tutorial, ported to TypeScript, must give the
 * manifests controller-gen committed in the tutorial: the CRD (with the
 * embedded JobTemplateSpec) byte for byte but for the generator annotation,
 * and role.yaml and manifests.yaml byte for byte.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { crdOutputs, kindsOutputs, loadProject, rbacOutput, webhookOutput } from '../src/index.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'cronjob');
const expected = (name: string): string => readFileSync(join(fixture, 'expected', name), 'utf8');

describe('the CronJob tutorial', () => {
  const project = loadProject(['src/**/*.ts'], fixture);

  it('gives the tutorial CRD (maxDescLen=0), byte for byte but for the generator annotation', () => {
    const { files } = crdOutputs(project, { outputDir: 'config/crd/bases', maxDescriptionLength: 0 });
    assert.deepEqual(files.map((f) => f.path), ['config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml']);
    const want = expected('batch.tutorial.kubebuilder.io_cronjobs.yaml');
    const got = files[0].content;
    assert.equal(got.replace('operant.dev/generator-version: v0.1.0', 'controller-gen.kubebuilder.io/version: v0.21.0'), want);
    const parsed = parse(got);
    assert.deepEqual(parsed.metadata.annotations, { 'operant.dev/generator-version': 'v0.1.0' });
    // The embedded JobTemplateSpec is written out in full, down to the pod's containers.
    const podSpec = parsed.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.jobTemplate.properties.spec.properties.template.properties.spec;
    assert.equal(podSpec.properties.containers.items.required[0], 'name');
    assert.deepEqual(podSpec.properties.containers['x-kubernetes-list-map-keys'], ['name']);
  });

  it('keeps the Go sources\' descriptions when they are not cut', () => {
    const { files } = crdOutputs(project, { outputDir: 'out' });
    const schema = parse(files[0].content).spec.versions[0].schema.openAPIV3Schema;
    assert.equal(schema.description, 'CronJob is the Schema for the cronjobs API');
    assert.match(schema.properties.apiVersion.description, /^APIVersion defines the versioned schema of this representation of an object\./);
    assert.equal(schema.properties.spec.properties.schedule.description, 'schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.');
    const conditionType = schema.properties.status.properties.conditions.items.properties.type;
    assert.equal(conditionType.description, 'type of condition in CamelCase or in foo.example.com/CamelCase.');
  });

  it('is deterministic: the same input gives the same bytes', () => {
    const again = crdOutputs(loadProject(['src/**/*.ts'], fixture), { outputDir: 'x' }).files[0].content;
    assert.equal(crdOutputs(project, { outputDir: 'x' }).files[0].content, again);
  });

  it('gives the tutorial role.yaml from the controller\'s rbac markers', () => {
    const [role] = rbacOutput(project, 'config/rbac');
    assert.equal(role.path, 'config/rbac/role.yaml');
    assert.equal(role.content, expected('role.yaml'));
  });

  it('gives the tutorial webhook manifests.yaml', () => {
    const [manifests] = webhookOutput(project, 'config/webhook');
    assert.equal(manifests.path, 'config/webhook/manifests.yaml');
    assert.equal(manifests.content, expected('manifests.yaml'));
  });

  it('writes the typed kinds module beside the types', () => {
    const [module] = kindsOutputs(project);
    assert.match(module.path, /src\/api\/v1\/zz_generated\.kinds\.ts$/);
    assert.match(module.content, /export type CronJob = CronJobObject & KubeObject;\nexport const CronJob = defineKind<CronJob>\(\{\n  group: "batch.tutorial.kubebuilder.io",\n  version: "v1",\n  kind: "CronJob",\n  plural: "cronjobs",\n  namespaced: true,\n\}\);/);
    assert.doesNotMatch(module.content, /CronJobList/);
  });
});
