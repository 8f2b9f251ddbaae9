/**
 * A deterministic fuzz test over real HTTPS: a few thousand random and mutated
 * requests (random methods; paths built from the served resources and real
 * object names with random segments; random query parameters; bodies mutated
 * from valid objects with flipped types, deep nesting, huge strings, invalid
 * UTF-8, truncation, random content types; patches of every type).
 *
 * It asserts that these client mistakes never get a 5xx (the one exception is
 * kube's own 504 "Too large resource version" for a resourceVersion from the
 * future), that every error is a metav1.Status whose `code` is the HTTP status,
 * that the server keeps answering /healthz, and that it all takes well under a
 * minute.
 *
 * The requests depend only on the seed. Reproduce a failure with the seed it
 * prints: `FUZZ_SEED=<seed> node scripts/run-tests.mjs packages/apiserver/test/fuzz.test.ts`
 * (`FUZZ_COUNT` changes the number of requests, `FUZZ_VERBOSE=1` logs each one,
 * `FUZZ_DUMP=<dir>` writes each failing request there as JSON, body in base64).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { startApiServer, type RunningApiServer } from '../src/server.js';
import { seededRandom } from './support/api-client.js';
import { RawClient, type RawRequest, type RawResponse } from './support/raw-client.js';

const seed = Number(process.env.FUZZ_SEED ?? 0x0fe2c0de) >>> 0;
const count = Number(process.env.FUZZ_COUNT ?? 3000);
const verbose = process.env.FUZZ_VERBOSE === '1';
const dumpDir = process.env.FUZZ_DUMP;
const budgetMs = 60_000;

// ------------------------------------------------------------------ randomness

// mulberry32 (the test support's): the same sequence on every machine.
let rng = seededRandom(seed);
const int = (n: number): number => Math.floor(rng() * n);
const chance = (p: number): boolean => rng() < p;
const pick = <T>(items: readonly T[]): T => items[int(items.length)];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// ------------------------------------------------------------------ what the server serves

interface Target {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  names: string[];
  template: (name: string) => Record<string, Json>;
}

const ns = 'fuzz';
const meta = (name: string, extra: Record<string, Json> = {}): Record<string, Json> => ({ name, labels: { app: 'fuzz', tier: 'a' }, ...extra });
const podSpec: Json = { containers: [{ name: 'c', image: 'nginx:1.25', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: 'b' }] }] };

const targets: Target[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, names: [ns, 'default'], template: (n) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: meta(n) }) },
  {
    group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, names: ['cm-0', 'cm-1'],
    template: (n) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(n), data: { a: 'x', 'b.txt': 'y' } }),
  },
  {
    group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, names: ['secret-0'],
    template: (n) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta(n), type: 'Opaque', data: { k: 'dmFsdWU=' }, stringData: { s: 'plain' } }),
  },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, names: ['pod-0'], template: (n) => ({ apiVersion: 'v1', kind: 'Pod', metadata: meta(n), spec: podSpec }) },
  {
    group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, names: ['svc-0'],
    template: (n) => ({ apiVersion: 'v1', kind: 'Service', metadata: meta(n), spec: { selector: { app: 'fuzz' }, ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } }),
  },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, names: ['sa-0'], template: (n) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(n) }) },
  {
    group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, names: ['ev-0'],
    template: (n) => ({
      apiVersion: 'v1', kind: 'Event', metadata: meta(n), involvedObject: { kind: 'Pod', name: 'pod-0', namespace: ns }, reason: 'Fuzz', message: 'm', type: 'Normal',
    }),
  },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, names: ['node-0'], template: (n) => ({ apiVersion: 'v1', kind: 'Node', metadata: meta(n), spec: {} }) },
  {
    group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, names: ['deploy-0'],
    template: (n) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta(n),
      spec: { replicas: 2, selector: { matchLabels: { app: 'fuzz' } }, template: { metadata: { labels: { app: 'fuzz' } }, spec: podSpec } },
    }),
  },
  {
    group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, names: ['rs-0'],
    template: (n) => ({
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: meta(n),
      spec: { replicas: 1, selector: { matchLabels: { app: 'fuzz' } }, template: { metadata: { labels: { app: 'fuzz' } }, spec: podSpec } },
    }),
  },
  {
    group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true, names: ['rev-0'],
    template: (n) => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: meta(n), revision: 1, data: { any: ['thing', 1, { x: null }] } }),
  },
  {
    group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true, names: ['lease-0'],
    template: (n) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: meta(n), spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } }),
  },
  {
    // Not ev-0: events.k8s.io Events share the core Events' storage, where ev-0 exists already.
    group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, names: ['ev-1'],
    template: (n) => ({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: meta(n), eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'fuzz', reportingInstance: 'fuzz-1',
      action: 'Fuzz', reason: 'Fuzz', regarding: { kind: 'Pod', name: 'pod-0', namespace: ns }, type: 'Normal',
    }),
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true, names: ['role-0'],
    template: (n) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(n), rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, names: ['rb-0'],
    template: (n) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta(n),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-0' }, subjects: [{ kind: 'ServiceAccount', name: 'sa-0', namespace: ns }],
    }),
  },
  {
    group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, names: ['fuzz-clusterrole'],
    template: (n) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(n), rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] }),
  },
  {
    group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false, names: ['fuzz-vwc'],
    template: (n) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: meta(n), webhooks: [] }),
  },
  {
    group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, names: ['widgets.fuzz.example.com'],
    template: (n) => ({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: n },
      spec: {
        group: 'fuzz.example.com', scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{
          name: 'v1', served: true, storage: true, subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
        }],
      },
    }),
  },
  {
    group: 'fuzz.example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true, names: ['widget-0'],
    template: (n) => ({ apiVersion: 'fuzz.example.com/v1', kind: 'Widget', metadata: meta(n), spec: { size: 3, free: { any: [1, 'two'] } } }),
  },
  {
    group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, names: [],
    template: () => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } }),
  },
];

// ------------------------------------------------------------------ generators

const junkAlphabet = 'abcXYZ019-_.~!*\'();:@&=+$,/?#[] %"<>\\^`{|}\u00e9\u4e2d\u{1f600}\t\n\u0000';

function junk(maxLen = 12): string {
  let s = '';
  const n = 1 + int(maxLen);
  for (let i = 0; i < n; i++) s += [...junkAlphabet][int([...junkAlphabet].length)];
  return s;
}

/** A path segment: usually encoded properly, sometimes with raw and malformed percent-escapes. */
function segment(s: string): string {
  if (chance(0.1)) return pick(['%ZZ', '%', '%C3%28', '%ED%A0%80', '%FF%FE', '%00', 'a%2Fb', '%2e%2e', '..', '.', '%20']);
  return encodeURIComponent(s);
}

function name(t: Target): string {
  const r = rng();
  if (r < 0.55 && t.names.length) return pick(t.names);
  if (r < 0.7) return `n-${int(20)}`;
  if (r < 0.8) return pick(['UPPER', 'a_b', '-leading', 'trailing-', 'a.b.c', 'x'.repeat(254), 'x'.repeat(64), '\u00e9t\u00e9', 'a b', '']);
  if (r < 0.85) return 'y'.repeat(pick([300, 2000, 6000]));
  return junk();
}

function basePath(t: Target): string {
  let group = t.group;
  let version = t.version;
  if (chance(0.04)) version = pick(['v2', 'v1beta1', 'v0', junk(4)]);
  if (chance(0.02)) group = pick(['apps', 'example.com', junk(5), '']);
  return group === '' ? `/api/${segment(version)}` : `/apis/${segment(group)}/${segment(version)}`;
}

function genPath(t: Target): string {
  const r = rng();
  if (r < 0.04) {
    return pick(['/', '/api', '/apis', '/version', '/healthz', '/livez', '/readyz', '/readyz/ping', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/openapi/v3/apis/apps/v1', '/apis/apps', '/apis/apps/v1', '/api/v1', '/metrics', '/apis/fuzz.example.com/v1']) +
      (chance(0.3) ? `/${segment(junk(6))}` : '');
  }
  if (r < 0.07) {
    const parts: string[] = [];
    for (let i = int(7); i >= 0; i--) parts.push(segment(junk(8)));
    return `/${parts.join('/')}`;
  }
  const parts: string[] = [];
  if (chance(0.05)) parts.push('watch');
  if (t.namespaced ? chance(0.9) : chance(0.08)) parts.push('namespaces', segment(chance(0.85) ? ns : pick(['default', 'nope', 'kube-system', junk(6)])));
  parts.push(chance(0.04) ? segment(pick([t.resource.toUpperCase(), t.kind, `${t.resource}x`, junk(6)])) : t.resource);
  if (chance(0.65)) parts.push(segment(name(t)));
  if (chance(0.12)) parts.push(segment(pick(['status', 'scale', 'finalize', 'binding', 'token', 'eviction', 'log', 'exec', junk(5)])));
  if (chance(0.02)) parts.push(segment(junk(5)));
  let path = `${basePath(t)}/${parts.join('/')}`;
  if (chance(0.02)) path += '/';
  if (chance(0.01)) path = path.replace('/', '//');
  return path;
}

const labelSelectors = ['app=fuzz', 'app in (fuzz,x)', '!app', 'tier,app!=y', 'x notin (y)', 'a>1', 'a<b', 'app==fuzz', 'a b', 'x in (a', '(', ',', '=', 'a=b=c', 'A-/b=c', `k=${'v'.repeat(70)}`];
const fieldSelectors = ['metadata.name=cm-0', 'metadata.namespace=fuzz', 'spec.nodeName=n', 'status.phase=Running', 'type=Opaque', 'involvedObject.name=pod-0', 'spec.type=ClusterIP', 'a', 'x=y', 'metadata.name==x', 'metadata.name!=x', 'a\\=b=c', 'metadata.name=a\\', '=', ','];

function queryValue(key: string): string {
  switch (key) {
    case 'labelSelector':
      return chance(0.8) ? pick(labelSelectors) : junk();
    case 'fieldSelector':
      return chance(0.8) ? pick(fieldSelectors) : junk();
    case 'limit':
      return pick(['-1', '0', '1', '2', '500', '100000000000000000000', 'abc', '1.5', '', ' 3']);
    case 'continue':
      return pick([Buffer.from(junk(20)).toString('base64'), Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":"a"}').toString('base64'), junk(), '']);
    case 'resourceVersion':
      return pick(['0', '1', '5', '30', '999999999999', '18446744073709551616', '-1', 'abc', '', ' 1', '1e3']);
    case 'resourceVersionMatch':
      return pick(['Exact', 'NotOlderThan', 'exact', junk(5)]);
    case 'watch':
      return pick(['true', '1', 'false', '0', 'yes', junk(4)]);
    case 'timeoutSeconds':
      return pick(['0', '1', '-1', 'abc', '99999999999999']);
    case 'allowWatchBookmarks':
    case 'sendInitialEvents':
    case 'orphanDependents':
    case 'force':
    case 'pretty':
      return pick(['true', 'false', '1', junk(4)]);
    case 'fieldValidation':
      return pick(['Strict', 'Warn', 'Ignore', 'strict', '', junk(4)]);
    case 'dryRun':
      return pick(['All', 'all', '', junk(4)]);
    case 'propagationPolicy':
      return pick(['Foreground', 'Background', 'Orphan', junk(4)]);
    case 'gracePeriodSeconds':
      return pick(['0', '-1', '30', 'abc']);
    case 'fieldManager':
      return pick(['fuzz', 'x'.repeat(200), junk()]);
    case 'includeObject':
      return pick(['None', 'Metadata', 'Object', junk(4)]);
    default:
      return junk();
  }
}

const queryKeys = [
  'labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'watch', 'timeoutSeconds', 'allowWatchBookmarks',
  'sendInitialEvents', 'fieldValidation', 'dryRun', 'propagationPolicy', 'gracePeriodSeconds', 'orphanDependents', 'fieldManager', 'force', 'pretty', 'includeObject',
];

function genQuery(): string {
  const n = chance(0.4) ? 0 : 1 + int(4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const key = chance(0.95) ? pick(queryKeys) : junk(5);
    const value = queryValue(key);
    parts.push(chance(0.95) ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${key}=${value.replace(/[#\s]/g, '')}%`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

const acceptHeaders = [
  'application/json',
  'application/yaml',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io',
  'application/vnd.kubernetes.protobuf',
  'application/vnd.kubernetes.protobuf, */*',
  'application/xml',
  '*/*',
  'text/html;q=0.9, */*;q=0.1',
  ';;;',
];

const contentTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'application/yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'application/vnd.kubernetes.protobuf',
  'text/plain',
  'application/x-www-form-urlencoded',
  '*/*',
  '',
  ';',
  'application/json;;a==b',
];

function scalar(): Json {
  return pick<Json>([
    null, true, false, 0, -1, 1.5, 2147483648, 9007199254740993, 1e308, -0, '', 'x', 'UPPER', '10Gi', '1.5.3', '\u0000', '\u{1f600}', '2024-01-01T00:00:00Z', 'not-a-date', 'x'.repeat(70),
  ]);
}

function randomValue(depth = 0): Json {
  const r = rng();
  if (depth > 3 || r < 0.6) return scalar();
  if (r < 0.8) return Array.from({ length: int(4) }, () => randomValue(depth + 1));
  const o: Record<string, Json> = {};
  for (let i = int(4); i > 0; i--) o[chance(0.1) ? pick(['__proto__', 'constructor', '$patch', '', 'a.b', junk(5)]) : `k${int(5)}`] = randomValue(depth + 1);
  return o;
}

/** Another value of the same JSON type: well-typed, but odd (to get past decoding into validation). */
function sameType(v: Json): Json {
  if (typeof v === 'string') return pick(['', ' ', 'UPPER', 'a'.repeat(pick([64, 254, 70_000])), '-', '..', 'a/b', '\u0000', '\u{1f600}', '0', '-1', '1.5', 'null', junk(20)]);
  if (typeof v === 'number') return pick([0, -1, 1, 2147483647, -2147483648, 65535, 65536, 1e9, 3.5]);
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return pick<() => Json>([() => [], () => [...v, ...v], () => v.slice(1), () => Array.from({ length: 300 }, () => v[0] ?? null)])();
  if (v !== null && typeof v === 'object') {
    const copy: Record<string, Json> = { ...v };
    const keys = Object.keys(copy);
    if (keys.length && chance(0.5)) delete copy[pick(keys)];
    else if (keys.length) copy[pick(['', 'UPPER', 'a/b', 'x'.repeat(300), junk(6)])] = copy[pick(keys)];
    return chance(0.2) ? {} : copy;
  }
  return v;
}

/** Paths to every value in `v`, including the root. */
function paths(v: Json, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function getAt(v: Json, path: Array<string | number>): Json {
  let cur: Json = v;
  for (const p of path) cur = (cur as Record<string, Json>)[p as string];
  return cur;
}

function setAt(v: Json, path: Array<string | number>, value: Json | undefined): Json | undefined {
  if (path.length === 0) return value;
  const parent = getAt(v, path.slice(0, -1)) as Record<string, Json> | Json[];
  const last = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete (parent as Record<string, Json>)[last as string];
  } else (parent as Record<string, Json>)[last as string] = value;
  return v;
}

/** Text markers replaced after serialization, for what JSON.stringify cannot say. */
const NEST = '__FUZZ_NEST__';
const BADUTF8 = '__FUZZ_BADUTF8__';
const HUGE = '__FUZZ_HUGE__';
const BIGNUM = '__FUZZ_BIGNUM__';

const metadataMutations: Array<() => [string, Json]> = [
  () => ['name', pick<Json>([5, '', 'Bad_Name', 'x'.repeat(300), null, ['a'], { a: 1 }])],
  () => ['generateName', pick<Json>(['gen-', 'Bad_', 'x'.repeat(300), 7])],
  () => ['namespace', pick<Json>(['other', 'fuzz', 5, 'Bad_NS'])],
  () => ['labels', pick<Json>([{ 'bad key!': 'v' }, { a: 5 }, { a: 'x'.repeat(70) }, 'str', [1], { 'x/y/z': 'a' }, null])],
  () => ['annotations', pick<Json>([{ a: 5 }, { a: 'x'.repeat(300000) }, { '': 'v' }, [], 'str'])],
  () => ['finalizers', pick<Json>([['example.com/f'], ['bad finalizer'], 'str', [5], ['kubernetes'], ['foregroundDeletion', 'orphan']])],
  () => ['ownerReferences', pick<Json>([
    [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-0', uid: 'not-a-uid' }],
    [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-0', uid: 'u', controller: true }, { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-1', uid: 'u2', controller: true }],
    [{}], 'str', [5], [{ apiVersion: 5, kind: [], name: {}, uid: null }], [{ apiVersion: 'no/such/v1', kind: 'X', name: 'x', uid: 'u', blockOwnerDeletion: true }],
  ])],
  () => ['resourceVersion', pick<Json>(['abc', '1', '999999999999', 5, '-1'])],
  () => ['uid', pick<Json>(['x', 5])],
  () => ['deletionTimestamp', pick<Json>(['2024-01-01T00:00:00Z', 'junk', 5])],
  () => ['creationTimestamp', pick<Json>(['junk', 5, null])],
  () => ['managedFields', pick<Json>([[{ manager: 'x', operation: 'Bogus', fieldsType: 'FieldsV1', fieldsV1: { 'f:x': {} } }], 'str', [5]])],
  () => ['generation', pick<Json>([-1, 'x', 1.5])],
];

function mutateObject(obj: Record<string, Json>): Json {
  let v: Json = obj;
  const n = 1 + int(3);
  for (let i = 0; i < n; i++) {
    const r = rng();
    if (r < 0.25 && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const m = ((v as Record<string, Json>).metadata ??= {}) as Json;
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) {
        const [k, val] = pick(metadataMutations)();
        (m as Record<string, Json>)[k] = val;
      }
      continue;
    }
    const all = paths(v);
    const at = pick(all);
    if (r < 0.35) v = setAt(v, at, randomValue()) ?? null; // flip the type
    else if (r < 0.5) v = setAt(v, at, sameType(getAt(v, at))) ?? null;
    else if (r < 0.58 && at.length) v = setAt(v, at, undefined) ?? null; // drop a field
    else if (r < 0.65) {
      const target = getAt(v, at);
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, Json>)[chance(0.5) ? 'x' : junk(4)] = randomValue();
    } else if (r < 0.73) v = setAt(v, at, NEST) ?? null;
    else if (r < 0.8) v = setAt(v, at, BADUTF8) ?? null;
    else if (r < 0.84) v = setAt(v, at, HUGE) ?? null;
    else if (r < 0.88) v = setAt(v, at, BIGNUM) ?? null;
    else if (r < 0.94) v = setAt(v, at, scalar()) ?? null;
    else v = setAt(v, at, [v === null ? null : structuredClone(getAt(v, at)), randomValue()]) ?? null;
  }
  return v;
}

function nested(depth: number): string {
  if (chance(0.5)) return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Serializes, then replaces the markers with what JSON.stringify cannot produce. */
function serialize(v: Json): Buffer {
  let text = JSON.stringify(v) ?? 'null';
  if (text.includes(NEST)) text = text.replace(`"${NEST}"`, () => nested(pick([20, 500, 950, 995, 1001, 5000, 10001, 60000])));
  if (text.includes(HUGE)) text = text.replace(HUGE, () => 'h'.repeat(pick([1_000, 100_000, 1_000_000, 3_300_000])));
  if (text.includes(BIGNUM)) text = text.replace(`"${BIGNUM}"`, () => pick(['1e400', '-1e400', '123456789012345678901234567890', '0.0000000000000000000000001', '-0', '1E+2']));
  const buf = Buffer.from(text, 'utf8');
  const i = buf.indexOf(BADUTF8);
  if (i < 0) return buf;
  const bad = Buffer.from(pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xc0, 0xaf], [0x00]]));
  return Buffer.concat([buf.subarray(0, i), bad, buf.subarray(i + BADUTF8.length)]);
}

function corrupt(buf: Buffer): Buffer {
  const r = rng();
  if (r < 0.4) return buf.subarray(0, int(buf.length + 1)); // truncated
  if (r < 0.6) {
    const b = Buffer.from(buf);
    for (let i = 1 + int(4); i > 0 && b.length; i--) b[int(b.length)] = int(256);
    return b;
  }
  if (r < 0.7) return Buffer.from(Array.from({ length: int(64) }, () => int(256)));
  if (r < 0.8) return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(Array.from({ length: int(64) }, () => int(256)))]); // protobuf magic
  if (r < 0.9) return Buffer.from(pick(['', ' ', 'null', '[]', '{}', '""', '0', 'true', '{"a":1}{"b":2}', '\ufeff{}', '{"metadata":{"name":"x"}} trailing', '{"kind":"ConfigMap","kind":"Secret"}']));
  return Buffer.concat([buf, buf]);
}

function toYamlBody(v: Json): Buffer {
  try {
    let text = toYaml(v);
    if (chance(0.3)) text = text.replace(/\n {2}/, pick(['\n\t', '\n ', '\n   ', '\n  - ', '\n  &a ', '\n  *a ', '\n  !!binary ', '\n  ? ']));
    if (chance(0.1)) text = `a: &x\n  b: *x\n${text}`;
    return Buffer.from(text);
  } catch {
    return Buffer.from('{');
  }
}

const patchPaths = [
  '/metadata/labels/a', '/metadata/labels', '/metadata/annotations/x', '/metadata/finalizers/-', '/metadata/finalizers/0', '/metadata/name', '/metadata/namespace',
  '/metadata/resourceVersion', '/metadata/ownerReferences', '/spec/replicas', '/spec/containers/0/image', '/spec/template/spec/containers/0', '/spec/template/spec/containers/-',
  '/data/a', '/data', '/kind', '/apiVersion', '/status', '/status/phase', '/', '', 'no-slash', '/a~1b', '/~2', '/metadata/labels/a~0b', '/spec/ports/99', '/spec/ports/-1', '/spec/ports/01',
];

function jsonPatch(): Json {
  if (chance(0.1)) return randomValue();
  return Array.from({ length: 1 + int(4) }, () => {
    const op: Record<string, Json> = { op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'ADD', 'junk', '']), path: pick(patchPaths) };
    if (chance(0.8)) op.value = chance(0.5) ? randomValue() : scalar();
    if (chance(0.3)) op.from = pick(patchPaths);
    if (chance(0.05)) delete op.path;
    if (chance(0.05)) op.path = 5;
    return op;
  });
}

function strategicPatch(t: Target): Json {
  return pick<() => Json>([
    () => ({ spec: { template: { spec: { containers: [{ name: 'c', $patch: 'delete' }] } } } }),
    () => ({ spec: { containers: [{ name: 'c', image: 'x' }, { name: 'd', image: 'y' }] } }),
    () => ({ spec: { containers: { name: 'c' } } }),
    () => ({ spec: { containers: [5, 'x', null] } }),
    () => ({ $patch: pick(['replace', 'delete', 'merge', 'junk']) }),
    () => ({ spec: { $patch: 'replace', replicas: 1 } }),
    () => ({ metadata: { $deleteFromPrimitiveList: 5, '$deleteFromPrimitiveList/finalizers': pick<Json>([['x'], 'x', [5]]) } }),
    () => ({ spec: { '$setElementOrder/containers': pick<Json>([[{ name: 'x' }], 'x', [5], [{}]]) } }),
    () => ({ spec: { $retainKeys: pick<Json>([['replicas'], 'x', [5]]) } }),
    () => ({ spec: { template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 'x' }, { $patch: 'delete' }] as Json[] }] } } } }),
    () => ({ spec: { ports: [{ port: 80, $patch: 'delete' }, { port: 'x' }] as Json[] } }),
    () => mutateObject(t.template(pick(t.names.length ? t.names : ['x']))),
    () => randomValue(),
  ])();
}

function deleteBody(): Buffer | undefined {
  if (chance(0.5)) return undefined;
  return serialize(
    pick<() => Json>([
      () => ({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: pick(['Foreground', 'Background', 'Orphan', 'junk', 5]) }),
      () => ({ preconditions: { uid: pick<Json>(['x', 5, null]), resourceVersion: pick<Json>(['1', 'abc', 5]) } }),
      () => ({ dryRun: pick<Json>([['All'], ['junk'], 'All', 5]) }),
      () => ({ gracePeriodSeconds: pick<Json>([0, -1, 'x', 1.5]) }),
      () => ({ orphanDependents: pick<Json>([true, 'x']), propagationPolicy: 'Orphan' }),
      () => randomValue(),
    ])(),
  );
}

interface Generated extends RawRequest {
  index: number;
  body?: Buffer;
}

function genRequest(index: number): Generated {
  const t = pick(targets);
  const method = pick(['GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'PUT', 'PATCH', 'PATCH', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO']);
  const path = genPath(t) + genQuery();
  const headers: Record<string, string | undefined> = {};
  if (chance(0.25)) headers.Accept = pick(acceptHeaders);
  let body: Buffer | undefined;
  let contentType: string | undefined;
  const obj = (): Json => {
    const other = chance(0.1) ? pick(targets) : t;
    const base = other.template(pick([...other.names, `fuzz-${index}`]));
    return chance(0.25) ? base : mutateObject(base);
  };
  switch (method) {
    case 'POST':
    case 'PUT': {
      const r = rng();
      if (r < 0.75) {
        body = serialize(obj());
        contentType = 'application/json';
      } else if (r < 0.85) {
        body = toYamlBody(obj());
        contentType = 'application/yaml';
      } else {
        body = corrupt(serialize(obj()));
        contentType = pick(contentTypes);
      }
      break;
    }
    case 'PATCH': {
      const r = rng();
      if (r < 0.3) {
        contentType = 'application/json-patch+json';
        body = serialize(jsonPatch());
      } else if (r < 0.55) {
        contentType = 'application/merge-patch+json';
        body = serialize(chance(0.7) ? mutateObject(t.template(pick([...t.names, 'x']))) : randomValue());
      } else if (r < 0.8) {
        contentType = 'application/strategic-merge-patch+json';
        body = serialize(strategicPatch(t));
      } else if (r < 0.88) {
        contentType = 'application/apply-patch+yaml';
        body = chance(0.5) ? toYamlBody(obj()) : serialize(obj());
      } else {
        contentType = pick(contentTypes);
        body = corrupt(serialize(obj()));
      }
      if (chance(0.1) && body) body = corrupt(body);
      break;
    }
    case 'DELETE':
      body = deleteBody();
      if (body) contentType = chance(0.8) ? 'application/json' : pick(contentTypes);
      break;
    default:
      if (chance(0.05)) {
        body = serialize(randomValue());
        contentType = pick(contentTypes);
      }
  }
  if (contentType !== undefined && chance(0.95)) headers['Content-Type'] = contentType || undefined;
  return { index, method, path, headers, body };
}

// ------------------------------------------------------------------ checking answers

/** kube's answer to a resourceVersion from the future: the one 5xx a client mistake may get. */
function isTooLargeResourceVersion(res: RawResponse): boolean {
  const s = res.json as { reason?: string; message?: string } | undefined;
  return res.status === 504 && s?.reason === 'Timeout' && /Too large resource version/.test(s.message ?? '');
}

/** What is wrong with an answer, or undefined. */
function problem(req: Generated, res: RawResponse): string | undefined {
  // A HEAD answer has no body to tell a Too large resource version apart; its 504 is that one.
  const tooLarge = isTooLargeResourceVersion(res) || (req.method === 'HEAD' && res.status === 504);
  if (res.status >= 500 && !tooLarge) return `a ${res.status} for a client mistake`;
  if (res.status < 400 || req.method === 'HEAD') return undefined;
  const s = res.json as Record<string, unknown> | undefined;
  if (!s || typeof s !== 'object') return 'an error without a JSON body';
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) return `an error with Content-Type ${String(res.headers['content-type'])}`;
  if (s.kind !== 'Status' || s.apiVersion !== 'v1') return 'an error body that is no v1 Status';
  if (s.status !== 'Failure') return `a Status whose status is ${String(s.status)}`;
  if (s.code !== res.status) return `a Status whose code ${String(s.code)} is not the HTTP status ${res.status}`;
  if (typeof s.reason !== 'string' || s.reason === '') return 'a Status without a reason';
  if (typeof s.message !== 'string') return 'a Status without a message';
  if (typeof s.metadata !== 'object' || s.metadata === null) return 'a Status without metadata';
  return undefined;
}

function describeRequest(req: Generated): string {
  const b = req.body;
  const body = b === undefined ? '' : b.length > 300 ? `${JSON.stringify(b.subarray(0, 300).toString('latin1'))}... (${b.length} bytes)` : JSON.stringify(b.toString('latin1'));
  const headers = Object.entries(req.headers ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}: ${v}`)
    .join('; ');
  return `#${req.index} ${req.method} ${req.path.length > 300 ? `${req.path.slice(0, 300)}...` : req.path}${headers ? ` [${headers}]` : ''}${body ? ` body=${body}` : ''}`;
}

// ------------------------------------------------------------------ the test

let server: RunningApiServer;
let client: RawClient;

/** POSTs `body` and insists on 201 Created: a fuzz run against missing fixtures would prove little. */
async function createFixture(path: string, body: unknown): Promise<RawResponse> {
  const res = await client.send({ method: 'POST', path, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 201, `fixture POST ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** Resolves once CRD `name` is Established, i.e. its custom resources are served. */
async function established(name: string): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await client.send({ method: 'GET', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}` });
    const conditions = (res.json as { status?: { conditions?: Array<{ type: string; status: string }> } } | undefined)?.status?.conditions ?? [];
    if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > until) throw new Error(`CRD ${name} was not Established within 10 s: ${res.status} ${res.text.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function setUpFixtures(): Promise<void> {
  await createFixture('/api/v1/namespaces', targets[0].template(ns));
  for (const t of targets.slice(1)) {
    for (const n of t.names) {
      const base = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
      await createFixture(`${base}${t.namespaced ? `/namespaces/${ns}` : ''}/${t.resource}`, t.template(n));
      if (t.resource === 'customresourcedefinitions') await established(n);
    }
  }
}

before(async () => {
  server = await startApiServer({ port: 0 });
  client = new RawClient(server.url, server.caPem, server.adminToken, { streamReadMs: 20, timeoutMs: 20_000 });
  await setUpFixtures();
});

after(async () => {
  client?.close();
  await server?.stop();
});

test(`fuzz: ${count} random and mutated requests (seed ${seed})`, async (t) => {
  rng = seededRandom(seed);
  const started = Date.now();
  const failures: string[] = [];
  const codes = new Map<number, number>();
  const slowest: Array<[number, string]> = [];
  const healthy = async (): Promise<boolean> => {
    try {
      const h = await client.send({ method: 'GET', path: '/healthz', auth: false });
      return h.status === 200 && h.text === 'ok';
    } catch {
      return false;
    }
  };
  for (let i = 0; i < count; i++) {
    const req = genRequest(i);
    if (verbose) t.diagnostic(describeRequest(req));
    let res: RawResponse;
    const sent = Date.now();
    try {
      res = await client.send(req);
      slowest.push([Date.now() - sent, describeRequest(req).slice(0, 200)]);
      slowest.sort((a, b) => b[0] - a[0]);
      slowest.length = Math.min(slowest.length, 5);
    } catch (e) {
      failures.push(`${describeRequest(req)}\n    -> no answer: ${(e as Error).message}`);
      if (!(await healthy())) break;
      continue;
    }
    codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
    const wrong = problem(req, res);
    if (wrong) {
      failures.push(`${describeRequest(req)}\n    -> ${wrong}: ${res.status} ${res.text.slice(0, 400)}`);
      if (dumpDir) {
        mkdirSync(dumpDir, { recursive: true });
        writeFileSync(join(dumpDir, `fuzz-${seed}-${i}.json`), JSON.stringify({ ...req, body: req.body?.toString('base64') }));
      }
    }
    if (i % 50 === 49 && !(await healthy())) {
      failures.push(`after #${i}: the server stopped answering /healthz`);
      break;
    }
    if (Date.now() - started > budgetMs) {
      failures.push(`after #${i}: over the ${budgetMs / 1000} s budget`);
      break;
    }
  }
  const elapsed = Date.now() - started;
  t.diagnostic(`seed ${seed}: ${count} requests in ${elapsed} ms; answers by status: ${[...codes].sort((a, b) => a[0] - b[0]).map(([c, n]) => `${c}×${n}`).join(' ')}`);
  t.diagnostic(`slowest answers: ${slowest.map(([ms, r]) => `${ms} ms ${r}`).join('\n')}`);
  assert.ok(await healthy(), `the server stopped answering /healthz (seed ${seed})`);
  // Still serving real work, not just /healthz: a write and a read in a namespace the fuzz never saw
  // (it may have deleted its own, so a list there could not tell a broken server from a deleted namespace).
  const fresh = `after-fuzz-${seed}`;
  await createFixture('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: fresh } });
  await createFixture(`/api/v1/namespaces/${fresh}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: { seed: String(seed) } });
  const probe = await client.send({ method: 'GET', path: `/api/v1/namespaces/${fresh}/configmaps?limit=1` });
  assert.equal(probe.status, 200, `a plain list after the fuzz: ${probe.status} ${probe.text.slice(0, 200)}`);
  assert.deepEqual((probe.json as { items: Array<{ data?: Record<string, string> }> }).items.map((i) => i.data), [{ seed: String(seed) }]);
  assert.deepEqual(
    failures,
    [],
    `seed ${seed}: ${failures.length} bad answers (reproduce with FUZZ_SEED=${seed}):\n${failures.slice(0, 15).join('\n')}`,
  );
  assert.ok(elapsed < budgetMs, `took ${elapsed} ms`);
});
