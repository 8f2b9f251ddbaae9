/**
 * The kubebuilder workflow with `operant` in place of `kubebuilder`, run as a
 * user runs it (the real CLI, in a directory outside this repository): init,
 * create api (namespaced and cluster-scoped, and a controller for a built-in
 * kind), create webhook and the seed article's alpha webhook for Pods; then the
 * project installs offline, generates, builds and passes its own tests with no
 * edits, and its config/default is accepted by the embedded server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';
import { kubectlOk } from './harness.js';
import { installCertManagerKinds, kit, serverForFile } from './kubectl-support.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, timeout = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    // Without NODE_TEST_CONTEXT: a node --test run inside this one would think it is nested and skip its files.
    const { NODE_TEST_CONTEXT: _nested, ...env } = process.env;
    execFile(command, args, { cwd, timeout, env: { ...env, npm_config_audit: 'false', npm_config_fund: 'false' } }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const operant = (args: string[], cwd: string): Promise<Run> => run(process.execPath, [cli, ...args], cwd);

async function ok(args: string[], cwd: string): Promise<Run> {
  const r = await operant(args, cwd);
  assert.equal(r.code, 0, `operant ${args.join(' ')}: ${r.stderr}`);
  return r;
}

/** Every file under dir (relative paths), and their contents, to show a refused command changed nothing. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (name === 'node_modules') continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

/** Lines a child writes (stdout and stderr), awaited one pattern at a time. */
class LineWaiter {
  private text = '';
  private waiting: { pattern: RegExp; resolve: () => void } | undefined;

  constructor(child: ChildProcess) {
    const feed = (d: Buffer): void => {
      this.text += d.toString();
      this.check();
    };
    child.stdout!.on('data', feed);
    child.stderr!.on('data', feed);
  }

  /** Resolves when a line after the last match matches `pattern`; fails after `timeoutMs` with what was seen. */
  next(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in ${timeoutMs} ms; output since the last match:\n${this.text}`)), timeoutMs);
      this.waiting = {
        pattern,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.check();
    });
  }

  private check(): void {
    if (!this.waiting) return;
    const m = this.waiting.pattern.exec(this.text);
    if (!m) return;
    this.text = this.text.slice(m.index + m[0].length);
    const { resolve } = this.waiting;
    this.waiting = undefined;
    resolve();
  }
}

const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

describe('operant init and create', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sidecarset-'));

  it('init writes a kubebuilder-shaped project', async () => {
    const r = await ok(['init', '--domain', 'kruise.io', '--project-name', 'sidecarset', '--owner', 'The Operant authors'], dir);
    for (const f of ['PROJECT', 'package.json', 'tsconfig.json', 'src/main.ts', 'Dockerfile', '.dockerignore', '.gitignore', 'README.md', 'test/support.ts', 'config/default/kustomization.yaml', 'config/manager/manager.yaml', 'config/rbac/role.yaml']) {
      assert.ok(existsSync(join(dir, f)), `${f} missing; wrote:\n${r.stdout}`);
    }
    const project = parse(read(dir, 'PROJECT'));
    assert.equal(project.domain, 'kruise.io');
    assert.equal(project.projectName, 'sidecarset');
    assert.equal(project.version, '3');
    const pkg = JSON.parse(read(dir, 'package.json'));
    assert.match(pkg.dependencies['@operant/runtime'], /^file:\/.*packages\/runtime$/);
    assert.deepEqual(Object.keys(pkg.scripts).sort(), ['build', 'build-installer', 'crds:install', 'crds:uninstall', 'deploy', 'dev', 'docker-build', 'manifests', 'start', 'test', 'undeploy']);
    assert.match(read(dir, 'src/main.ts'), /'metrics-bind-address'[\s\S]*'health-probe-bind-address'[\s\S]*'leader-elect'/);
  });

  it('init again is refused, naming the file, and changes nothing', async () => {
    const before = snapshot(dir);
    const r = await operant(['init', '--domain', 'kruise.io', '--project-name', 'sidecarset'], dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: PROJECT already exists; refusing to overwrite it/);
    assert.deepEqual(snapshot(dir), before);
  });

  it('create api with bad names is refused with kubebuilder\'s rules', async () => {
    const before = snapshot(dir);
    const cases: Array<[string[], RegExp]> = [
      [['--group', 'Apps', '--version', 'v1', '--kind', 'Foo'], /--group "Apps": a group must be a DNS-1123 subdomain/],
      [['--group', 'apps', '--version', '1', '--kind', 'Foo'], /--version "1": a version must match/],
      [['--group', 'apps', '--version', 'v1', '--kind', 'foo'], /--kind "foo": a kind must be PascalCase/],
      [['--group', 'apps', '--version', 'v1', '--kind', 'Foo', '--namespaced', 'maybe'], /--namespaced: expected true or false, not "maybe"/],
    ];
    for (const [args, message] of cases) {
      const r = await operant(['create', 'api', ...args], dir);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, message);
    }
    assert.deepEqual(snapshot(dir), before);
  });

  it('create api: a cluster-scoped kind (the seed article\'s --namespace=false spelling, with a warning)', async () => {
    const r = await ok(['create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'SidecarSet', '--namespace=false'], dir);
    assert.match(r.stderr, /warning: --namespace is not a flag of create api; reading it as --namespaced/);
    assert.match(read(dir, 'src/api/v1alpha1/sidecarset-types.ts'), /\+kubebuilder:resource:scope=Cluster/);
    assert.match(read(dir, 'src/api/v1alpha1/groupversion-info.ts'), /\+groupName=apps\.kruise\.io/);
    assert.match(read(dir, 'src/main.ts'), /setupSidecarSetController,/);
    const crd = parse(read(dir, 'config/crd/bases/apps.kruise.io_sidecarsets.yaml'));
    assert.equal(crd.spec.scope, 'Cluster');
    assert.match(read(dir, 'src/api/v1alpha1/zz_generated.kinds.ts'), /namespaced: false/);
    const role = parseAllDocuments(read(dir, 'config/rbac/role.yaml')).map((d) => d.toJS());
    assert.ok(role[0].rules.some((rule: { resources?: string[] }) => rule.resources?.includes('sidecarsets')));
    const project = parse(read(dir, 'PROJECT'));
    assert.deepEqual(project.resources[0], {
      api: { crdVersion: 'v1', namespaced: false },
      controller: true,
      domain: 'kruise.io',
      group: 'apps',
      kind: 'SidecarSet',
      path: 'kruise.io/sidecarset/api/v1alpha1',
      version: 'v1alpha1',
    });
  });

  it('create api: a namespaced kind in the same version, and the same kind again is refused', async () => {
    await ok(['create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'Widget'], dir);
    assert.equal(parse(read(dir, 'config/crd/bases/apps.kruise.io_widgets.yaml')).spec.scope, 'Namespaced');
    const before = snapshot(dir);
    const r = await operant(['create', 'api', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'Widget'], dir);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /the API apps\/v1alpha1, Kind=Widget already exists in PROJECT/);
    assert.deepEqual(snapshot(dir), before);
  });

  it('create api --resource=false: a controller for a built-in kind', async () => {
    await ok(['create', 'api', '--group', 'core', '--version', 'v1', '--kind', 'Pod', '--resource=false'], dir);
    assert.match(read(dir, 'src/controllers/pod-controller.ts'), /import \{ Pod \} from '@operant\/runtime';/);
    assert.match(read(dir, 'src/controllers/pod-controller.ts'), /\+kubebuilder:rbac:groups=core,resources=pods,/);
    assert.equal(existsSync(join(dir, 'src/api/v1')), false);
  });

  it('create webhook --defaulting --programmatic-validation, and the seed\'s alpha webhook for Pods', async () => {
    await ok(['create', 'webhook', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'SidecarSet', '--defaulting', '--programmatic-validation'], dir);
    await ok(['alpha', 'webhook', '--group', 'core', '--version', 'v1', '--kind', 'Pod', '--type=mutating', '--operations=create'], dir);
    const pod = read(dir, 'src/webhooks/v1/pod-webhook.ts');
    assert.match(pod, /\+kubebuilder:webhook:path=\/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=mpod-v1\.kb\.io,admissionReviewVersions=v1/);
    assert.match(pod, /admissionHandler\(async \(req, ctx\) =>/);
    const main = read(dir, 'src/main.ts');
    for (const setup of ['setupSidecarSetDefaultingWebhook', 'setupSidecarSetValidatingWebhook', 'setupPodMutatingWebhook']) assert.match(main, new RegExp(`${setup},`));
    // One import line per module, however many webhooks it holds.
    assert.match(main, /^import \{ setupSidecarSetDefaultingWebhook, setupSidecarSetValidatingWebhook \} from '\.\/webhooks\/v1alpha1\/sidecarset-webhook\.js';$/m);
    const manifests = parseAllDocuments(read(dir, 'config/webhook/manifests.yaml')).map((d) => d.toJS());
    const paths = manifests.flatMap((m) => m.webhooks.map((w: { clientConfig: { service: { path: string } } }) => `${m.kind} ${w.clientConfig.service.path}`));
    assert.deepEqual(paths, [
      'MutatingWebhookConfiguration /mutate--v1-pod',
      'MutatingWebhookConfiguration /mutate-apps-kruise-io-v1alpha1-sidecarset',
      'ValidatingWebhookConfiguration /validate-apps-kruise-io-v1alpha1-sidecarset',
    ]);
    const again = await operant(['create', 'webhook', '--group', 'apps', '--version', 'v1alpha1', '--kind', 'SidecarSet', '--defaulting'], dir);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /a defaulting webhook for apps\/v1alpha1, Kind=SidecarSet already exists/);
    const missing = await operant(['create', 'webhook', '--group', 'webapp', '--version', 'v1', '--kind', 'Nope', '--defaulting'], dir);
    assert.match(missing.stderr, /the API webapp\/v1, Kind=Nope does not exist: create it first with operant create api/);
  });

  it('the project installs (the Operant packages from this checkout), then npm run manifests, build and test pass with no edits', { timeout: 300_000 }, async () => {
    const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir, 240_000);
    assert.equal(install.code, 0, install.stderr);
    for (const script of ['manifests', 'build', 'test']) {
      const r = await run('npm', ['run', script], dir, 240_000);
      assert.equal(r.code, 0, `npm run ${script}:\n${r.stdout}\n${r.stderr}`);
      if (script === 'test') assert.match(r.stdout, /^# pass [1-9]\d*\n# fail 0$/m, r.stdout);
    }
    assert.ok(existsSync(join(dir, 'dist', 'main.js')));
    // The scaffolded tests type-check too, as an editor checks them (npm run build compiles src/ only, and tsx does not check).
    const tsconfig = join(dir, 'tsconfig.typecheck.json');
    writeFileSync(tsconfig, JSON.stringify({ extends: './tsconfig.json', compilerOptions: { rootDir: '.', noEmit: true }, include: ['src', 'test'] }));
    try {
      const tsc = await run(process.execPath, [join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig], dir, 120_000);
      assert.equal(tsc.code, 0, `tsc over src and test:\n${tsc.stdout}\n${tsc.stderr}`);
    } finally {
      rmSync(tsconfig, { force: true });
    }
  });

  describe('on the embedded server', () => {
    const server = serverForFile();

    kit('npm run dev: installs the CRD and webhooks, reconciles a sample, restarts on a change, and removes its webhooks at the end', async () => {
      // Its own process group, which Ctrl-C would signal as a whole: npm does not pass a lone SIGINT on.
      const child = spawn('npm', ['run', 'dev', '--', '--kubeconfig', server().kubeconfig], { cwd: dir, detached: true, env: { ...process.env, OPERANT_LOG_LEVEL: 'info' } });
      const output = new LineWaiter(child);
      try {
        await output.next(/operant dev: manager started/);
        await output.next(/"msg":"Starting workers"/);
        await kubectlOk(server(), ['apply', '-k', join(dir, 'config', 'samples')]);
        await output.next(/"msg":"reconciled SidecarSet"/);
        // Both SidecarSet webhooks and the Pod webhook fail closed: these writes pass only through the running manager.
        await kubectlOk(server(), ['run', 'web', '--image=nginx', '-n', 'default']);
        const hooks = await kubectlOk(server(), ['get', 'mutatingwebhookconfigurations', '-o', 'name']);
        assert.match(hooks, /mutating-webhook-configuration/);
        appendFileSync(join(dir, 'src', 'controllers', 'sidecarset-controller.ts'), '\n// an edit\n');
        await output.next(/operant dev: regenerated and restarted in \d+ ms/);
        await output.next(/"msg":"reconciled SidecarSet"/);
      } finally {
        const exited = once(child, 'exit');
        process.kill(-child.pid!, 'SIGINT');
        await exited;
      }
      assert.equal(await kubectlOk(server(), ['get', 'mutatingwebhookconfigurations,validatingwebhookconfigurations', '-o', 'name']), '');
    }, { timeout: 60_000 });

    kit('kubectl apply -k config/default --dry-run=server is accepted', async () => {
      // What a cluster has before a deploy: the namespace (a dry run creates nothing) and cert-manager's kinds.
      await kubectlOk(server(), ['create', 'namespace', 'sidecarset-system']);
      await installCertManagerKinds(server());
      const out = await kubectlOk(server(), ['apply', '-k', join(dir, 'config', 'default'), '--dry-run=server']);
      assert.match(out, /customresourcedefinition\.apiextensions\.k8s\.io\/sidecarsets\.apps\.kruise\.io (created|configured) \(server dry run\)/);
      assert.match(out, /deployment\.apps\/sidecarset-controller-manager created \(server dry run\)/);
    });
  });
});
