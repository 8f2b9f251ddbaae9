/**
 * `operant generate`, run as users run it (the real CLI), and its CRDs
 * applied with the real kubectl to the embedded server: accepted as
 * structural, explained with their descriptions, and enforcing their
 * validations with kube's messages.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectl, kubectlOk } from './harness.js';
import { kit, serverForFile } from './kubectl-support.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'bin', 'operant.js');
const cronjobFixture = join(here, '..', '..', 'codegen', 'test', 'fixtures', 'cronjob');

function operant(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function copyOfCronJobProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'operant-generate-'));
  cpSync(join(cronjobFixture, 'src'), join(dir, 'src'), { recursive: true });
  return dir;
}

describe('operant generate', () => {
  it('with no subcommand writes the CRD, role, webhooks and kinds module in the project layout', async () => {
    const dir = copyOfCronJobProject();
    const r = await operant(['generate'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [
      'wrote config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml',
      'wrote config/rbac/role.yaml',
      'wrote config/webhook/manifests.yaml',
      'wrote src/api/v1/zz_generated.kinds.ts',
    ]);
    assert.equal(readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8'), readFileSync(join(cronjobFixture, 'expected/role.yaml'), 'utf8'));
  });

  it('crd is deterministic and honours --max-description-length', async () => {
    const dir = copyOfCronJobProject();
    const run = async (out: string): Promise<string> => {
      const r = await operant(['generate', 'crd', '--paths', 'src/**/*.ts', '--output-dir', out, '--max-description-length', '0'], dir);
      assert.equal(r.code, 0, r.stderr);
      return readFileSync(join(dir, out, 'batch.tutorial.kubebuilder.io_cronjobs.yaml'), 'utf8');
    };
    const first = await run('a');
    assert.equal(await run('b'), first);
    const expected = readFileSync(join(cronjobFixture, 'expected/batch.tutorial.kubebuilder.io_cronjobs.yaml'), 'utf8');
    assert.equal(first.replace('operant.dev/generator-version: v0.1.0', 'controller-gen.kubebuilder.io/version: v0.21.0'), expected);
  });

  it('an error names file:line:col, exits 1, and writes nothing', async () => {
    const dir = copyOfCronJobProject();
    writeFileSync(join(dir, 'src/api/v1/bad.ts'), "// +kubebuilder:object:root=true\nexport interface Bad {\n  // +kubebuilder:validation:Minimun=1\n  spec?: number;\n}\n");
    const r = await operant(['generate'], dir);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim(), 'error: src/api/v1/bad.ts:3:6: unknown marker +kubebuilder:validation:Minimun');
    assert.equal(existsSync(join(dir, 'config')), false);
    assert.deepEqual(readdirSync(join(dir, 'src/api/v1')).sort(), ['bad.ts', 'cronjob-types.ts', 'groupversion-info.ts']);
  });

  it('a glob that matches nothing is an error', async () => {
    const r = await operant(['generate', 'rbac', '--paths', 'nowhere/**/*.ts'], mkdtempSync(join(tmpdir(), 'operant-generate-')));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: --paths nowhere\/\*\*\/\*\.ts: no TypeScript files matched/);
  });
});

describe('generated CRDs on the embedded server, with kubectl', () => {
  const server = serverForFile();
  let crdFile = '';

  kit('the CronJob CRD (with every description) is accepted, structural and Established', async () => {
    const dir = copyOfCronJobProject();
    const r = await operant(['generate', 'crd', '--paths', 'src', '--output-dir', 'crds'], dir);
    assert.equal(r.code, 0, r.stderr);
    crdFile = join(dir, 'crds', 'batch.tutorial.kubebuilder.io_cronjobs.yaml');
    // create, not apply: a CRD this large does not fit in the last-applied annotation.
    await kubectlOk(server(), ['create', '-f', crdFile]);
    await kubectlOk(server(), ['wait', '--for=condition=Established', 'crd/cronjobs.batch.tutorial.kubebuilder.io', '--timeout=20s']);
    const conditions = JSON.parse(await kubectlOk(server(), ['get', 'crd', 'cronjobs.batch.tutorial.kubebuilder.io', '-o', 'jsonpath={.status.conditions}'])) as Array<{ type: string; status: string }>;
    assert.equal(conditions.find((c) => c.type === 'NonStructuralSchema'), undefined);
  });

  kit('kubectl explain shows the descriptions', async () => {
    const out = await kubectlOk(server(), ['explain', 'cronjobs.spec.schedule']);
    assert.match(out, /schedule in Cron format, see https:\/\/en\.wikipedia\.org\/wiki\/Cron\./);
    const job = await kubectlOk(server(), ['explain', 'cronjobs.spec.jobTemplate.spec.backoffLimit']);
    assert.match(job, /Specifies the number of retries before marking this job failed\./);
  });

  kit('a CronJob breaking each validation is refused with kube\'s messages', async () => {
    const bad = `apiVersion: batch.tutorial.kubebuilder.io/v1
kind: CronJob
metadata: { name: bad, namespace: default }
spec:
  schedule: "*/1 * * * *"
  startingDeadlineSeconds: -1
  concurrencyPolicy: Sometimes
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{ name: c, image: busybox }]
          restartPolicy: OnFailure
`;
    const r = await kubectl(server(), ['create', '-f', '-'], { input: bad });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.startingDeadlineSeconds: Invalid value: -1: spec\.startingDeadlineSeconds in body should be greater than or equal to 0/);
    assert.match(r.stderr, /spec\.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"/);
    const good = bad.replace('startingDeadlineSeconds: -1', 'startingDeadlineSeconds: 10').replace('Sometimes', 'Forbid');
    await kubectlOk(server(), ['create', '-f', '-'], { input: good });
    // The default from +kubebuilder:default:=Allow is applied when the field is left out.
    await kubectlOk(server(), ['create', '-f', '-'], { input: good.replace('name: bad', 'name: defaulted').replace('  concurrencyPolicy: Forbid\n', '') });
    assert.equal(await kubectlOk(server(), ['get', 'cronjob.batch.tutorial.kubebuilder.io', 'defaulted', '-n', 'default', '-o', 'jsonpath={.spec.concurrencyPolicy}']), 'Allow');
  });

  kit('a kind using many markers: each validation refuses a bad object with kube\'s message, CEL rules included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'operant-generate-'));
    cpSync(join(cronjobFixture, 'src', 'api', 'v1', 'groupversion-info.ts'), join(dir, 'src', 'api', 'v1', 'groupversion-info.ts'));
    writeFileSync(
      join(dir, 'src', 'api', 'v1', 'gadget-types.ts'),
      `import type { int32, ObjectMeta } from '@operant/runtime';
export interface GadgetSpec {
  // +kubebuilder:validation:MaxLength=5
  // +kubebuilder:validation:Pattern=\`^[a-z]+$\`
  name: string;
  // +kubebuilder:validation:Minimum=1
  // +kubebuilder:validation:Maximum=10
  size?: int32;
  mode?: 'fast' | 'slow';
  // +kubebuilder:validation:MaxItems=2
  // +listType=set
  tags?: string[];
  // +kubebuilder:validation:XValidation:rule="self >= oldSelf",message="generation may not go back"
  generation?: int32;
}
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=gd,scope=Namespaced
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=".spec.size"
export interface Gadget { apiVersion?: string; kind?: string; metadata?: ObjectMeta; spec?: GadgetSpec }
`,
    );
    const r = await operant(['generate', 'crd', '--paths', 'src', '--output-dir', 'crds'], dir);
    assert.equal(r.code, 0, r.stderr);
    await kubectlOk(server(), ['apply', '-f', join(dir, 'crds', 'batch.tutorial.kubebuilder.io_gadgets.yaml')]);
    await kubectlOk(server(), ['wait', '--for=condition=Established', 'crd/gadgets.batch.tutorial.kubebuilder.io', '--timeout=20s']);
    const gadget = (spec: string, name = 'g'): string =>
      `apiVersion: batch.tutorial.kubebuilder.io/v1\nkind: Gadget\nmetadata: { name: ${name}, namespace: default }\nspec: ${spec}\n`;
    const refused = async (spec: string): Promise<string> => {
      const res = await kubectl(server(), ['create', '-f', '-'], { input: gadget(spec) });
      assert.notEqual(res.code, 0, `accepted: ${spec}`);
      return res.stderr;
    };
    assert.match(await refused('{ name: toolong }'), /spec\.name: Too long: may not be (more|longer) than 5/);
    assert.match(await refused('{ name: "ABC" }'), /spec\.name in body should match '\^\[a-z\]\+\$'/);
    assert.match(await refused('{ name: ab, size: 0 }'), /spec\.size: Invalid value: 0: spec\.size in body should be greater than or equal to 1/);
    assert.match(await refused('{ name: ab, size: 11 }'), /spec\.size: Invalid value: 11: spec\.size in body should be less than or equal to 10/);
    assert.match(await refused('{ name: ab, mode: medium }'), /spec\.mode: Unsupported value: "medium": supported values: "fast", "slow"/);
    assert.match(await refused('{ name: ab, tags: [a, b, c] }'), /spec\.tags: Too many: 3: must have at most 2 items/);
    assert.match(await refused('{ name: ab, tags: [a, a] }'), /spec\.tags\[1\]: Duplicate value: "a"/);
    assert.match(await refused('{ size: 2 }'), /spec\.name: Required value/);
    await kubectlOk(server(), ['create', '-f', '-'], { input: gadget('{ name: ok, generation: 5 }') });
    const back = await kubectl(server(), ['patch', 'gadget', 'g', '-n', 'default', '--type=merge', '-p', '{"spec":{"generation":4}}']);
    assert.notEqual(back.code, 0);
    assert.match(back.stderr, /spec\.generation: Invalid value: "integer": generation may not go back/);
    // The short name and the printer column: with columns declared, kube shows only those after NAME.
    await kubectlOk(server(), ['patch', 'gadget', 'g', '-n', 'default', '--type=merge', '-p', '{"spec":{"size":3}}']);
    const table = await kubectlOk(server(), ['get', 'gd', '-n', 'default']);
    assert.match(table, /^NAME\s+SIZE\ng\s+3\n$/);
  });
});

