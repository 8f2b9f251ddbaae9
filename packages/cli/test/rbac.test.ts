/**
 * Authentication and RBAC through `operant server` (started with a data dir, as a user
 * starts it), with the real kubectl and @kubernetes/client-node: ServiceAccount tokens from
 * `kubectl create token`, a narrow Role that allows exactly what it says, kube's 403 and
 * 401 answers word for word, `kubectl auth can-i` and `auth whoami`, impersonation,
 * ClusterRole aggregation, escalation prevention, and client certificates signed by the
 * server's CA.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { generateCertificateAuthority, issueClientCertificate, type CertificateAndKey } from '../../apiserver/src/tls/certificates.js';
import { hasKubectl, kubectl, kubectlOk, startServer, type KubectlResult, type ServerProcess } from './harness.js';
import { kit } from './kubectl-support.js';

let server: ServerProcess | undefined;
let dir = '';
const dataDir = (): string => join(dir, 'data');
const admin = (): ServerProcess => {
  if (!server) throw new Error('server not started');
  return server;
};

/** The admin's kubeconfig (JSON, as the server writes it). */
interface Kubeconfig {
  clusters: Array<{ name: string; cluster: Record<string, string> }>;
  users: Array<{ name: string; user: Record<string, string> }>;
  contexts: Array<{ name: string; context: Record<string, string> }>;
  [k: string]: unknown;
}

/** A kubeconfig like the admin's whose user is `user` (a token, a client certificate, or nothing). */
function kubeconfigFor(name: string, user: Record<string, string>): { kubeconfig: string; text: string } {
  const config = JSON.parse(readFileSync(admin().kubeconfig, 'utf8')) as Kubeconfig;
  config.users = [{ name: config.users[0]!.name, user }];
  const text = JSON.stringify(config, null, 2);
  const kubeconfig = join(dir, `kubeconfig-${name}`);
  writeFileSync(kubeconfig, text);
  return { kubeconfig, text };
}

function clientNode(text: string): { core: CoreV1Api; rbac: RbacAuthorizationV1Api } {
  const kc = new KubeConfig();
  kc.loadFromString(text);
  return { core: kc.makeApiClient(CoreV1Api), rbac: kc.makeApiClient(RbacAuthorizationV1Api) };
}

/** The Status a client-node call failed with. */
async function statusOf(call: Promise<unknown>): Promise<{ code: number; message: string; reason: string; details?: Record<string, unknown> }> {
  try {
    await call;
  } catch (e) {
    assert.ok(e instanceof ApiException, `expected an ApiException, got ${String(e)}`);
    const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as { code: number; message: string; reason: string; details?: Record<string, unknown> };
    assert.equal(body.code, e.code);
    return body;
  }
  throw new Error('the call succeeded but was expected to fail');
}

const apply = (yaml: string): Promise<string> => kubectlOk(admin(), ['apply', '-f', '-'], { input: yaml });

async function token(namespace: string, sa: string): Promise<string> {
  return (await kubectlOk(admin(), ['-n', namespace, 'create', 'token', sa])).trim();
}

/** kubectl that must fail; its stderr. */
async function fails(who: { kubeconfig: string }, args: string[], input?: string): Promise<string> {
  const r: KubectlResult = await kubectl(who, args, input === undefined ? {} : { input });
  assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} succeeded: ${r.stdout}`);
  return r.stderr;
}

/**
 * kubectl's last line on a 401: kube's `Unauthorized`, or client-go's own words when the 401
 * came during discovery (before kubectl had the API's resources cached).
 */
function assertUnauthorized(stderr: string): void {
  const last = stderr.trim().split('\n').pop() ?? '';
  assert.match(last, /^error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)$/, stderr);
}

const op = 'system:serviceaccount:team:op';
const opGroups = ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'];

/** kube's forbidden text for `user` on a resource in a namespace (or at the cluster scope). */
function cannot(user: string, verb: string, resource: string, group: string, namespace?: string): string {
  const where = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
  return `User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" ${where}`;
}

/** The text of kube's escalation error: the missing rules, one per line. */
function escalation(user: string, groups: string[], missing: string[]): string {
  return `user "${user}" (groups=[${groups.map((g) => `"${g}"`).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`;
}

let opToken = '';
let opConfig: { kubeconfig: string; text: string };
let viewerConfig: { kubeconfig: string; text: string };
let rolerConfig: { kubeconfig: string; text: string };

before(async () => {
  if (!hasKubectl) return;
  dir = mkdtempSync(join(tmpdir(), 'operant-rbac-'));
  server = await startServer({ dir, dataDir: join(dir, 'data') });
  await apply(`
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: op, namespace: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: viewer, namespace: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: roler, namespace: team}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: team}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: other}
spec: {containers: [{name: app, image: nginx}]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: pod-reader, namespace: team}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: op-reads-pods, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: pod-reader}
subjects:
- {kind: ServiceAccount, name: op, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: viewer-views, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {kind: ServiceAccount, name: viewer, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: role-writer, namespace: team}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list]}
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles, rolebindings], verbs: [get, list, create, update, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: roler-writes-roles, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-writer}
subjects:
- {kind: ServiceAccount, name: roler, namespace: team}
`);
  opToken = await token('team', 'op');
  opConfig = kubeconfigFor('op', { token: opToken });
  viewerConfig = kubeconfigFor('viewer', { token: await token('team', 'viewer') });
  rolerConfig = kubeconfigFor('roler', { token: await token('team', 'roler') });
});

after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a ServiceAccount bound to a narrow Role', () => {
  kit('through kubectl --token: get and list pods in its namespace, nothing else, with kube\'s 403 text', async () => {
    const withToken = (args: string[]): string[] => ['--token', opToken, ...args];
    assert.match(await kubectlOk(admin(), withToken(['-n', 'team', 'get', 'pods'])), /^web\s/m);
    assert.equal((await kubectlOk(admin(), withToken(['-n', 'team', 'get', 'pod', 'web', '-o', 'name']))).trim(), 'pod/web');

    const denied: Array<[string[], string]> = [
      [['-n', 'team', 'delete', 'pod', 'web'], `pods "web" is forbidden: ${cannot(op, 'delete', 'pods', '', 'team')}`],
      [['-n', 'team', 'label', 'pod', 'web', 'x=y'], `pods "web" is forbidden: ${cannot(op, 'patch', 'pods', '', 'team')}`],
      [['-n', 'team', 'create', 'configmap', 'c', '--from-literal=a=b'], `configmaps is forbidden: ${cannot(op, 'create', 'configmaps', '', 'team')}`],
      [['-n', 'team', 'get', 'configmaps'], `configmaps is forbidden: ${cannot(op, 'list', 'configmaps', '', 'team')}`],
      [['-n', 'team', 'get', 'deployments'], `deployments.apps is forbidden: ${cannot(op, 'list', 'deployments', 'apps', 'team')}`],
      [['-n', 'other', 'get', 'pods'], `pods is forbidden: ${cannot(op, 'list', 'pods', '', 'other')}`],
      [['-n', 'other', 'get', 'pod', 'web'], `pods "web" is forbidden: ${cannot(op, 'get', 'pods', '', 'other')}`],
      [['get', 'namespaces'], `namespaces is forbidden: ${cannot(op, 'list', 'namespaces', '', undefined)}`],
      [['get', 'pods', '-A'], `pods is forbidden: ${cannot(op, 'list', 'pods', '', undefined)}`],
      [['get', '--raw', '/api/v1/namespaces/team/pods/web/status'], `pods "web" is forbidden: ${cannot(op, 'get', 'pods/status', '', 'team')}`],
      [['get', '--raw', '/api/v1/namespaces/team/pods?watch=1'], `pods is forbidden: ${cannot(op, 'watch', 'pods', '', 'team')}`],
      [['get', '--raw', '/metrics'], `forbidden: User "${op}" cannot get path "/metrics"`],
    ];
    for (const [args, text] of denied) {
      const stderr = await fails(admin(), withToken(args));
      assert.ok(stderr.includes(text), `kubectl ${args.join(' ')}:\n${stderr}\nexpected: ${text}`);
      assert.match(stderr, /Forbidden|forbidden/);
    }
    // The object was left alone.
    assert.equal((await kubectlOk(admin(), ['-n', 'team', 'get', 'pod', 'web', '-o', 'jsonpath={.metadata.labels.x}'])).trim(), '');
  });

  kit('through a kubeconfig with the token: the same answers', async () => {
    assert.match(await kubectlOk(opConfig, ['-n', 'team', 'get', 'pods']), /^web\s/m);
    const stderr = await fails(opConfig, ['-n', 'team', 'delete', 'pod', 'web']);
    assert.equal(stderr.trim(), `Error from server (Forbidden): pods "web" is forbidden: ${cannot(op, 'delete', 'pods', '', 'team')}`);
    const list = await fails(opConfig, ['get', 'secrets', '-n', 'team']);
    assert.equal(list.trim(), `Error from server (Forbidden): secrets is forbidden: ${cannot(op, 'list', 'secrets', '', 'team')}`);
  });

  kit('through @kubernetes/client-node: the same answers, as Status objects', async () => {
    const { core, rbac } = clientNode(opConfig.text);
    const pods = await core.listNamespacedPod({ namespace: 'team' });
    assert.deepEqual(pods.items.map((p) => p.metadata?.name), ['web']);
    assert.equal((await core.readNamespacedPod({ namespace: 'team', name: 'web' })).metadata?.namespace, 'team');

    const other = await statusOf(core.listNamespacedPod({ namespace: 'other' }));
    assert.equal(other.code, 403);
    assert.equal(other.reason, 'Forbidden');
    assert.equal(other.message, `pods is forbidden: ${cannot(op, 'list', 'pods', '', 'other')}`);
    assert.deepEqual(other.details, { kind: 'pods' });

    const del = await statusOf(core.deleteNamespacedPod({ namespace: 'team', name: 'web' }));
    assert.equal(del.message, `pods "web" is forbidden: ${cannot(op, 'delete', 'pods', '', 'team')}`);
    assert.deepEqual(del.details, { name: 'web', kind: 'pods' });

    const create = await statusOf(core.createNamespacedConfigMap({ namespace: 'team', body: { metadata: { name: 'c' }, data: { a: 'b' } } }));
    assert.equal(create.message, `configmaps is forbidden: ${cannot(op, 'create', 'configmaps', '', 'team')}`);

    const patch = await statusOf(core.patchNamespacedPod({ namespace: 'team', name: 'web', body: { metadata: { labels: { x: 'y' } } } }));
    assert.equal(patch.message, `pods "web" is forbidden: ${cannot(op, 'patch', 'pods', '', 'team')}`);

    const namespaces = await statusOf(core.listNamespace());
    assert.equal(namespaces.message, `namespaces is forbidden: ${cannot(op, 'list', 'namespaces', '', undefined)}`);

    const roles = await statusOf(rbac.listNamespacedRole({ namespace: 'team' }));
    assert.equal(roles.message, `roles.rbac.authorization.k8s.io is forbidden: ${cannot(op, 'list', 'roles', 'rbac.authorization.k8s.io', 'team')}`);
    assert.deepEqual(roles.details, { group: 'rbac.authorization.k8s.io', kind: 'roles' });
  });
});

describe('kubectl auth', () => {
  kit('can-i answers yes and no from the same rules, and --list shows them', async () => {
    const canI = async (who: { kubeconfig: string }, args: string[]): Promise<{ code: number; answer: string }> => {
      const r = await kubectl(who, ['auth', 'can-i', ...args]);
      return { code: r.code, answer: r.stdout.trim() };
    };
    assert.deepEqual(await canI(opConfig, ['list', 'pods', '-n', 'team']), { code: 0, answer: 'yes' });
    assert.deepEqual(await canI(opConfig, ['get', 'pods/web', '-n', 'team']), { code: 0, answer: 'yes' });
    assert.deepEqual(await canI(opConfig, ['delete', 'pods', '-n', 'team']), { code: 1, answer: 'no' });
    assert.deepEqual(await canI(opConfig, ['watch', 'pods', '-n', 'team']), { code: 1, answer: 'no' });
    assert.deepEqual(await canI(opConfig, ['list', 'pods', '-n', 'other']), { code: 1, answer: 'no' });
    assert.deepEqual(await canI(opConfig, ['list', 'pods', '--all-namespaces']), { code: 1, answer: 'no' });
    assert.deepEqual(await canI(opConfig, ['get', 'pods', '--subresource=status', '-n', 'team']), { code: 1, answer: 'no' });
    assert.deepEqual(await canI(opConfig, ['list', 'namespaces']), { code: 1, answer: 'no' });
    assert.deepEqual(await canI(opConfig, ['get', '/api']), { code: 0, answer: 'yes' });
    assert.deepEqual(await canI(opConfig, ['get', '/metrics']), { code: 1, answer: 'no' });

    assert.deepEqual(await canI(admin(), ['*', '*']), { code: 0, answer: 'yes' });
    assert.deepEqual(await canI(admin(), ['list', 'pods', '-n', 'team', `--as=${op}`]), { code: 0, answer: 'yes' });
    assert.deepEqual(await canI(admin(), ['delete', 'pods', '-n', 'team', `--as=${op}`]), { code: 1, answer: 'no' });

    const list = await kubectlOk(opConfig, ['auth', 'can-i', '--list', '-n', 'team']);
    const rows = list.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(rows[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    assert.ok(rows.some((r) => r.join('|') === 'pods|[]|[]|[get list]'), list);
    assert.ok(rows.some((r) => r.join('|') === 'selfsubjectaccessreviews.authorization.k8s.io|[]|[]|[create]'), list);
    assert.ok(!rows.some((r) => r[0] === 'configmaps' || r[0] === 'secrets'), list);
    const elsewhere = await kubectlOk(opConfig, ['auth', 'can-i', '--list', '-n', 'other']);
    assert.ok(!/^pods\s/m.test(elsewhere), elsewhere);
  });

  kit('whoami for the admin, a ServiceAccount, and an impersonated user', async () => {
    const whoami = async (who: { kubeconfig: string }, extra: string[] = []): Promise<{ username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }> =>
      JSON.parse(await kubectlOk(who, ['auth', 'whoami', '-o', 'json', ...extra])).status.userInfo;

    assert.deepEqual(await whoami(admin()), { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    const table = await kubectlOk(admin(), ['auth', 'whoami']);
    assert.match(table, /^Username\s+kubernetes-admin$/m);
    assert.match(table, /^Groups\s+\[system:masters system:authenticated\]$/m);

    const sa = await whoami(opConfig);
    const uid = (await kubectlOk(admin(), ['-n', 'team', 'get', 'sa', 'op', '-o', 'jsonpath={.metadata.uid}'])).trim();
    assert.equal(sa.username, op);
    assert.equal(sa.uid, uid);
    assert.deepEqual(sa.groups, opGroups);
    assert.match(sa.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^JTI=[0-9a-f-]{36}$/);

    assert.deepEqual(await whoami(admin(), ['--as=jane', '--as-group=devs']), { username: 'jane', groups: ['devs', 'system:authenticated'] });
    const jane = await kubectlOk(admin(), ['auth', 'whoami', '--as=jane', '--as-group=devs']);
    assert.match(jane, /^Username\s+jane$/m);
    assert.match(jane, /^Groups\s+\[devs system:authenticated\]$/m);
  });

  kit('impersonation is the admin\'s: a ServiceAccount without the impersonate verb is refused', async () => {
    const stderr = await fails(opConfig, ['--as=jane', '-n', 'team', 'get', 'pods']);
    assert.equal(stderr.trim(), `Error from server (Forbidden): users "jane" is forbidden: ${cannot(op, 'impersonate', 'users', '', undefined)}`);
    const groups = await fails(opConfig, ['--as=jane', '--as-group=devs', '-n', 'team', 'get', 'pods']);
    assert.equal(groups.trim(), `Error from server (Forbidden): users "jane" is forbidden: ${cannot(op, 'impersonate', 'users', '', undefined)}`);
    // kubectl auth whoami words any 403 its own way.
    const whoami = await fails(opConfig, ['--as=jane', 'auth', 'whoami']);
    assert.equal(whoami.trim(), 'error: the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it');
    // The impersonated user gets exactly its own rights: jane has none.
    const asJane = await fails(admin(), ['--as=jane', '-n', 'team', 'get', 'pods']);
    assert.equal(asJane.trim(), `Error from server (Forbidden): pods is forbidden: ${cannot('jane', 'list', 'pods', '', 'team')}`);
  });
});

describe('ClusterRoles', () => {
  const viewer = 'system:serviceaccount:team:viewer';

  kit('a RoleBinding to the view ClusterRole reads most things in its namespace only, and no secrets', async () => {
    assert.match(await kubectlOk(viewerConfig, ['-n', 'team', 'get', 'pods']), /^web\s/m);
    await kubectlOk(viewerConfig, ['-n', 'team', 'get', 'deployments,configmaps,services,serviceaccounts']);
    const secrets = await fails(viewerConfig, ['-n', 'team', 'get', 'secrets']);
    assert.equal(secrets.trim(), `Error from server (Forbidden): secrets is forbidden: ${cannot(viewer, 'list', 'secrets', '', 'team')}`);
    const write = await fails(viewerConfig, ['-n', 'team', 'delete', 'pod', 'web']);
    assert.ok(write.includes(`pods "web" is forbidden: ${cannot(viewer, 'delete', 'pods', '', 'team')}`), write);
    const other = await fails(viewerConfig, ['-n', 'other', 'get', 'pods']);
    assert.ok(other.includes(`pods is forbidden: ${cannot(viewer, 'list', 'pods', '', 'other')}`), other);
    assert.equal((await kubectl(viewerConfig, ['auth', 'can-i', 'watch', 'deployments.apps', '-n', 'team'])).stdout.trim(), 'yes');
  });

  kit('aggregation: a ClusterRole labelled aggregate-to-view extends view (and edit and admin), stored and in effect', async () => {
    const hasLeases = async (role: string): Promise<boolean> => {
      const rules = JSON.parse(await kubectlOk(admin(), ['get', 'clusterrole', role, '-o', 'json'])).rules as Array<{ apiGroups?: string[]; resources?: string[]; verbs?: string[] }>;
      return rules.some((r) => r.apiGroups?.includes('coordination.k8s.io') && r.resources?.includes('leases') && r.verbs?.join(',') === 'get,list,watch');
    };
    const eventually = async (what: string, check: () => Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    assert.equal(await hasLeases('view'), false);
    const leases = await fails(viewerConfig, ['-n', 'team', 'get', 'leases']);
    assert.ok(leases.includes(`leases.coordination.k8s.io is forbidden: ${cannot(viewer, 'list', 'leases', 'coordination.k8s.io', 'team')}`), leases);

    await apply(`
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: lease-viewer
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch]}
`);
    await eventually('view has the leases rule', () => hasLeases('view'));
    await eventually('edit and admin have it too', async () => (await hasLeases('edit')) && (await hasLeases('admin')));
    const yaml = await kubectlOk(admin(), ['get', 'clusterrole', 'view', '-o', 'yaml']);
    assert.match(yaml, /^aggregationRule:\n  clusterRoleSelectors:\n  - matchLabels:\n      rbac\.authorization\.k8s\.io\/aggregate-to-view: "true"$/m);
    assert.match(yaml, /^- apiGroups:\n  - coordination\.k8s\.io\n  resources:\n  - leases\n  verbs:\n  - get\n  - list\n  - watch$/m);
    // The rules of the roles picked by name: lease-viewer before system:aggregate-to-view.
    assert.ok(yaml.indexOf('coordination.k8s.io') < yaml.indexOf('endpointslices'), yaml);
    await kubectlOk(viewerConfig, ['-n', 'team', 'get', 'leases']);
    assert.equal((await kubectl(viewerConfig, ['auth', 'can-i', 'list', 'leases', '-n', 'team'])).stdout.trim(), 'yes');

    // Taking the label away takes the rules away.
    await kubectlOk(admin(), ['label', 'clusterrole', 'lease-viewer', 'rbac.authorization.k8s.io/aggregate-to-view-']);
    await eventually('view no longer has the leases rule', async () => !(await hasLeases('view')) && !(await hasLeases('admin')));
    await fails(viewerConfig, ['-n', 'team', 'get', 'leases']);
    await kubectlOk(admin(), ['delete', 'clusterrole', 'lease-viewer']);
  });
});

describe('escalation prevention', () => {
  const roler = 'system:serviceaccount:team:roler';
  const rolerGroups = ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'];

  kit('a ServiceAccount that may write roles cannot write one granting more than it holds, nor bind one', async () => {
    assert.match(await kubectlOk(rolerConfig, ['-n', 'team', 'create', 'role', 'narrow', '--verb=get', '--resource=pods']), /created/);

    const wide = await fails(rolerConfig, ['-n', 'team', 'create', 'role', 'wide', '--verb=get,delete', '--resource=pods']);
    const wideText = `roles.rbac.authorization.k8s.io "wide" is forbidden: ${escalation(roler, rolerGroups, ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'])}`;
    assert.equal(wide.trim(), `Error from server (Forbidden): ${wideText}`);
    assert.match(await fails(admin(), ['-n', 'team', 'get', 'role', 'wide']), /NotFound|not found/);

    // Through apply (a create, then a patch), replace (an update) and patch, the same.
    const applied = await fails(
      rolerConfig,
      ['apply', '-f', '-'],
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: applied, namespace: team}\nrules:\n- {apiGroups: [""], resources: [secrets, pods], verbs: [get]}\n',
    );
    assert.ok(applied.includes(`roles.rbac.authorization.k8s.io "applied" is forbidden: ${escalation(roler, rolerGroups, ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}'])}`), applied);
    const patched = await fails(rolerConfig, ['-n', 'team', 'patch', 'role', 'narrow', '--type=json', '-p', '[{"op":"add","path":"/rules/0/verbs/-","value":"delete"}]']);
    assert.equal(patched.trim(), `Error from server (Forbidden): roles.rbac.authorization.k8s.io "narrow" is forbidden: ${escalation(roler, rolerGroups, ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'])}`);
    const merged = await fails(rolerConfig, ['-n', 'team', 'patch', 'role', 'narrow', '--type=merge', '-p', '{"rules":[{"apiGroups":["apps"],"resources":["*"],"verbs":["*"]}]}']);
    assert.ok(merged.includes('{APIGroups:["apps"], Resources:["*"], Verbs:["*"]}'), merged);
    const replaced = await fails(
      rolerConfig,
      ['replace', '-f', '-'],
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: narrow, namespace: team}\nrules:\n- {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}\n',
    );
    assert.ok(replaced.includes(`roles.rbac.authorization.k8s.io "narrow" is forbidden: ${escalation(roler, rolerGroups, ['{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}'])}`), replaced);
    // A change that grants nothing new is fine.
    await kubectlOk(rolerConfig, ['-n', 'team', 'label', 'role', 'narrow', 'tier=ops']);
    await kubectlOk(rolerConfig, ['-n', 'team', 'patch', 'role', 'narrow', '--type=json', '-p', '[{"op":"add","path":"/rules/0/verbs/-","value":"list"}]']);
    assert.equal((await kubectlOk(admin(), ['-n', 'team', 'get', 'role', 'narrow', '-o', 'jsonpath={.rules[0].verbs}'])).trim(), '["get","list"]');

    // Bindings: to a role it holds, yes; to edit, no; to a role that does not exist, kube's 404.
    await kubectlOk(rolerConfig, ['-n', 'team', 'create', 'rolebinding', 'narrow-to-jane', '--role=narrow', '--user=jane']);
    const edit = await fails(rolerConfig, ['-n', 'team', 'create', 'rolebinding', 'edit-to-jane', '--clusterrole=edit', '--user=jane']);
    assert.match(edit, /rolebindings\.rbac\.authorization\.k8s\.io "edit-to-jane" is forbidden: user "system:serviceaccount:team:roler" \(groups=\["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["bindings"\], Verbs:\["get" "list" "watch"\]\}\n/);
    assert.ok(edit.includes('{APIGroups:[""], Resources:["secrets"], Verbs:['), edit);
    const missing = await fails(rolerConfig, ['-n', 'team', 'create', 'rolebinding', 'nothing', '--role=missing', '--user=jane']);
    assert.match(missing, /roles\.rbac\.authorization\.k8s\.io "missing" not found/);

    // The same through client-node, with the Status kube sends.
    const { rbac } = clientNode(rolerConfig.text);
    const status = await statusOf(
      rbac.createNamespacedRole({ namespace: 'team', body: { metadata: { name: 'from-client-node' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] } }),
    );
    assert.equal(status.code, 403);
    assert.equal(status.reason, 'Forbidden');
    assert.equal(status.message, `roles.rbac.authorization.k8s.io "from-client-node" is forbidden: ${escalation(roler, rolerGroups, ['{APIGroups:[""], Resources:["configmaps"], Verbs:["create"]}'])}`);
    assert.deepEqual(status.details, { name: 'from-client-node', group: 'rbac.authorization.k8s.io', kind: 'roles' });
  });

  kit('the escalate and bind verbs lift the checks; an aggregationRule takes cluster-admin', async () => {
    await apply(`
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: escalator, namespace: team}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles], verbs: [escalate]}
- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [bind], resourceNames: [edit]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: roler-escalates, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: escalator}
subjects:
- {kind: ServiceAccount, name: roler, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: clusterrole-writer}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], verbs: [create, get, update, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: roler-writes-clusterroles}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: clusterrole-writer}
subjects:
- {kind: ServiceAccount, name: roler, namespace: team}
`);
    await kubectlOk(rolerConfig, ['-n', 'team', 'create', 'role', 'wide', '--verb=get,delete', '--resource=pods,secrets']);
    await kubectlOk(rolerConfig, ['-n', 'team', 'create', 'rolebinding', 'edit-to-jane', '--clusterrole=edit', '--user=jane']);
    // bind is on edit only.
    const adminRole = await fails(rolerConfig, ['-n', 'team', 'create', 'rolebinding', 'admin-to-jane', '--clusterrole=admin', '--user=jane']);
    assert.match(adminRole, /rolebindings\.rbac\.authorization\.k8s\.io "admin-to-jane" is forbidden: user "system:serviceaccount:team:roler" .* is attempting to grant RBAC permissions not currently held/);

    // escalate is on roles in team only: a ClusterRole with rules held only in team is refused.
    const cluster = await fails(rolerConfig, ['create', 'clusterrole', 'pods-everywhere', '--verb=get', '--resource=pods']);
    assert.equal(
      cluster.trim(),
      `Error from server (Forbidden): clusterroles.rbac.authorization.k8s.io "pods-everywhere" is forbidden: ${escalation(roler, rolerGroups, ['{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'])}`,
    );
    const aggregating = await fails(
      rolerConfig,
      ['create', '-f', '-'],
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: gatherer}\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {gather: "yes"}\nrules: []\n',
    );
    assert.equal(aggregating.trim(), 'Error from server (Forbidden): error when creating "STDIN": clusterroles.rbac.authorization.k8s.io "gatherer" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    // The admin (system:masters) is never checked.
    await kubectlOk(admin(), ['create', '-f', '-'], { input: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: gatherer}\naggregationRule:\n  clusterRoleSelectors:\n  - matchLabels: {gather: "yes"}\nrules: []\n' });
    await kubectlOk(admin(), ['delete', 'clusterrole', 'gatherer', 'clusterrole-writer']);
  });
});

describe('authentication', () => {
  kit('no credentials and a bad token are 401, in kube\'s words', async () => {
    // kubectl asks for a user name when its kubeconfig has no credentials at all; basic auth
    // (which kube no longer accepts) gives it a request without credentials the server knows.
    const basic = kubeconfigFor('basic', { username: 'nobody', password: 'secret' });
    assertUnauthorized(await fails(basic, ['-n', 'team', 'get', 'pods']));
    assertUnauthorized(await fails(admin(), ['--token', 'not-a-token', 'get', 'pods']));
    assertUnauthorized(await fails(admin(), ['--token', `${opToken.slice(0, -4)}AAAA`, '-n', 'team', 'get', 'pods']));
    assert.equal((await kubectlOk(basic, ['get', '--raw', '/readyz'])).trim(), 'ok', 'health stays public');

    const anonymous = kubeconfigFor('anonymous', {});

    const config = JSON.parse(anonymous.text) as Kubeconfig;
    const caPem = Buffer.from(config.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString('utf8');
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${admin().url}/api/v1/namespaces/team/pods`, { ca: caPem }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(raw.status, 401);
    assert.deepEqual(JSON.parse(raw.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });

    const { core } = clientNode(anonymous.text);
    // client-node keeps no body for a 401, only the code.
    await assert.rejects(core.listNamespacedPod({ namespace: 'team' }), (e: unknown) => e instanceof ApiException && e.code === 401);
  });

  kit('a token of a deleted ServiceAccount is refused, even once one of the same name exists again', async () => {
    await kubectlOk(admin(), ['-n', 'team', 'create', 'sa', 'temp']);
    const temp = kubeconfigFor('temp', { token: await token('team', 'temp') });
    assert.match(await kubectlOk(temp, ['auth', 'whoami']), /^Username\s+system:serviceaccount:team:temp$/m);
    await kubectlOk(admin(), ['-n', 'team', 'delete', 'sa', 'temp']);
    assertUnauthorized(await fails(temp, ['auth', 'whoami']));
    await kubectlOk(admin(), ['-n', 'team', 'create', 'sa', 'temp']);
    assertUnauthorized(await fails(temp, ['auth', 'whoami']));
    await kubectlOk(admin(), ['-n', 'team', 'delete', 'sa', 'temp']);
  });

  kit('a client certificate signed by the server\'s CA authenticates as its CN in its O groups', async () => {
    const pki = join(dataDir(), 'pki');
    const ca: CertificateAndKey = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
    const alice = await issueClientCertificate(ca, { commonName: 'alice', organizations: ['devs', 'qa'] });
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const aliceConfig = kubeconfigFor('alice', { 'client-certificate-data': b64(alice.certPem), 'client-key-data': b64(alice.keyPem) });

    const who = JSON.parse(await kubectlOk(aliceConfig, ['auth', 'whoami', '-o', 'json'])).status.userInfo;
    assert.equal(who.username, 'alice');
    assert.deepEqual(who.groups, ['devs', 'qa', 'system:authenticated']);
    // kube names the credential by the certificate's SHA-256 fingerprint.
    const fingerprint = new X509Certificate(alice.certPem).fingerprint256.replace(/:/g, '').toLowerCase();
    assert.deepEqual(who.extra, { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fingerprint}`] });
    const table = await kubectlOk(aliceConfig, ['auth', 'whoami']);
    assert.match(table, /^Username\s+alice$/m);
    assert.match(table, /^Groups\s+\[devs qa system:authenticated\]$/m);

    const denied = await fails(aliceConfig, ['-n', 'team', 'get', 'pods']);
    assert.equal(denied.trim(), `Error from server (Forbidden): pods is forbidden: ${cannot('alice', 'list', 'pods', '', 'team')}`);
    // Bound through one of its groups, it reads pods.
    await kubectlOk(admin(), ['-n', 'team', 'create', 'rolebinding', 'devs-read-pods', '--role=pod-reader', '--group=devs']);
    assert.match(await kubectlOk(aliceConfig, ['-n', 'team', 'get', 'pods']), /^web\s/m);
    const { core } = clientNode(aliceConfig.text);
    assert.deepEqual((await core.listNamespacedPod({ namespace: 'team' })).items.map((p) => p.metadata?.name), ['web']);

    // A certificate from another CA is nobody.
    const stranger = await issueClientCertificate(await generateCertificateAuthority('elsewhere'), { commonName: 'mallory', organizations: ['system:masters'] });
    const strangerConfig = kubeconfigFor('stranger', { 'client-certificate-data': b64(stranger.certPem), 'client-key-data': b64(stranger.keyPem) });
    assertUnauthorized(await fails(strangerConfig, ['get', 'pods']));
  });
});
