/**
 * Every built-in API `kubectl api-resources -o wide` lists on a Kubernetes
 * 1.32 cluster, as the embedded server serves it: name, short names, API
 * version, scope, kind, verbs and categories, against
 * test/testdata/kube-1.32-api-resources.json, which
 * scripts/gen-api-resources.ts derives from kube-apiserver's own discovery
 * documents and kubectl 1.32's API kinds. Each difference is listed. Checked
 * twice: the server's discovery read as client-go reads it
 * (ServerPreferredResources), and the real kubectl's table.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { apiResourcesFile, apiResourcesText, defaultKubectl132, deriveApiResources, snapshotSubresources, type ApiResourceRow, type SubresourceEntry } from '../scripts/gen-api-resources.js';
import { TestApi, type Json } from './support/api-client.js';

const expected = (JSON.parse(readFileSync(apiResourcesFile, 'utf8')) as { rows: ApiResourceRow[] }).rows;

let api: TestApi;
let dir: string;
before(async () => {
  api = await TestApi.start();
  dir = mkdtempSync(join(tmpdir(), 'api-resources-'));
  writeFileSync(join(dir, 'kubeconfig'), api.server.kubeconfig);
});
after(async () => {
  await api?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kubectlPath = '/usr/bin/kubectl';
// Said loudly in the test report, never passed silently: these checks need the binaries.
const noKubectl132 = !existsSync(defaultKubectl132) && `kubectl 1.32 not found at ${defaultKubectl132}: the kinds it knows cannot be read`;
const noKubectl = !existsSync(kubectlPath) && `kubectl not found at ${kubectlPath}`;

const keyOf = (r: ApiResourceRow): string => `${r.apiVersion} ${r.name}`;

/** Each row missing, extra or different, in words. */
function differences(actual: ApiResourceRow[], want: ApiResourceRow[]): string[] {
  const have = new Map(actual.map((r) => [keyOf(r), r]));
  const out: string[] = [];
  for (const w of want) {
    const a = have.get(keyOf(w));
    if (!a) out.push(`missing: ${keyOf(w)}`);
    else if (JSON.stringify(a) !== JSON.stringify(w)) out.push(`differs: ${keyOf(w)}: served ${JSON.stringify(a)}, kube ${JSON.stringify(w)}`);
    have.delete(keyOf(w));
  }
  for (const k of have.keys()) out.push(`extra: ${k}`);
  return out;
}

it('the expected rows are what the script derives from its sources (re-run it when they change)', { skip: noKubectl132 }, () => {
  assert.equal(
    readFileSync(apiResourcesFile, 'utf8'),
    apiResourcesText(deriveApiResources()),
    'test/testdata/kube-1.32-api-resources.json is stale: node --conditions=source --import tsx packages/apiserver/scripts/gen-api-resources.ts',
  );
});

it('discovery serves the resources of a 1.32 cluster, read as client-go reads it', async () => {
  const rows: ApiResourceRow[] = [];
  const seen = new Set<string>();
  const add = (group: string, groupVersion: string, preferred: boolean, list: Json): void => {
    for (const r of list.resources as Json[]) {
      if (String(r.name).includes('/')) continue;
      // ServerPreferredResources: the preferred version's resource replaces another version's.
      const gr = `${group}/${r.name}`;
      if (seen.has(gr) && !preferred) continue;
      if (seen.has(gr)) rows.splice(rows.findIndex((x) => keyOf(x).endsWith(` ${r.name}`) && (x.apiVersion.split('/')[0] === group || (group === '' && !x.apiVersion.includes('/')))), 1);
      seen.add(gr);
      rows.push({
        name: r.name,
        shortNames: r.shortNames ?? [],
        apiVersion: groupVersion,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: [...r.verbs].sort(),
        categories: r.categories ?? [],
      });
    }
  };
  add('', 'v1', true, await api.ok('GET', '/api/v1', undefined, 200));
  for (const g of (await api.ok('GET', '/apis', undefined, 200)).groups as Json[]) {
    for (const v of g.versions as Json[]) {
      add(g.name, v.groupVersion, v.version === g.preferredVersion.version, await api.ok('GET', `/apis/${v.groupVersion}`, undefined, 200));
    }
  }
  assert.deepEqual(differences(rows, expected), []);
});

it('the real kubectl api-resources -o wide prints a 1.32 cluster\'s table', { skip: noKubectl }, async () => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      kubectlPath,
      ['--kubeconfig', join(dir, 'kubeconfig'), 'api-resources', '-o', 'wide'],
      { env: { ...process.env, KUBECACHEDIR: join(dir, 'cache') } },
      (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out)),
    ),
  );
  const [header, ...lines] = stdout.trimEnd().split('\n');
  // Columns start where the header's titles do (cells may be empty; VERBS holds spaces).
  const titles = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES'];
  const starts = titles.map((t) => header!.indexOf(t));
  assert.ok(starts.every((s, i) => s >= 0 && (i === 0 || s > starts[i - 1]!)), header);
  const cell = (line: string, i: number): string => line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim();
  const rows: ApiResourceRow[] = lines.map((line) => ({
    name: cell(line, 0),
    shortNames: cell(line, 1) ? cell(line, 1).split(',') : [],
    apiVersion: cell(line, 2),
    namespaced: cell(line, 3) === 'true',
    kind: cell(line, 4),
    // kubectl 1.32 joins them with commas (older ones print `[get list]`).
    verbs: cell(line, 5).replace(/^\[|\]$/g, '').split(/[ ,]/).filter(Boolean),
    categories: cell(line, 6) ? cell(line, 6).split(',') : [],
  }));
  assert.deepEqual(differences(rows, expected), []);
  // And in kubectl's order (group, then name), as on a cluster.
  assert.deepEqual(rows.map(keyOf), expected.map(keyOf));
});

it('lists kube\'s subresources of every GA resource, but for the streaming and proxy ones it does not serve', async () => {
  const want = snapshotSubresources();
  const served: SubresourceEntry[] = [];
  for (const apiVersion of new Set(want.map((w) => w.apiVersion))) {
    const list = await api.ok('GET', apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`, undefined, 200);
    for (const r of list.resources as Json[]) {
      if (!String(r.name).includes('/')) continue;
      served.push({ apiVersion, name: r.name, kind: r.kind, ...(r.group !== undefined ? { group: r.group } : {}), ...(r.version !== undefined ? { version: r.version } : {}), verbs: r.verbs });
    }
  }
  const key = (e: SubresourceEntry): string => `${e.apiVersion} ${e.name}`;
  const have = new Map(served.map((e) => [key(e), e]));
  const diffs: string[] = [];
  for (const w of want) {
    const h = have.get(key(w));
    if (!h) diffs.push(`missing: ${key(w)}`);
    else if (JSON.stringify(h) !== JSON.stringify(w)) diffs.push(`differs: ${key(w)}: served ${JSON.stringify(h)}, kube ${JSON.stringify(w)}`);
    have.delete(key(w));
  }
  for (const k of have.keys()) diffs.push(`extra: ${k}`);
  // Not served here: exec, attach and port-forward stream to a container, the proxies reach a node,
  // pod or service; ephemeral containers are not simulated.
  assert.deepEqual(diffs, [
    'missing: v1 nodes/proxy',
    'missing: v1 pods/attach',
    'missing: v1 pods/ephemeralcontainers',
    'missing: v1 pods/exec',
    'missing: v1 pods/portforward',
    'missing: v1 pods/proxy',
    'missing: v1 services/proxy',
  ]);
});
