/**
 * The cost of authorization and admission webhooks (issue 4's benchmark):
 *
 * - RbacAuthorizer.authorize with 1,000 Roles and 1,000 RoleBindings (spread over 100
 *   namespaces, plus the default ClusterRoles and bindings), against the default policy
 *   alone, in this process: a ServiceAccount's allowed request and its denied one (a denial
 *   visits every binding that names the user); and the re-indexing after an RBAC change.
 * - The latency of one request (list the pods of a namespace) over HTTPS by a ServiceAccount
 *   (token verified, RBAC consulted) against the same request by the admin (system:masters,
 *   no RBAC lookup), with the 1,000 roles and bindings stored in the server.
 * - The latency added by one mutating and one validating webhook (HTTPS servers in this
 *   process): creating a ConfigMap in a namespace the webhooks select against the same create
 *   in a namespace they skip, interleaved, in the same run.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client, readKubeconfig } from './client.js';
import { configMap } from './fixtures.js';
import { startOperant, type ReadyProcess } from './processes.js';
import { median } from './stats.js';
import { row, type Row } from './table.js';
import { RbacAuthorizer } from '../packages/apiserver/src/auth/rbac/authorizer.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../packages/apiserver/src/auth/rbac/bootstrap-policy.js';
import type { RbacObjects, RequestAttributes, Role, RoleBinding } from '../packages/apiserver/src/auth/rbac/attributes.js';
import { generateCertificateAuthority, issueServingCertificate } from '../packages/apiserver/src/tls/certificates.js';

const rbacGroup = 'rbac.authorization.k8s.io';
const roleCount = 1000;
const namespaceCount = 100;
/** Requests per side and round for the latency figures. */
const requestsPerRound = 2000;
/** authorize() calls per timing sample. */
const callsPerSample = 20_000;

type Log = (text: string) => void;

const us = (v: number): string => (v < 10 ? `${v.toFixed(2)} µs` : `${v.toFixed(1)} µs`);
const ms = (v: number): string => (v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(0)} ms`);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

// ------------------------------------------------------------------ the RBAC objects

const benchNamespace = (i: number): string => `ns-${i % namespaceCount}`;

/** Role i: a few rules, like an operator's. */
function role(i: number): Role {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'Role',
    metadata: { name: `role-${i}`, namespace: benchNamespace(i) },
    rules: [
      { apiGroups: [''], resources: ['pods', 'services', 'endpoints'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
      { apiGroups: ['apps'], resources: ['deployments', 'deployments/status'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'], resourceNames: [`lock-${i}`] },
    ],
  };
}

/** Binding i: role i to ServiceAccount sa-i of its namespace and a user. */
function roleBinding(i: number): RoleBinding {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind: 'RoleBinding',
    metadata: { name: `binding-${i}`, namespace: benchNamespace(i) },
    roleRef: { apiGroup: rbacGroup, kind: 'Role', name: `role-${i}` },
    subjects: [
      { kind: 'ServiceAccount', name: `sa-${i}`, namespace: benchNamespace(i) },
      { kind: 'User', apiGroup: rbacGroup, name: `user-${i}` },
    ],
  };
}

function objects(count: number): RbacObjects {
  const n = Array.from({ length: count }, (_, i) => i);
  return {
    roles: n.map(role),
    roleBindings: n.map(roleBinding),
    clusterRoles: bootstrapClusterRoles(),
    clusterRoleBindings: bootstrapClusterRoleBindings(),
  };
}

function attrs(verb: string, i: number): RequestAttributes {
  const ns = benchNamespace(i);
  return {
    user: { username: `system:serviceaccount:${ns}:sa-${i}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] },
    verb,
    resourceRequest: true,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: ns,
    name: '',
    path: `/api/v1/namespaces/${ns}/pods`,
  };
}

/** µs per authorize() call: the median of several samples of many calls each. */
function timeAuthorize(a: RbacAuthorizer, verb: string, samples: number): number {
  const requests = Array.from({ length: 64 }, (_, i) => attrs(verb, i * 7));
  let sink = 0;
  const times: number[] = [];
  for (let s = 0; s < samples + 1; s++) {
    const t0 = performance.now();
    for (let c = 0; c < callsPerSample; c++) if (a.authorize(requests[c & 63]!).allowed) sink++;
    const t = ((performance.now() - t0) * 1000) / callsPerSample;
    if (s > 0) times.push(t); // the first sample warms up (and builds the index)
  }
  if (sink < 0) throw new Error('unreachable');
  return median(times);
}

/** ms to index the objects after a change (the first decision after any RBAC write pays it). */
function timeIndex(source: RbacObjects, samples: number): number {
  let version = 0;
  const a = new RbacAuthorizer(() => source, () => version);
  const times: number[] = [];
  for (let s = 0; s < samples + 1; s++) {
    version++;
    const t0 = performance.now();
    a.authorize(attrs('list', 0));
    if (s > 0) times.push(performance.now() - t0);
  }
  return median(times);
}

interface AuthorizerFigures {
  allowed: number[];
  denied: number[];
  baseAllowed: number[];
  baseDenied: number[];
  index: number[];
  baseIndex: number[];
}

function authorizerFigures(rounds: number): AuthorizerFigures {
  const many = objects(roleCount);
  // The baseline holds the default policy and just the bindings the measured users need.
  const few: RbacObjects = { ...objects(0), roles: [], roleBindings: [] };
  const needed = new Set(Array.from({ length: 64 }, (_, i) => i * 7));
  few.roles = [...needed].map(role);
  few.roleBindings = [...needed].map(roleBinding);
  const out: AuthorizerFigures = { allowed: [], denied: [], baseAllowed: [], baseDenied: [], index: [], baseIndex: [] };
  for (let r = 0; r < rounds; r++) {
    const a = new RbacAuthorizer(() => many, () => 1);
    const b = new RbacAuthorizer(() => few, () => 1);
    out.baseAllowed.push(timeAuthorize(b, 'list', 5));
    out.allowed.push(timeAuthorize(a, 'list', 5));
    out.baseDenied.push(timeAuthorize(b, 'delete', 5));
    out.denied.push(timeAuthorize(a, 'delete', 5));
    out.baseIndex.push(timeIndex(few, 5));
    out.index.push(timeIndex(many, 5));
  }
  return out;
}

// ------------------------------------------------------------------ through the server

/** Latencies (ms) of `op` on `client`, strictly one after another. */
async function latencies(n: number, op: () => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    out.push(performance.now() - t0);
  }
  return out;
}

/** Runs a and b alternately, n times each; their latencies (ms). */
async function interleaved(n: number, a: () => Promise<void>, b: () => Promise<void>): Promise<{ a: number[]; b: number[] }> {
  const out = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < n; i++) {
    out.a.push(...(await latencies(1, a)));
    out.b.push(...(await latencies(1, b)));
  }
  return out;
}

async function postAll(client: Client, items: Array<{ path: string; body: object }>, concurrency: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await client.ok('POST', item.path, JSON.stringify(item.body));
      }
    }),
  );
}

interface LatencyPair {
  oursP50: number[];
  oursP99: number[];
  baseP50: number[];
  baseP99: number[];
}

function pairFrom(rounds: Array<{ a: number[]; b: number[] }>): LatencyPair {
  return {
    oursP50: rounds.map((r) => percentile(r.a, 50)),
    oursP99: rounds.map((r) => percentile(r.a, 99)),
    baseP50: rounds.map((r) => percentile(r.b, 50)),
    baseP99: rounds.map((r) => percentile(r.b, 99)),
  };
}

async function serviceAccountToken(admin: Client, namespace: string, name: string): Promise<string> {
  await admin.ok('POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }));
  const review = await admin.ok(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } }),
  );
  return (JSON.parse(review.toString('utf8')) as { status: { token: string } }).status.token;
}

/** The ServiceAccount's list of pods against the admin's, with 1,000 roles and bindings stored. */
async function requestLatency(admin: Client, rounds: number, log: Log): Promise<LatencyPair> {
  const t0 = performance.now();
  const namespaces = Array.from({ length: namespaceCount }, (_, i) => ({ path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } } }));
  await postAll(admin, namespaces, 16);
  const roles = Array.from({ length: roleCount }, (_, i) => ({ path: `/apis/${rbacGroup}/v1/namespaces/${benchNamespace(i)}/roles`, body: role(i) }));
  const bindings = Array.from({ length: roleCount }, (_, i) => ({ path: `/apis/${rbacGroup}/v1/namespaces/${benchNamespace(i)}/rolebindings`, body: roleBinding(i) }));
  await postAll(admin, roles, 16);
  await postAll(admin, bindings, 16);
  // sa-7 in ns-7 is bound by binding-7 (role-7: list pods, among others).
  const token = await serviceAccountToken(admin, 'ns-7', 'sa-7');
  const pods = Array.from({ length: 10 }, (_, i) => ({
    path: '/api/v1/namespaces/ns-7/pods',
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}` }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
  }));
  await postAll(admin, pods, 4);
  log(`  stored ${roleCount} roles and ${roleCount} bindings in ${namespaceCount} namespaces in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const sa = new Client({ ...admin.endpoint, token }, 1);
  const adm = new Client(admin.endpoint, 1);
  try {
    const path = '/api/v1/namespaces/ns-7/pods';
    const get = (c: Client) => async (): Promise<void> => {
      await c.ok('GET', path);
    };
    const denied = await sa.send('DELETE', `${path}/web-0`);
    if (denied.status !== 403) throw new Error(`expected the ServiceAccount's delete to be denied, got ${denied.status}`);
    await interleaved(200, get(sa), get(adm)); // warm-up
    const results: Array<{ a: number[]; b: number[] }> = [];
    for (let r = 0; r < rounds; r++) results.push(await interleaved(requestsPerRound, get(sa), get(adm)));
    return pairFrom(results);
  } finally {
    sa.close();
    adm.close();
  }
}

/** Creates with one mutating and one validating webhook against the same creates without. */
async function webhookLatency(admin: Client, rounds: number, log: Log): Promise<LatencyPair & { calls: number }> {
  const ca = await generateCertificateAuthority('bench-webhook-ca');
  const serving = await issueServingCertificate(ca, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
  let calls = 0;
  const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }])).toString('base64');
  const webhook: Server = createServer({ cert: serving.certPem, key: serving.keyPem, keepAliveTimeout: 65_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { request: { uid: string } };
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: true };
      if (req.url!.startsWith('/mutate')) {
        response.patchType = 'JSONPatch';
        response.patch = patch;
      }
      const text = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  webhook.listen(0, '127.0.0.1');
  await once(webhook, 'listening');
  const base = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
  const caBundle = Buffer.from(ca.certPem).toString('base64');
  const hook = (name: string, path: string): object => ({
    name,
    clientConfig: { url: `${base}${path}`, caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { webhooks: 'on' } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  });
  const c = new Client(admin.endpoint, 1);
  try {
    await admin.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hooked', labels: { webhooks: 'on' } } }));
    await admin.ok('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'plain' } }));
    await admin.ok('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'bench-mutate' }, webhooks: [hook('mutate.bench.operant.dev', '/mutate')] }));
    await admin.ok('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bench-validate' }, webhooks: [hook('validate.bench.operant.dev', '/validate')] }));

    let n = 0;
    const create = (ns: string) => async (): Promise<void> => {
      const body = await c.ok('POST', `/api/v1/namespaces/${ns}/configmaps`, configMap(`cm-${n++}`));
      if (ns === 'hooked' && !body.includes('"mutated":"yes"')) throw new Error('the mutating webhook was not applied');
    };
    await interleaved(200, create('hooked'), create('plain')); // warm-up
    calls = 0;
    const results: Array<{ a: number[]; b: number[] }> = [];
    for (let r = 0; r < rounds; r++) results.push(await interleaved(requestsPerRound, create('hooked'), create('plain')));
    log(`  ${calls} webhook calls for ${rounds * requestsPerRound} creates in the selected namespace`);
    return { ...pairFrom(results), calls };
  } finally {
    c.close();
    webhook.close();
    webhook.closeAllConnections();
  }
}

// ------------------------------------------------------------------ the section

export async function authSection(workDir: string, rounds: number, log: Log): Promise<Row[]> {
  const rows: Row[] = [];
  log(`authorizer: ${roleCount} roles and bindings vs the default policy, ${rounds} rounds`);
  const a = authorizerFigures(rounds);
  const inProcess = '(default policy only)';
  rows.push(row(`RBAC authorize(), allowed, ${roleCount.toLocaleString('en-US')} roles+bindings`, a.allowed, a.baseAllowed, us, inProcess));
  rows.push(row(`RBAC authorize(), denied, ${roleCount.toLocaleString('en-US')} roles+bindings`, a.denied, a.baseDenied, us, inProcess));
  rows.push(row(`RBAC re-index after a change, ${roleCount.toLocaleString('en-US')} roles+bindings`, a.index, a.baseIndex, ms, inProcess));

  const server: ReadyProcess = await startOperant(join(workDir, 'kc-auth'));
  const admin = new Client(readKubeconfig(join(workDir, 'kc-auth')), 16);
  try {
    log(`request latency: ServiceAccount vs admin, ${requestsPerRound} requests each per round, one connection each`);
    const l = await requestLatency(admin, rounds, log);
    const what = '(admin: no RBAC lookup)';
    rows.push(row('List 10 pods as a ServiceAccount, latency p50', l.oursP50, l.baseP50, ms, what));
    rows.push(row('List 10 pods as a ServiceAccount, latency p99', l.oursP99, l.baseP99, ms, what));

    log(`webhooks: one mutating + one validating, ${requestsPerRound} creates each way per round`);
    const w = await webhookLatency(admin, rounds, log);
    const skipped = '(same create, webhooks skip the namespace)';
    rows.push(row('Create with 2 webhooks (mutating + validating), p50', w.oursP50, w.baseP50, ms, skipped));
    rows.push(row('Create with 2 webhooks (mutating + validating), p99', w.oursP99, w.baseP99, ms, skipped));
    const added = (o: number[], b: number[]): string => ms(median(o) - median(b));
    log(`  added by the webhooks: p50 ${added(w.oursP50, w.baseP50)}, p99 ${added(w.oursP99, w.baseP99)}`);
    log(`  added by authentication + RBAC: p50 ${added(l.oursP50, l.baseP50)}, p99 ${added(l.oursP99, l.baseP99)}`);
  } finally {
    admin.close();
    await server.stop();
  }
  return rows;
}
