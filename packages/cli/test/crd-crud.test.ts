/**
 * Custom resources behave like built-ins for reading and writing: field
 * selectors (metadata.name and a CRD's selectableFields), label selectors,
 * `get -w`, chunked lists, JSON and merge patches (strategic merge refused with
 * kube's 415), and garbage collection of a CR owned by another CR.
 */
import { before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, kubectlOk } from './harness.js';
import { RunningKubectl, applyYaml, header, kit, kubectlFails, row, serverForFile, tableRows } from './kubectl-support.js';
import { crdYaml, fixturePath } from './crd-support.js';

const server = serverForFile();

/** The Shirt CRD of the Kubernetes docs' selectableFields example. */
const shirtsCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: shirts.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: shirts
    singular: shirt
    kind: Shirt
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color:
                type: string
              size:
                type: string
    selectableFields:
    - jsonPath: .spec.color
    - jsonPath: .spec.size
    additionalPrinterColumns:
    - jsonPath: .spec.color
      name: Color
      type: string
    - jsonPath: .spec.size
      name: Size
      type: string
`;

const shirt = (name: string, color: string, size: string, labels = '{}'): string =>
  `apiVersion: stable.example.com/v1\nkind: Shirt\nmetadata: {name: ${name}, namespace: shop, labels: ${labels}}\nspec: {color: ${color}, size: ${size}}\n`;

const cronTab = (name: string, replicas = 1): string =>
  `apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: ${name}, namespace: shop}\nspec: {cronSpec: "* * * * */5", image: busybox, replicas: ${replicas}}\n`;

describe('selectors', () => {
  before(async () => {
    if (!hasKubectl) return;
    const s = server();
    await kubectlOk(s, ['create', 'namespace', 'shop']);
    await applyYaml(s, shirtsCrd);
    await applyYaml(
      s,
      [shirt('example1', 'blue', 'S', '{tier: basic}'), shirt('example2', 'blue', 'M', '{tier: premium}'), shirt('example3', 'green', 'M', '{tier: premium, sale: "true"}')].join('---\n'),
    );
  });

  kit('selectableFields: --field-selector spec.color=blue, as in the docs', async () => {
    const out = await kubectlOk(server(), ['get', 'shirts.stable.example.com', '-n', 'shop', '--field-selector', 'spec.color=blue']);
    // Declared printer columns replace the default Age column: as in the docs, NAME COLOR SIZE.
    assert.deepEqual(header(out), ['NAME', 'COLOR', 'SIZE']);
    assert.deepEqual(
      tableRows(out).slice(1).map((r) => r.slice(0, 3)),
      [
        ['example1', 'blue', 'S'],
        ['example2', 'blue', 'M'],
      ],
    );
    const two = await kubectlOk(server(), ['get', 'shirts', '-n', 'shop', '--field-selector', 'spec.color!=blue,spec.size=M', '-o', 'name']);
    assert.equal(two.trim(), 'shirt.stable.example.com/example3');
  });

  kit('metadata.name and metadata.namespace field selectors; an undeclared field is refused', async () => {
    const s = server();
    assert.equal((await kubectlOk(s, ['get', 'shirts', '-n', 'shop', '--field-selector', 'metadata.name=example2', '-o', 'name'])).trim(), 'shirt.stable.example.com/example2');
    assert.equal(
      (await kubectlOk(s, ['get', 'shirts', '-A', '--field-selector', 'metadata.namespace=shop,metadata.name!=example1', '-o', 'name'])).trim(),
      'shirt.stable.example.com/example2\nshirt.stable.example.com/example3',
    );
    const bad = await kubectlFails(s, ['get', 'shirts', '-n', 'shop', '--field-selector', 'spec.material=cotton']);
    assert.match(bad.stderr, /Error from server \(BadRequest\): Unable to find "stable\.example\.com\/v1, Resource=shirts" that match label selector "", field selector "spec\.material=cotton": field label not supported: spec\.material/);
  });

  kit('label selectors, equality and set-based', async () => {
    const s = server();
    const names = async (selector: string): Promise<string[]> =>
      (await kubectlOk(s, ['get', 'shirts', '-n', 'shop', '-l', selector, '-o', 'name'])).trim().split('\n').filter(Boolean).map((n) => n.split('/')[1]);
    assert.deepEqual(await names('tier=premium'), ['example2', 'example3']);
    assert.deepEqual(await names('tier in (basic),!sale'), ['example1']);
    assert.deepEqual(await names('tier notin (basic),sale'), ['example3']);
    const shown = await kubectlOk(s, ['get', 'shirts', '-n', 'shop', '-l', 'sale', '--show-labels']);
    assert.deepEqual(header(shown), ['NAME', 'COLOR', 'SIZE', 'LABELS']);
    assert.deepEqual(row(shown, 'example3'), ['example3', 'green', 'M', 'sale=true,tier=premium']);
  });
});

describe('watch and chunked lists', () => {
  before(async () => {
    if (!hasKubectl) return;
    await kubectlOk(server(), ['apply', '-f', fixturePath('crontab-crd.yaml')]);
  });

  kit('get -w prints the CRD\'s columns and follows adds, changes and deletes', async () => {
    const s = server();
    await applyYaml(s, cronTab('first'));
    const w = new RunningKubectl(s, ['get', 'crontabs', '-n', 'shop', '-w', '--output-watch-events']);
    try {
      await w.waitForLine(/^EVENT\s+NAME\s+SPEC\s+REPLICAS\s+AGE$/);
      const first = await w.waitForLine(/^ADDED\s+first\s+\* \* \* \* \*\/5\s+1\s+\S+$/);
      await applyYaml(s, cronTab('second', 2));
      const added = await w.waitForLine(/^ADDED\s+second\s+\* \* \* \* \*\/5\s+2\s+\S+$/, first.index + 1);
      await kubectlOk(s, ['scale', 'crontab/second', '-n', 'shop', '--replicas=4']);
      const modified = await w.waitForLine(/^MODIFIED\s+second\s+\* \* \* \* \*\/5\s+4\s+\S+$/, added.index + 1);
      await kubectlOk(s, ['delete', 'crontab', 'second', '-n', 'shop']);
      await w.waitForLine(/^DELETED\s+second\s+\* \* \* \* \*\/5\s+4\s+\S+$/, modified.index + 1);
    } finally {
      await w.kill();
    }
  });

  kit('get -w with a label selector: an object leaving the selector arrives as DELETED', async () => {
    const s = server();
    await applyYaml(s, cronTab('labelled'));
    await kubectlOk(s, ['label', 'crontab', 'labelled', '-n', 'shop', 'team=a']);
    const w = new RunningKubectl(s, ['get', 'crontabs', '-n', 'shop', '-l', 'team=a', '-w', '--output-watch-events']);
    try {
      const added = await w.waitForLine(/^ADDED\s+labelled\s/);
      await kubectlOk(s, ['label', 'crontab', 'labelled', '-n', 'shop', 'team=b', '--overwrite']);
      await w.waitForLine(/^DELETED\s+labelled\s/, added.index + 1);
    } finally {
      await w.kill();
    }
  });

  kit('--chunk-size pages through the list with limit and continue, and prints one table', async () => {
    const s = server();
    await applyYaml(s, Array.from({ length: 7 }, (_, i) => cronTab(`page-${i}`)).join('---\n'));
    const r = await kubectl(s, ['get', 'crontabs', '-n', 'shop', '-l', '!team', '--chunk-size=3', '-v=6']);
    assert.equal(r.code, 0, r.stderr);
    const requests = r.stderr.split('\n').filter((l) => /GET \S+\/crontabs\?/.test(l));
    assert.equal(requests.length, 3, requests.join('\n'));
    assert.match(requests[0], /limit=3/);
    assert.match(requests[1], /continue=/);
    assert.match(requests[2], /continue=/);
    const rows = tableRows(r.stdout);
    assert.deepEqual(rows[0], ['NAME', 'SPEC', 'REPLICAS', 'AGE']);
    assert.deepEqual(
      rows.slice(1).map((c) => c[0]),
      ['first', ...Array.from({ length: 7 }, (_, i) => `page-${i}`)],
    );
  });
});

describe('patches', () => {
  before(async () => {
    if (!hasKubectl) return;
    await kubectlOk(server(), ['apply', '-f', fixturePath('crontab-crd.yaml')]);
    await applyYaml(server(), cronTab('patched', 2));
  });

  const spec = async (): Promise<Record<string, unknown>> => JSON.parse(await kubectlOk(server(), ['get', 'crontab', 'patched', '-n', 'shop', '-o', 'json'])).spec;

  kit('--type merge and --type json', async () => {
    const s = server();
    assert.equal((await kubectlOk(s, ['patch', 'crontab', 'patched', '-n', 'shop', '--type=merge', '-p', '{"spec":{"replicas":3,"image":null}}'])).trim(), 'crontab.stable.example.com/patched patched');
    assert.deepEqual(await spec(), { cronSpec: '* * * * */5', replicas: 3 });
    await kubectlOk(s, ['patch', 'crontab', 'patched', '-n', 'shop', '--type=json', '-p', '[{"op":"add","path":"/spec/image","value":"nginx"},{"op":"replace","path":"/spec/replicas","value":5}]']);
    assert.deepEqual(await spec(), { cronSpec: '* * * * */5', image: 'nginx', replicas: 5 });
    // A patch that breaks the schema is refused like any write.
    const r = await kubectlFails(s, ['patch', 'crontab', 'patched', '-n', 'shop', '--type=merge', '-p', '{"spec":{"replicas":50}}']);
    assert.match(r.stderr, /^The CronTab "patched" is invalid: spec\.replicas: Invalid value: 50: spec\.replicas in body should be less than or equal to 10$/m);
  });

  kit('--type strategic is refused with 415 and kube\'s list of accepted types', async () => {
    const r = await kubectlFails(server(), ['patch', 'crontab', 'patched', '-n', 'shop', '--type=strategic', '-p', '{"spec":{"replicas":1}}', '-v=6']);
    assert.match(r.stderr, /PATCH https:\S+\/crontabs\/patched\S* 415 Unsupported Media Type/);
    assert.match(
      r.stderr,
      /^error: application\/strategic-merge-patch\+json is not supported by stable\.example\.com\/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/m,
    );
  });

  kit('kubectl patch without --type uses strategic merge and fails the same way for a CR', async () => {
    const r = await kubectlFails(server(), ['patch', 'crontab', 'patched', '-n', 'shop', '-p', '{"spec":{"replicas":1}}']);
    assert.match(r.stderr, /^error: application\/strategic-merge-patch\+json is not supported by stable\.example\.com\/v1, Kind=CronTab: the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json/m);
  });
});

describe('garbage collection', () => {
  before(async () => {
    if (!hasKubectl) return;
    const s = server();
    await kubectlOk(s, ['apply', '-f', fixturePath('crontab-crd.yaml')]);
    await applyYaml(s, crdYaml({ group: 'batch.example.com', kind: 'Run', schema: 'type: object\nx-kubernetes-preserve-unknown-fields: true' }));
  });

  /** Creates a CronTab owner and `n` Run CRs owned by it; returns the owner's uid. */
  async function family(owner: string, n: number): Promise<string> {
    const s = server();
    await applyYaml(s, cronTab(owner));
    const uid = (await kubectlOk(s, ['get', 'crontab', owner, '-n', 'shop', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const runs = Array.from(
      { length: n },
      (_, i) => `apiVersion: batch.example.com/v1
kind: Run
metadata:
  name: ${owner}-run-${i}
  namespace: shop
  ownerReferences:
  - {apiVersion: stable.example.com/v1, kind: CronTab, name: ${owner}, uid: ${uid}, controller: true, blockOwnerDeletion: true}
`,
    );
    await applyYaml(s, runs.join('---\n'));
    return uid;
  }

  const runsOf = async (owner: string): Promise<string[]> =>
    (await kubectlOk(server(), ['get', 'runs', '-n', 'shop', '-o', 'name'])).split('\n').filter((n) => n.includes(`/${owner}-run-`));

  kit('deleting the owner CR deletes the CRs it owns (background)', async () => {
    const s = server();
    await family('nightly', 2);
    assert.equal((await runsOf('nightly')).length, 2);
    await kubectlOk(s, ['delete', 'crontab', 'nightly', '-n', 'shop']);
    // The collector works in the background: wait for it (kubectl prints nothing if they are already gone).
    await kubectlOk(s, ['wait', '--for=delete', 'run/nightly-run-0', 'run/nightly-run-1', '-n', 'shop', '--timeout=10s']);
    assert.deepEqual(await runsOf('nightly'), []);
  });

  kit('--cascade=foreground removes the dependents before the owner; --cascade=orphan keeps them', async () => {
    const s = server();
    await family('weekly', 1);
    await kubectlOk(s, ['delete', 'crontab', 'weekly', '-n', 'shop', '--cascade=foreground']);
    assert.deepEqual(await runsOf('weekly'), []);
    assert.match((await kubectlFails(s, ['get', 'crontab', 'weekly', '-n', 'shop'])).stderr, /NotFound/);

    await family('monthly', 1);
    await kubectlOk(s, ['delete', 'crontab', 'monthly', '-n', 'shop', '--cascade=orphan']);
    const run = JSON.parse(await kubectlOk(s, ['get', 'run', 'monthly-run-0', '-n', 'shop', '-o', 'json']));
    assert.equal(run.metadata.ownerReferences, undefined);
  });
});
