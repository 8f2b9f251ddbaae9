/**
 * The config/ tree `operant init`, `create api` and `create webhook` write,
 * rendered at each step by the real kustomize (`kubectl kustomize`) and
 * applied (server dry run) to the embedded server with the real kubectl.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubectl, kubectlOk, kubectlPath, type ServerProcess } from './harness.js';
import { applyYaml, installCertManagerKinds, kit, serverForFile } from './kubectl-support.js';
import { ProjectFiles, ScaffoldError } from '../src/scaffold/project-files.js';
import { scaffoldApiConfig, scaffoldInitialConfig, scaffoldWebhookConfig, type ProjectInfo, type ResourceInfo } from '../src/scaffold/config-tree.js';
import { addResources, uncomment } from '../src/scaffold/config/edit.js';
import * as defaults from '../src/scaffold/config/default.js';

const project: ProjectInfo = { projectName: 'sidecarset', domain: 'kruise.io' };
const kind = (k: string, plural: string, namespaced: boolean, version = 'v1alpha1'): ResourceInfo => ({
  group: 'apps',
  version,
  kind: k,
  plural,
  namespaced,
  qualifiedGroup: 'apps.kruise.io',
  resource: true,
});
const sidecarSet = kind('SidecarSet', 'sidecarsets', false);
const broadcastJob = kind('BroadcastJob', 'broadcastjobs', true);
const deployment: ResourceInfo = { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, qualifiedGroup: 'apps', resource: false };

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> }; [k: string]: any };

/** Runs one scaffolding step on the project at `dir` and writes it, as the commands do. */
function step(dir: string, run: (files: ProjectFiles) => void): string[] {
  const files = new ProjectFiles(dir);
  run(files);
  return files.commit();
}

const projects: string[] = [];
after(() => {
  for (const dir of projects) rmSync(dir, { recursive: true, force: true });
});

function newProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'operant-config-'));
  projects.push(dir);
  step(dir, (f) => scaffoldInitialConfig(f, project));
  return dir;
}

/** The CRD `operant generate` would write for a kind (a minimal one). */
function writeCrd(dir: string, r: ResourceInfo): void {
  const path = join(dir, 'config/crd/bases', `${r.qualifiedGroup}_${r.plural}.yaml`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${r.plural}.${r.qualifiedGroup}
spec:
  group: ${r.qualifiedGroup}
  names:
    kind: ${r.kind}
    listKind: ${r.kind}List
    plural: ${r.plural}
    singular: ${r.kind.toLowerCase()}
  scope: ${r.namespaced ? 'Namespaced' : 'Cluster'}
  versions:
  - name: ${r.version}
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`,
  );
}

/** config/webhook/manifests.yaml as `operant generate webhook` writes it. */
function writeWebhookManifests(dir: string): void {
  writeFileSync(
    join(dir, 'config/webhook/manifests.yaml'),
    `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-apps-kruise-io-v1alpha1-sidecarset
  failurePolicy: Fail
  name: msidecarset-v1alpha1.kb.io
  rules:
  - apiGroups:
    - apps.kruise.io
    apiVersions:
    - v1alpha1
    operations:
    - CREATE
    - UPDATE
    resources:
    - sidecarsets
  sideEffects: None
`,
  );
}

/** `kubectl kustomize <dir>/<sub>`, parsed; fails the test with kustomize's error. */
function kustomize(dir: string, sub: string): Promise<Obj[]> {
  return new Promise((resolve, reject) => {
    execFile(kubectlPath, ['kustomize', join(dir, sub)], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl kustomize ${sub} failed: ${stderr}`));
      else resolve(parseAllDocuments(stdout).map((d) => d.toJS() as Obj));
    });
  });
}

function find(objs: Obj[], k: string, name: string): Obj {
  const found = objs.find((o) => o.kind === k && o.metadata.name === name);
  assert.ok(found, `no ${k} ${name} in: ${objs.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

function names(objs: Obj[], k: string): string[] {
  return objs.filter((o) => o.kind === k).map((o) => o.metadata.name).sort();
}

/** Every file under `dir`, relative, with its content. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

describe('init', () => {
  it('writes the files kubebuilder go/v4 init writes under config/', () => {
    const dir = newProject();
    assert.deepEqual([...snapshot(dir).keys()].sort(), [
      'config/default/cert_metrics_manager_patch.yaml',
      'config/default/kustomization.yaml',
      'config/default/manager_metrics_patch.yaml',
      'config/default/metrics_service.yaml',
      'config/manager/kustomization.yaml',
      'config/manager/manager.yaml',
      'config/network-policy/allow-metrics-traffic.yaml',
      'config/network-policy/kustomization.yaml',
      'config/prometheus/kustomization.yaml',
      'config/prometheus/monitor.yaml',
      'config/prometheus/monitor_tls_patch.yaml',
      'config/rbac/kustomization.yaml',
      'config/rbac/leader_election_role.yaml',
      'config/rbac/leader_election_role_binding.yaml',
      'config/rbac/metrics_auth_role.yaml',
      'config/rbac/metrics_auth_role_binding.yaml',
      'config/rbac/metrics_reader_role.yaml',
      'config/rbac/role.yaml',
      'config/rbac/role_binding.yaml',
      'config/rbac/service_account.yaml',
    ]);
    assert.match(read(dir, 'config/default/kustomization.yaml'), /^#- \.\.\/crd$/m, '../crd stays off until the first kind');
    assert.match(read(dir, 'config/rbac/role.yaml'), /npm run manifests/);
  });

  it('refuses to run twice (it would overwrite config/)', () => {
    const dir = newProject();
    assert.throws(() => step(dir, (f) => scaffoldInitialConfig(f, project)), ScaffoldError);
  });

  kit('config/default renders: namespace, name prefix, the Node manager, its ServiceAccount and roles', async () => {
    const dir = newProject();
    const objs = await kustomize(dir, 'config/default');
    find(objs, 'Namespace', 'sidecarset-system');
    for (const o of objs.filter((o) => o.kind !== 'Namespace' && !o.kind.startsWith('Cluster'))) assert.equal(o.metadata.namespace, 'sidecarset-system', `${o.kind}/${o.metadata.name}`);
    assert.deepEqual(names(objs, 'CustomResourceDefinition'), []);

    const deploy = find(objs, 'Deployment', 'sidecarset-controller-manager');
    const pod = deploy.spec.template.spec;
    const [manager] = pod.containers;
    assert.equal(manager.name, 'manager');
    assert.equal(manager.image, 'controller:latest');
    assert.deepEqual(manager.command, ['node', 'dist/main.js']);
    assert.deepEqual(manager.args, ['--metrics-bind-address=:8443', '--leader-elect', '--health-probe-bind-address=:8081']);
    assert.equal(manager.livenessProbe.httpGet.path, '/healthz');
    assert.equal(manager.readinessProbe.httpGet.path, '/readyz');
    assert.deepEqual(manager.securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    assert.equal(pod.serviceAccountName, 'sidecarset-controller-manager');
    assert.equal(pod.terminationGracePeriodSeconds, 10);
    assert.deepEqual(deploy.metadata.labels, { 'app.kubernetes.io/managed-by': 'kustomize', 'app.kubernetes.io/name': 'sidecarset', 'control-plane': 'controller-manager' });

    find(objs, 'ServiceAccount', 'sidecarset-controller-manager');
    find(objs, 'Service', 'sidecarset-controller-manager-metrics-service');
    assert.deepEqual(names(objs, 'ClusterRole'), ['sidecarset-manager-role', 'sidecarset-metrics-auth-role', 'sidecarset-metrics-reader']);
    assert.deepEqual(names(objs, 'Role'), ['sidecarset-leader-election-role']);
    assert.deepEqual(find(objs, 'ClusterRole', 'sidecarset-manager-role').rules ?? [], []);
    const binding = find(objs, 'ClusterRoleBinding', 'sidecarset-manager-rolebinding');
    assert.equal(binding.roleRef.name, 'sidecarset-manager-role');
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'sidecarset-controller-manager', namespace: 'sidecarset-system' }]);
    assert.equal(find(objs, 'RoleBinding', 'sidecarset-leader-election-rolebinding').roleRef.name, 'sidecarset-leader-election-role');
  });

  kit('the optional parts render on their own, and with every commented section of config/default turned on', async () => {
    const dir = newProject();
    assert.deepEqual((await kustomize(dir, 'config/prometheus')).map((o) => o.kind), ['ServiceMonitor']);
    assert.deepEqual((await kustomize(dir, 'config/network-policy')).map((o) => o.metadata.name), ['allow-metrics-traffic']);

    step(dir, (f) => {
      scaffoldApiConfig(f, project, sidecarSet);
      scaffoldWebhookConfig(f, project);
    });
    writeCrd(dir, sidecarSet);
    const path = join(dir, 'config/default/kustomization.yaml');
    let content = readFileSync(path, 'utf8');
    for (const block of [defaults.prometheusResource, defaults.networkPolicyResource, defaults.certMetricsPatch, ...defaults.metricsCertReplacements]) {
      content = uncomment(path, block)(content);
    }
    writeFileSync(path, content);
    const prometheus = join(dir, 'config/prometheus/kustomization.yaml');
    const tlsPatch = 'patches:\n  - path: monitor_tls_patch.yaml\n    target:\n      kind: ServiceMonitor';
    writeFileSync(prometheus, uncomment(prometheus, tlsPatch)(readFileSync(prometheus, 'utf8')));

    const objs = await kustomize(dir, 'config/default');
    const monitor = find(objs, 'ServiceMonitor', 'sidecarset-controller-manager-metrics-monitor');
    assert.equal(monitor.spec.endpoints[0].tlsConfig.serverName, 'sidecarset-controller-manager-metrics-service.sidecarset-system.svc');
    assert.deepEqual(find(objs, 'Certificate', 'sidecarset-metrics-certs').spec.dnsNames, [
      'sidecarset-controller-manager-metrics-service.sidecarset-system.svc',
      'sidecarset-controller-manager-metrics-service.sidecarset-system.svc.cluster.local',
    ]);
    assert.deepEqual(names(objs, 'NetworkPolicy'), ['sidecarset-allow-metrics-traffic', 'sidecarset-allow-webhook-traffic']);
    const manager = find(objs, 'Deployment', 'sidecarset-controller-manager').spec.template.spec.containers[0];
    assert.ok(manager.args.includes('--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs'));
  });
});

describe('create api', () => {
  kit('a namespaced and a cluster-scoped kind: CRDs, admin/editor/viewer roles and samples render', async () => {
    const dir = newProject();
    step(dir, (f) => {
      scaffoldApiConfig(f, project, broadcastJob);
      scaffoldApiConfig(f, project, sidecarSet);
    });
    writeCrd(dir, broadcastJob);
    writeCrd(dir, sidecarSet);
    assert.match(read(dir, 'config/default/kustomization.yaml'), /^- \.\.\/crd$/m);

    const objs = await kustomize(dir, 'config/default');
    assert.deepEqual(names(objs, 'CustomResourceDefinition'), ['broadcastjobs.apps.kruise.io', 'sidecarsets.apps.kruise.io']);
    assert.deepEqual(
      names(objs, 'ClusterRole').filter((n) => /-(admin|editor|viewer)-role$/.test(n)),
      ['broadcastjob', 'sidecarset'].flatMap((k) => ['admin', 'editor', 'viewer'].map((r) => `sidecarset-${k}-${r}-role`)),
    );
    const rules = (role: string) => find(objs, 'ClusterRole', `sidecarset-sidecarset-${role}-role`).rules;
    const status = { apiGroups: ['apps.kruise.io'], resources: ['sidecarsets/status'], verbs: ['get'] };
    assert.deepEqual(rules('admin'), [{ apiGroups: ['apps.kruise.io'], resources: ['sidecarsets'], verbs: ['*'] }, status]);
    assert.deepEqual(rules('editor'), [{ apiGroups: ['apps.kruise.io'], resources: ['sidecarsets'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }, status]);
    assert.deepEqual(rules('viewer'), [{ apiGroups: ['apps.kruise.io'], resources: ['sidecarsets'], verbs: ['get', 'list', 'watch'] }, status]);

    const samples = await kustomize(dir, 'config/samples');
    assert.deepEqual(
      samples.map((o) => [o.apiVersion, o.kind, o.metadata.name, o.spec]),
      [
        ['apps.kruise.io/v1alpha1', 'BroadcastJob', 'broadcastjob-sample', {}],
        ['apps.kruise.io/v1alpha1', 'SidecarSet', 'sidecarset-sample', {}],
      ],
    );
    assert.match(read(dir, 'config/samples/apps_v1alpha1_sidecarset.yaml'), /# TODO\(user\): Add fields here/);
    assert.match(read(dir, 'config/samples/kustomization.yaml'), /^## Append samples of your project ##\n/);
    assert.equal(read(dir, 'config/rbac/kustomization.yaml').match(/"Admin", "Editor" and "Viewer"/g)?.length, 1, 'the roles comment is written once');
  });

  it('a controller for a built-in kind (resource=false) adds nothing to config/', () => {
    const dir = newProject();
    assert.deepEqual(step(dir, (f) => scaffoldApiConfig(f, project, deployment)), []);
  });

  it('a new version of a kind adds only its sample; the same version twice is refused', () => {
    const dir = newProject();
    step(dir, (f) => scaffoldApiConfig(f, project, sidecarSet));
    const before = snapshot(dir);
    assert.deepEqual(step(dir, (f) => scaffoldApiConfig(f, project, kind('SidecarSet', 'sidecarsets', false, 'v1beta1'))).sort(), [
      'config/samples/apps_v1beta1_sidecarset.yaml',
      'config/samples/kustomization.yaml',
    ]);
    assert.equal(read(dir, 'config/crd/kustomization.yaml'), before.get('config/crd/kustomization.yaml'));

    const files = new ProjectFiles(dir);
    assert.throws(() => scaffoldApiConfig(files, project, sidecarSet), (e: unknown) => e instanceof ScaffoldError && /apps_v1alpha1_sidecarset\.yaml already exists/.test(e.message));
  });
});

describe('create webhook', () => {
  kit('config/default renders before and after generate writes manifests.yaml; the webhook Service is renamed in clientConfig', async () => {
    const dir = newProject();
    step(dir, (f) => {
      scaffoldApiConfig(f, project, sidecarSet);
      scaffoldWebhookConfig(f, project);
    });
    writeCrd(dir, sidecarSet);
    const placeholder = await kustomize(dir, 'config/default');
    find(placeholder, 'Service', 'sidecarset-webhook-service');

    writeWebhookManifests(dir);
    const objs = await kustomize(dir, 'config/default');
    const mwc = find(objs, 'MutatingWebhookConfiguration', 'sidecarset-mutating-webhook-configuration');
    assert.deepEqual(mwc.webhooks[0].clientConfig.service, { name: 'sidecarset-webhook-service', namespace: 'sidecarset-system', path: '/mutate-apps-kruise-io-v1alpha1-sidecarset' });
    assert.equal(mwc.metadata.annotations?.['cert-manager.io/inject-ca-from'], 'sidecarset-system/sidecarset-serving-cert');

    const service = find(objs, 'Service', 'sidecarset-webhook-service');
    assert.deepEqual(service.spec.ports, [{ port: 443, protocol: 'TCP', targetPort: 9443 }]);
    assert.deepEqual(find(objs, 'Certificate', 'sidecarset-serving-cert').spec.dnsNames, ['sidecarset-webhook-service.sidecarset-system.svc', 'sidecarset-webhook-service.sidecarset-system.svc.cluster.local']);
    assert.equal(find(objs, 'Certificate', 'sidecarset-serving-cert').spec.issuerRef.name, 'sidecarset-selfsigned-issuer');

    const pod = find(objs, 'Deployment', 'sidecarset-controller-manager').spec.template.spec;
    assert.deepEqual(pod.containers[0].args.slice(-2), ['--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs', '--webhook-port=9443']);
    assert.deepEqual(pod.containers[0].ports.map((p: { containerPort: number }) => p.containerPort), [8081, 9443]);
    assert.deepEqual(pod.volumes, [{ name: 'webhook-certs', secret: { secretName: 'webhook-server-cert' } }], 'the Secret cert-manager writes, named in certificate-webhook.yaml');
    assert.match(read(dir, 'config/network-policy/kustomization.yaml'), /^- allow-webhook-traffic\.yaml$/m);
  });

  it('a second webhook changes nothing', () => {
    const dir = newProject();
    step(dir, (f) => scaffoldWebhookConfig(f, project));
    const before = snapshot(dir);
    assert.deepEqual(step(dir, (f) => scaffoldWebhookConfig(f, project)), []);
    assert.deepEqual(snapshot(dir), before);
  });

  it('keeps a manifests.yaml that generate already wrote', () => {
    const dir = newProject();
    mkdirSync(join(dir, 'config/webhook'), { recursive: true });
    writeWebhookManifests(dir);
    const generated = read(dir, 'config/webhook/manifests.yaml');
    step(dir, (f) => scaffoldWebhookConfig(f, project));
    assert.equal(read(dir, 'config/webhook/manifests.yaml'), generated);
  });
});

describe('kubectl apply -k config/default --dry-run=server against the embedded server', () => {
  const server = serverForFile();

  kit('accepted after init and create api; after create webhook it needs cert-manager, as a cluster does', async () => {
    const dir = newProject();
    step(dir, (f) => {
      scaffoldApiConfig(f, project, broadcastJob);
      scaffoldApiConfig(f, project, sidecarSet);
    });
    writeCrd(dir, broadcastJob);
    writeCrd(dir, sidecarSet);
    // A dry run creates nothing, so the objects in sidecarset-system need the namespace to exist (a cluster answers NotFound too).
    await kubectlOk(server(), ['create', 'namespace', 'sidecarset-system']);
    const apply = () => kubectl(server(), ['apply', '-k', join(dir, 'config/default'), '--dry-run=server']);

    let r = await apply();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment\.apps\/sidecarset-controller-manager created \(server dry run\)/);
    assert.match(r.stdout, /customresourcedefinition\.apiextensions\.k8s\.io\/sidecarsets\.apps\.kruise\.io created \(server dry run\)/);

    step(dir, (f) => scaffoldWebhookConfig(f, project));
    writeWebhookManifests(dir);
    r = await apply();
    assert.notEqual(r.code, 0, 'cert-manager kinds without cert-manager installed');
    assert.match(r.stderr, /no matches for kind "Issuer" in version "cert-manager.io\/v1"/);
    assert.match(r.stderr, /no matches for kind "Certificate" in version "cert-manager.io\/v1"/);

    await installCertManagerKinds(server());
    r = await apply();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /mutatingwebhookconfiguration\.admissionregistration\.k8s\.io\/sidecarset-mutating-webhook-configuration created \(server dry run\)/);
    assert.match(r.stdout, /certificate\.cert-manager\.io\/sidecarset-serving-cert created \(server dry run\)/);
  });
});

describe('kustomization edits', () => {
  const path = 'config/x/kustomization.yaml';

  it('appends resources after the last entry, keeping comments, and not twice', () => {
    const before = '# head\nresources:\n- a.yaml\n# trailing marker\n\npatches:\n# only comments\n';
    const after = addResources(path, ['b.yaml', 'a.yaml'], 'why\nthese')(before);
    assert.equal(after, '# head\nresources:\n- a.yaml\n# why\n# these\n- b.yaml\n# trailing marker\n\npatches:\n# only comments\n');
    assert.equal(addResources(path, ['b.yaml'], 'why\nthese')(after), after);
    assert.equal(addResources(path, ['c.yaml'], 'why\nthese')(after), after.replace('- b.yaml\n', '- b.yaml\n- c.yaml\n'));
  });

  it('writes a list where there is none', () => {
    assert.equal(addResources(path, ['a.yaml'])('resources: []\n'), 'resources:\n- a.yaml\n');
    assert.equal(addResources(path, ['a.yaml'])('resources:\n'), 'resources:\n- a.yaml\n');
    assert.equal(addResources(path, ['a.yaml'])('namespace: x\n'), 'namespace: x\nresources:\n- a.yaml\n');
  });

  it('uncomments a section once, and refuses when the section is gone', () => {
    const on = uncomment(path, '- ../crd');
    assert.equal(on('resources:\n#- ../crd\n- ../rbac\n'), 'resources:\n- ../crd\n- ../rbac\n');
    assert.equal(on('resources:\n- ../crd\n'), 'resources:\n- ../crd\n');
    assert.throws(() => on('resources:\n- ../rbac\n'), ScaffoldError);
  });
});
