/**
 * The example stays what its sources say: config/ and the kinds module are
 * what `npm run manifests` (operant generate --max-description-length=0, as
 * the tutorial's `crd:maxDescLen=0`) writes from src/, and the webhook
 * manifests are the tutorial's own (controller-gen's, in packages/codegen's
 * fixture). That the example type-checks is the root build's job (`npm run
 * build`, which `npm test` runs first, compiles it with `tsc -p
 * examples/cronjob-controller`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crdOutputs, kindsOutputs, loadProject, rbacOutput, webhookOutput } from '@operant/codegen';

const exampleDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(exampleDir, '..', '..');

test('config/ and src/api/v1/zz_generated.kinds.ts are what npm run manifests writes (re-run it after changing src/)', () => {
  const project = loadProject(['src/**/*.ts'], exampleDir);
  const outputs = [
    ...crdOutputs(project, { outputDir: 'config/crd/bases', maxDescriptionLength: 0 }).files,
    ...rbacOutput(project, 'config/rbac'),
    ...webhookOutput(project, 'config/webhook'),
    ...kindsOutputs(project),
  ];
  assert.deepEqual(outputs.map((f) => f.path).sort(), [
    'config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml',
    'config/rbac/role.yaml',
    'config/webhook/manifests.yaml',
    'src/api/v1/zz_generated.kinds.ts',
  ]);
  for (const f of outputs) assert.equal(readFileSync(join(exampleDir, f.path), 'utf8'), f.content, `${f.path} is stale`);
  const tutorial = readFileSync(join(repoRoot, 'packages/codegen/test/fixtures/cronjob/expected/manifests.yaml'), 'utf8');
  assert.equal(readFileSync(join(exampleDir, 'config/webhook/manifests.yaml'), 'utf8'), tutorial);
});
