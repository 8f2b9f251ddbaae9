/**
 * A malformed strategic merge patch gets kube 1.32's words (issue 17, bug 4),
 * one test per text, over HTTPS:
 * - the strategicpatch library's own errors (k8s.io/apimachinery
 *   pkg/util/strategicpatch/patch.go and pkg/util/mergepatch/errors.go), with
 *   the codes interpretStrategicMergePatchError gives them; those kube passes
 *   through as 500s are answered 400 here, with kube's text (see bad-input.test.ts);
 * - the unstructured converter's errors when the merged map cannot become the
 *   Go type (k8s.io/apimachinery pkg/runtime/converter.go), which
 *   applyPatchToObject (k8s.io/apiserver handlers/patch.go) wraps in a 422 naming
 *   the field `patch` and printing the patch as Go prints a map.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

const cm = '/api/v1/namespaces/default/configmaps/smp';
const secret = '/api/v1/namespaces/default/secrets/smp';
const pod = '/api/v1/namespaces/default/pods/smp';
const deployment = '/apis/apps/v1/namespaces/default/deployments/smp';
const service = '/api/v1/namespaces/default/services/smp';

before(async () => {
  api = await TestApi.start();
  await api.ok('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smp', finalizers: ['example.com/keep'] }, data: { a: 'b' } }, 201);
  await api.ok('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'smp' } }, 201);
  await api.ok('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'smp' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } }, 201);
  await api.ok('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'smp' }, spec: { ports: [{ port: 80 }] } }, 201);
  await api.ok(
    'POST',
    '/apis/apps/v1/namespaces/default/deployments',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'smp' },
      spec: { selector: { matchLabels: { app: 'smp' } }, template: { metadata: { labels: { app: 'smp' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } },
    },
    201,
  );
});
after(async () => {
  // Lets the ConfigMap go, so that the server stops with nothing pending.
  await api?.request('PATCH', cm, { metadata: { finalizers: null } }, { 'Content-Type': 'application/strategic-merge-patch+json' });
  await api?.stop();
});

async function patch(path: string, body: unknown, query = ''): Promise<{ status: number; body: Json }> {
  return api.request('PATCH', path + query, typeof body === 'string' ? body : JSON.stringify(body), { 'Content-Type': 'application/strategic-merge-patch+json' });
}

function status(code: number, reason: string | undefined, message: string, details?: Json): Json {
  const s: Json = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (reason) s.reason = reason;
  if (details) s.details = details;
  return s;
}

/** applyPatchToObject's answer: NewInvalid(GroupKind{}, "", patch: Invalid value: "<%+v of the patch>": <detail>). */
function invalidPatch(printedPatch: string, detail: string): Json {
  const body = `Invalid value: ${JSON.stringify(printedPatch)}: ${detail}`;
  return status(422, 'Invalid', ` "" is invalid: patch: ${body}`, { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] });
}

async function expectAnswer(path: string, body: unknown, expected: Json, query = ''): Promise<void> {
  const res = await patch(path, body, query);
  assert.equal(res.status, expected.code, JSON.stringify(res.body));
  assert.deepEqual(res.body, expected);
}

describe('the merged object cannot become the Go type (runtime.DefaultUnstructuredConverter)', () => {
  it('a map given a string: cannot restore map from string', async () => {
    await expectAnswer(cm, { metadata: { labels: 'x' } }, invalidPatch('map[metadata:map[labels:x]]', 'cannot restore map from string'));
  });

  it('a list given a string: cannot restore slice from string', async () => {
    await expectAnswer(pod, { spec: { containers: 'app' } }, invalidPatch('map[spec:map[containers:app]]', 'cannot restore slice from string'));
  });

  it('a struct given a list: cannot restore struct from: slice', async () => {
    await expectAnswer(deployment, { spec: { template: ['x'] } }, invalidPatch('map[spec:map[template:[x]]]', 'cannot restore struct from: slice'));
  });

  it('a number field given a string: unrecognized type: int32', async () => {
    await expectAnswer(deployment, { spec: { replicas: '3' } }, invalidPatch('map[spec:map[replicas:3]]', 'unrecognized type: int32'));
  });

  it('a number field given a fraction: cannot convert float64 to int32', async () => {
    await expectAnswer(deployment, { spec: { replicas: 1.5 } }, invalidPatch('map[spec:map[replicas:1.5]]', 'cannot convert float64 to int32'));
  });

  it('a string given an integer: cannot convert int64 to string', async () => {
    await expectAnswer(cm, { metadata: { labels: { tier: 1 } } }, invalidPatch('map[metadata:map[labels:map[tier:1]]]', 'cannot convert int64 to string'));
  });

  it('a string given a bool: unrecognized type: string', async () => {
    await expectAnswer(cm, { data: { a: true } }, invalidPatch('map[data:map[a:true]]', 'unrecognized type: string'));
  });

  it('a bool given a string: unrecognized type: bool', async () => {
    await expectAnswer(pod, { spec: { hostNetwork: 'yes' } }, invalidPatch('map[spec:map[hostNetwork:yes]]', 'unrecognized type: bool'));
  });

  it('bytes that are no base64: error decoding from json', async () => {
    await expectAnswer(secret, { data: { key: '!!' } }, invalidPatch('map[data:map[key:!!]]', 'error decoding from json: illegal base64 data at input byte 0'));
  });

  it('a quantity that is none: its own parser\'s words', async () => {
    const body = { spec: { template: { spec: { containers: [{ name: 'app', resources: { limits: { cpu: 'lots' } } }] } } } };
    await expectAnswer(
      deployment,
      body,
      invalidPatch(
        'map[spec:map[template:map[spec:map[containers:[map[name:app resources:map[limits:map[cpu:lots]]]]]]]]',
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ),
    );
  });

  it('an int-or-string given a bool: IntOrString\'s own decoder\'s words', async () => {
    await expectAnswer(
      service,
      { spec: { ports: [{ port: 80, targetPort: true }] } },
      invalidPatch('map[spec:map[ports:[map[port:80 targetPort:true]]]]', 'json: cannot unmarshal bool into Go value of type int32'),
    );
  });

  it('nothing was written by any of them', async () => {
    const current = await api.ok('GET', cm);
    assert.equal(current.metadata.labels, undefined);
    assert.deepEqual(current.data, { a: 'b' });
  });
});

describe('the strategicpatch library\'s errors', () => {
  it('$retainKeys that is no list: 400 invalid patch format of retainKeys', async () => {
    await expectAnswer(cm, { data: { $retainKeys: 'a' } }, status(400, 'BadRequest', 'invalid patch format of retainKeys'));
  });

  it('a malformed $setElementOrder key: 400 invalid patch format of setElementOrder list', async () => {
    await expectAnswer(pod, { spec: { '$setElementOrderX/containers': [{ name: 'app' }] } }, status(400, 'BadRequest', 'invalid patch format of setElementOrder list'));
  });

  it('a malformed $deleteFromPrimitiveList key: 400 invalid patch format of primitive list', async () => {
    await expectAnswer(cm, { metadata: { '$deleteFromPrimitiveListX/finalizers': ['example.com/keep'] } }, status(400, 'BadRequest', 'invalid patch format of primitive list'));
  });

  it('a merged list mixing kinds: list element types are not identical', async () => {
    await expectAnswer(
      cm,
      { metadata: { finalizers: [['example.com/x']] } },
      status(400, 'BadRequest', 'list element types are not identical: [[example.com/keep] [[example.com/x]]]'),
    );
  });

  it('$patch: merge on a list item: merging lists cannot yet be specified in the patch', async () => {
    await expectAnswer(pod, { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }, status(400, 'BadRequest', 'merging lists cannot yet be specified in the patch'));
  });

  it('an unknown $patch directive: unknown patch type', async () => {
    await expectAnswer(cm, { data: { $patch: 'nope' } }, status(400, 'BadRequest', 'unknown patch type: nope in map: map[$patch:nope]'));
  });

  it('$setElementOrder that is no list: expected a []interface {}', async () => {
    await expectAnswer(pod, { spec: { '$setElementOrder/containers': 'app' } }, status(400, 'BadRequest', 'expected a []interface {}, but received a string'));
  });
});

describe('unknown fields under fieldValidation=Strict (handlers/patch.go: both patchers answer NewInvalid)', () => {
  it('a strategic merge patch: 422 naming the patch as a Go map', async () => {
    await expectAnswer(cm, { spec: { x: 1 } }, invalidPatch('map[spec:map[x:1]]', 'strict decoding error: unknown field "spec"'), '?fieldValidation=Strict');
  });

  it('a merge patch: 422 naming the patched object as JSON', async () => {
    const res = await api.request('PATCH', `${secret}?fieldValidation=Strict`, JSON.stringify({ extra: true }), { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.match(res.body.message, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"extra\\":true,\\"kind\\":\\"Secret\\",\\"metadata\\":\{.*\}": strict decoding error: unknown field "extra"$/);
    assert.equal(res.body.details.causes[0].field, 'patch');
  });

  it('the same patches with the default Warn succeed, with kube\'s warning', async () => {
    const res = await api.request('PATCH', secret, JSON.stringify({ extra: true }), { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(res.status, 200);
  });
});
