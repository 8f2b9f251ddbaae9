/**
 * Client mistakes, over real HTTPS: each gets the metav1.Status kube-apiserver
 * v1.32 sends (code, reason, message text, details), and the server keeps
 * answering /healthz afterwards.
 *
 * Where kube's own answer is a bug or cannot be had in Node, we deliberately
 * differ and say so in the test's name:
 * - an unparsable resourceVersion is a 500 in kube (kubernetes/kubernetes#101350,
 *   #139485), and so are strategic merge patch errors kube passes through
 *   unconverted; we answer 400 BadRequest with kube's message text;
 * - a malformed percent-escape never reaches kube (Go's HTTP server answers a
 *   plain-text 400); we answer a 400 Status with Go's url error text;
 * - bodies may nest 1000 levels here, not Go's 10000 (Node's stack).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from '../src/server.js';
import { RawClient, type RawRequest, type RawResponse } from './support/raw-client.js';

let server: RunningApiServer;
let client: RawClient;

const ns = 'bad-input';
const doomed = 'bad-input-doomed';
const cmPath = `/api/v1/namespaces/${ns}/configmaps`;
const deployPath = `/apis/apps/v1/namespaces/${ns}/deployments`;
const json = { 'Content-Type': 'application/json' };

/** kube's summary of a body that failed to decode (summarizeData in handlers/rest.go). */
function summary(body: string): string {
  const data = Buffer.from(body, 'utf8');
  if (data.length === 0) return '<empty>';
  if (data[0] === 0x7b) return data.length > 30 ? `${data.subarray(0, 30).toString('utf8')} ...` : data.toString('utf8');
  return data.length > 30 ? `${data.subarray(0, 30).toString('hex')} ...` : data.toString('hex');
}

function failure(code: number, reason: string | undefined, message: string, details?: object): object {
  const s: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (reason !== undefined) s.reason = reason;
  if (details !== undefined) s.details = details;
  return s;
}

const badRequest = (message: string): object => failure(400, 'BadRequest', message);

async function send(r: RawRequest): Promise<RawResponse> {
  return client.send(r);
}

async function assertHealthy(): Promise<void> {
  const h = await send({ method: 'GET', path: '/healthz', auth: false });
  assert.equal(h.status, 200, 'the server no longer answers /healthz');
  assert.equal(h.text, 'ok');
}

/** The answer is exactly `expected` (a metav1.Status with the HTTP code as `code`), and the server is still up. */
async function expectStatus(res: RawResponse, expected: object): Promise<void> {
  const want = expected as { code: number };
  assert.equal(res.status, want.code, `HTTP status; body: ${res.text}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.json, expected);
  await assertHealthy();
}

function configMap(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });
}

function deployment(name: string, specExtra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...specExtra,
    },
  };
}

async function currentRevision(): Promise<number> {
  const r = await send({ method: 'GET', path: `${cmPath}?limit=1` });
  return Number((r.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
}

before(async () => {
  // A read at a resourceVersion from the future waits for it (kube's 3 s) before its 504; 100 ms here.
  server = await startApiServer({ port: 0, resourceVersionWaitMs: 100 });
  client = new RawClient(server.url, server.caPem, server.adminToken);
  const ok = async (r: RawRequest, codes = [200, 201]): Promise<void> => {
    const res = await send(r);
    assert.ok(codes.includes(res.status), `${r.method} ${r.path}: ${res.status} ${res.text}`);
  };
  await ok({ method: 'POST', path: '/api/v1/namespaces', headers: json, body: JSON.stringify({ metadata: { name: ns } }) });
  await ok({ method: 'POST', path: cmPath, headers: json, body: configMap('cm1', { data: { a: 'x' } }) });
  await ok({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/pods`,
    headers: json,
    body: JSON.stringify({ metadata: { name: 'pod1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }),
  });
  // A namespace held in Terminating by a finalizer nobody removes.
  await ok({
    method: 'POST',
    path: '/api/v1/namespaces',
    headers: json,
    body: JSON.stringify({ metadata: { name: doomed, finalizers: ['example.com/hold'] } }),
  });
  await ok({ method: 'DELETE', path: `/api/v1/namespaces/${doomed}` });
});

after(async () => {
  client?.close();
  await server?.stop();
});

describe('malformed bodies', () => {
  test('truncated JSON', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}';
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(
      res,
      badRequest(`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (${summary(body)})`),
    );
  });

  test('a trailing comma', async () => {
    const body = '{"metadata": {"name": "x",}}';
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(
      res,
      badRequest(
        `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string (${body})`,
      ),
    );
  });

  test('not JSON at all', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: 'not json' });
    await expectStatus(
      res,
      badRequest(
        "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u') (6e6f74206a736f6e)",
      ),
    );
  });

  test('an empty body', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: '' });
    await expectStatus(
      res,
      badRequest("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)"),
    );
  });

  test('a JSON array instead of an object', async () => {
    const body = '[{"kind":"ConfigMap"}]';
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(
      res,
      badRequest(
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }' +
          ` (${summary(body)})`,
      ),
    );
  });

  test('a kind that is not a string', async () => {
    const body = '{"kind":5,"metadata":{"name":"x"}}';
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(
      res,
      badRequest(
        `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string (${summary(body)})`,
      ),
    );
  });

  test('malformed YAML', async () => {
    const body = 'metadata:\n  name: a: b\n';
    const res = await send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/yaml' }, body });
    await expectStatus(
      res,
      badRequest(`the object provided is unrecognized (must be of type ConfigMap): yaml: line 2: mapping values are not allowed in this context (${summary(body)})`),
    );
  });

  test('YAML indented with a tab', async () => {
    const body = 'metadata:\n\tname: a\n';
    const res = await send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'application/yaml' }, body });
    await expectStatus(
      res,
      badRequest(`the object provided is unrecognized (must be of type ConfigMap): yaml: line 2: found character that cannot start any token (${summary(body)})`),
    );
  });
});

describe('a body that disagrees with the URL', () => {
  test('another kind', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }) });
    await expectStatus(res, badRequest('Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'));
  });

  test('another apiVersion', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: configMap('x').replace('"v1"', '"apps/v1"') });
    await expectStatus(
      res,
      badRequest('ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"'),
    );
  });

  test('the same kind in another group', async () => {
    const body = JSON.stringify({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' } });
    const res = await send({ method: 'POST', path: `/api/v1/namespaces/${ns}/events`, headers: json, body });
    await expectStatus(res, badRequest('the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)'));
  });

  test('an apiVersion that is no group/version', async () => {
    const body = configMap('x').replace('"v1"', '"a/b/c"');
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(res, badRequest(`the object provided is unrecognized (must be of type ConfigMap): unexpected GroupVersion string: a/b/c (${summary(body)})`));
  });

  test('another namespace, on create and on update', async () => {
    const message = 'the namespace of the provided object does not match the namespace sent on the request';
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'elsewhere' } });
    await expectStatus(await send({ method: 'POST', path: cmPath, headers: json, body }), badRequest(message));
    await expectStatus(await send({ method: 'PUT', path: `${cmPath}/cm1`, headers: json, body }), badRequest(message));
  });

  test('a PUT whose name is not the one in the URL', async () => {
    const res = await send({ method: 'PUT', path: `${cmPath}/cm1`, headers: json, body: configMap('other') });
    await expectStatus(res, badRequest('the name of the object (other) does not match the name on the URL (cm1)'));
  });
});

describe('values of the wrong type', () => {
  test('a string where kube wants an int32', async () => {
    const body = JSON.stringify(deployment('typed', { replicas: '2' }));
    const res = await send({ method: 'POST', path: deployPath, headers: json, body });
    await expectStatus(
      res,
      badRequest('Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'),
    );
  });

  test('metadata that is no object', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: JSON.stringify({ metadata: 'x' }) });
    await expectStatus(res, badRequest('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'));
  });

  test('a map of strings holding a number', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: configMap('typed', { data: { a: 1 } }) });
    await expectStatus(res, badRequest('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'));
  });

  test('secret data that is no base64', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'abc!' } });
    const res = await send({ method: 'POST', path: `/api/v1/namespaces/${ns}/secrets`, headers: json, body });
    await expectStatus(res, badRequest('Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3'));
  });

  test('nulls decode as Go decodes them: a null in a map is its zero value', async () => {
    const body = JSON.stringify({ metadata: { name: 'nulls', labels: { a: null }, annotations: null }, data: { k: null } });
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    assert.equal(res.status, 201, res.text);
    const cm = res.json as { metadata: { labels: Record<string, string>; annotations?: unknown }; data: Record<string, string> };
    assert.deepEqual(cm.metadata.labels, { a: '' });
    assert.equal(cm.metadata.annotations, undefined);
    assert.deepEqual(cm.data, { k: '' });
    await assertHealthy();
  });
});

describe('invalid objects', () => {
  const subdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const label =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

  test('a name that is no DNS-1123 subdomain', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: configMap('Bad_Name') });
    const detail = `Invalid value: "Bad_Name": ${subdomain}`;
    await expectStatus(
      res,
      failure(422, 'Invalid', `ConfigMap "Bad_Name" is invalid: metadata.name: ${detail}`, {
        name: 'Bad_Name',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'metadata.name' }],
      }),
    );
  });

  test('a name longer than 253 characters', async () => {
    const name = 'a'.repeat(254);
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: configMap(name) });
    const detail = `Invalid value: "${name}": must be no more than 253 characters`;
    await expectStatus(
      res,
      failure(422, 'Invalid', `ConfigMap "${name}" is invalid: metadata.name: ${detail}`, {
        name,
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'metadata.name' }],
      }),
    );
  });

  test('a namespace name that is no DNS-1123 label', async () => {
    // A valid subdomain that is no label gets kube's shorter "must not contain dots".
    for (const [name, why] of [
      ['Bad-NS', label],
      ['bad.ns', 'must not contain dots'],
    ]) {
      const res = await send({ method: 'POST', path: '/api/v1/namespaces', headers: json, body: JSON.stringify({ metadata: { name } }) });
      const detail = `Invalid value: "${name}": ${why}`;
      await expectStatus(
        res,
        failure(422, 'Invalid', `Namespace "${name}" is invalid: metadata.name: ${detail}`, {
          name,
          kind: 'Namespace',
          causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'metadata.name' }],
        }),
      );
    }
  });

  test('no name at all (a null body decodes to an empty object)', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: json, body: 'null' });
    const detail = 'Required value: name or generateName is required';
    await expectStatus(
      res,
      failure(422, 'Invalid', `ConfigMap "" is invalid: metadata.name: ${detail}`, {
        name: '',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueRequired', message: detail, field: 'metadata.name' }],
      }),
    );
  });
});

describe('unknown fields', () => {
  test('fieldValidation=Strict refuses them', async () => {
    const body = JSON.stringify(deployment('strict', { x: 1 }));
    const res = await send({ method: 'POST', path: `${deployPath}?fieldValidation=Strict`, headers: json, body });
    await expectStatus(res, badRequest('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.x"'));
  });

  test('fieldValidation=Warn (and the default) accepts them with a Warning header', async () => {
    for (const [name, query] of [
      ['warn', '?fieldValidation=Warn'],
      ['default', ''],
    ]) {
      const res = await send({ method: 'POST', path: `${deployPath}${query}`, headers: json, body: JSON.stringify(deployment(name, { x: 1 })) });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.warning, '299 - "unknown field \\"spec.x\\""');
      assert.equal((res.json as { spec: Record<string, unknown> }).spec.x, undefined);
      await assertHealthy();
    }
  });

  test('fieldValidation=Ignore drops them silently', async () => {
    const res = await send({ method: 'POST', path: `${deployPath}?fieldValidation=Ignore`, headers: json, body: JSON.stringify(deployment('ignore', { x: 1 })) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
    await assertHealthy();
  });
});

describe('unknown resources and paths', () => {
  const notFound = failure(404, 'NotFound', 'the server could not find the requested resource', {});
  for (const path of [
    `/api/v1/namespaces/${ns}/foos`,
    '/api/v1/foos/x',
    '/apis/example.com/v1/widgets',
    '/apis/apps/v9/deployments',
    `/api/v1/namespaces/${ns}/configmaps/cm1/nosuchsubresource`,
    `/api/v1/namespaces/${ns}/nodes`,
    '/api/v1/namespaces/a/configmaps/b/c/d',
    '/no/such/path',
  ]) {
    test(`GET ${path}`, async () => {
      await expectStatus(await send({ method: 'GET', path }), notFound);
    });
  }

  test('an object that does not exist', async () => {
    const res = await send({ method: 'GET', path: `${cmPath}/nope` });
    await expectStatus(res, failure(404, 'NotFound', 'configmaps "nope" not found', { name: 'nope', kind: 'configmaps' }));
  });
});

describe('selectors', () => {
  test('a malformed label selector', async () => {
    for (const [selector, message] of [
      ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
      ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ]) {
      const res = await send({ method: 'GET', path: `${cmPath}?labelSelector=${encodeURIComponent(selector)}` });
      await expectStatus(res, badRequest(message));
    }
  });

  test('a malformed field selector', async () => {
    const res = await send({ method: 'GET', path: `${cmPath}?fieldSelector=a` });
    await expectStatus(res, badRequest("invalid selector: 'a'; can't understand 'a'"));
  });

  test('a field the kind does not select by (pods have a field-label conversion)', async () => {
    for (const verb of ['list', 'watch']) {
      const watch = verb === 'watch' ? '&watch=true' : '';
      const res = await send({ method: 'GET', path: `/api/v1/namespaces/${ns}/pods?fieldSelector=spec.foo%3Dx${watch}` });
      await expectStatus(res, badRequest('field label not supported: spec.foo'));
    }
  });

  test('a field the kind does not select by (configmaps only know metadata.name and metadata.namespace)', async () => {
    const res = await send({ method: 'GET', path: `${cmPath}?fieldSelector=data.a%3Dx` });
    await expectStatus(res, badRequest('"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"'));
  });
});

describe('resourceVersions', () => {
  test('not a number (kube: 500, a known kube bug; we answer 400 with kube\'s text)', async () => {
    for (const suffix of ['', '&watch=true']) {
      const res = await send({ method: 'GET', path: `${cmPath}?resourceVersion=abc${suffix}` });
      await expectStatus(res, badRequest('resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax'));
    }
    const neg = await send({ method: 'GET', path: `${cmPath}?resourceVersion=-1` });
    await expectStatus(neg, badRequest('resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax'));
  });

  test('in the future: 504 Too large resource version, on list and on get', async () => {
    for (const path of [`${cmPath}?resourceVersion=999999999`, `${cmPath}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`, `${cmPath}/cm1?resourceVersion=999999999`]) {
      const current = await currentRevision();
      const res = await send({ method: 'GET', path });
      await expectStatus(
        res,
        failure(504, 'Timeout', `Timeout: Too large resource version: 999999999, current: ${current}`, {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        }),
      );
      assert.equal(res.headers['retry-after'], '1');
    }
  });
});

describe('patch bodies', () => {
  const patch = (type: string, body: string): Promise<RawResponse> =>
    send({ method: 'PATCH', path: `${cmPath}/cm1`, headers: { 'Content-Type': `application/${type}` }, body });

  test('malformed JSON in each patch type', async () => {
    await expectStatus(await patch('merge-patch+json', '{'), badRequest('error decoding patch: unexpected end of JSON input'));
    await expectStatus(await patch('json-patch+json', '[{"op":}]'), badRequest("error decoding patch: invalid character '}' looking for beginning of value"));
    await expectStatus(await patch('strategic-merge-patch+json', '{"data":'), badRequest('unexpected end of JSON input'));
  });

  test("a strategic merge patch list item without its merge key (kube: 500, passed through unconverted; we answer 400 with kube's text)", async () => {
    const res = await send({
      method: 'PATCH',
      path: `/api/v1/namespaces/${ns}/pods/pod1`,
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify({ spec: { containers: [{ image: 'x' }] } }),
    });
    await expectStatus(res, badRequest('map: map[image:x] does not contain declared merge key: name'));
  });

  test('a patch of the wrong shape', async () => {
    await expectStatus(await patch('json-patch+json', '{}'), badRequest('error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'));
    await expectStatus(await patch('merge-patch+json', '[]'), badRequest('error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'));
    await expectStatus(await patch('strategic-merge-patch+json', '"x"'), badRequest('json: cannot unmarshal string into Go value of type map[string]interface {}'));
  });
});

describe('request bodies and media types', () => {
  test('a body over 3 MiB', async () => {
    const body = configMap('big', { data: { a: 'x'.repeat(3 * 1024 * 1024) } });
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(res, failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
  });

  test(
    'a patch in an unsupported content type',
    async () => {
      const res = await send({ method: 'PATCH', path: `${cmPath}/cm1`, headers: { 'Content-Type': 'text/plain' }, body: '{}' });
      await expectStatus(
        res,
        failure(
          415,
          'UnsupportedMediaType',
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
        ),
      );
    },
  );

  test('a patch in an unsupported content type: code and reason', async () => {
    const res = await send({ method: 'PATCH', path: `${cmPath}/cm1`, headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(res.status, 415);
    assert.equal((res.json as { reason: string }).reason, 'UnsupportedMediaType');
    assert.equal((res.json as { code: number }).code, 415);
    await assertHealthy();
  });

  test('a create in an unsupported content type', async () => {
    const res = await send({ method: 'POST', path: cmPath, headers: { 'Content-Type': 'text/plain' }, body: configMap('t') });
    await expectStatus(
      res,
      failure(
        415,
        'UnsupportedMediaType',
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ),
    );
  });

  test('a JSON patch whose test operation fails', async () => {
    const res = await send({
      method: 'PATCH',
      path: `${cmPath}/cm1`,
      headers: { 'Content-Type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'test', path: '/data/a', value: 'not-x' }, { op: 'replace', path: '/data/a', value: 'y' }]),
    });
    await expectStatus(res, failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {}));
    const cm = await send({ method: 'GET', path: `${cmPath}/cm1` });
    assert.equal((cm.json as { data: { a: string } }).data.a, 'x', 'the failed patch changed nothing');
  });

  test(
    'an Accept header the server cannot satisfy',
    { todo: 'kube also offers application/vnd.kubernetes.protobuf; the server decodes protobuf requests but does not answer in protobuf' },
    async () => {
      const res = await send({ method: 'GET', path: cmPath, headers: { Accept: 'application/xml' } });
      await expectStatus(
        res,
        failure(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'),
      );
    },
  );

  test('an Accept header the server cannot satisfy: code, reason and the types it offers', async () => {
    for (const accept of ['application/xml', 'text/html', 'application/json;as=Unknown;g=meta.k8s.io;v=v1']) {
      const res = await send({ method: 'GET', path: cmPath, headers: { Accept: accept } });
      assert.equal(res.status, 406, res.text);
      const status = res.json as { kind: string; reason: string; code: number; message: string };
      assert.equal(status.kind, 'Status');
      assert.equal(status.reason, 'NotAcceptable');
      assert.equal(status.code, 406);
      assert.match(status.message, /^only the following media types are accepted: application\/json, application\/yaml/);
      await assertHealthy();
    }
  });
});

describe('paths and methods', () => {
  test('a malformed percent-escape in the path (kube\'s Go HTTP server answers a plain-text 400)', async () => {
    const res = await send({ method: 'GET', path: '/api/v1/namespaces/%ZZ/configmaps' });
    await expectStatus(res, badRequest('invalid URL escape "%ZZ"'));
  });

  test('a path segment that is no UTF-8 is just a name that does not exist', async () => {
    const res = await send({ method: 'GET', path: `${cmPath}/%C3%28` });
    await expectStatus(res, failure(404, 'NotFound', 'configmaps "\ufffd(" not found', { name: '\ufffd(', kind: 'configmaps' }));
  });

  test('a method the API does not serve', async () => {
    for (const method of ['OPTIONS', 'TRACE']) {
      const res = await send({ method, path: cmPath });
      await expectStatus(res, failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
    }
  });

  test('a verb the resource does not serve', async () => {
    const res = await send({ method: 'GET', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews' });
    await expectStatus(res, failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
  });

  test('a body nested deeper than the server takes (kube: 10000 levels; here 1000)', async () => {
    const body = `{"metadata":{"name":"deep"},"data":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}`;
    const res = await send({ method: 'POST', path: cmPath, headers: json, body });
    await expectStatus(
      res,
      badRequest(`the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${summary(body)})`),
    );
  });
});

describe('namespaces', () => {
  test('the system namespaces cannot be deleted', async () => {
    for (const name of ['default', 'kube-system']) {
      const res = await send({ method: 'DELETE', path: `/api/v1/namespaces/${name}` });
      await expectStatus(res, failure(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, kind: 'namespaces' }));
    }
  });

  test('a create into a namespace that does not exist', async () => {
    const res = await send({ method: 'POST', path: '/api/v1/namespaces/nope/configmaps', headers: json, body: configMap('c') });
    await expectStatus(res, failure(404, 'NotFound', 'namespaces "nope" not found', { name: 'nope', kind: 'namespaces' }));
  });

  test('a create into a Terminating namespace', async () => {
    const ns = await send({ method: 'GET', path: `/api/v1/namespaces/${doomed}` });
    assert.equal((ns.json as { status: { phase: string } }).status.phase, 'Terminating');
    const res = await send({ method: 'POST', path: `/api/v1/namespaces/${doomed}/configmaps`, headers: json, body: configMap('c') });
    await expectStatus(
      res,
      failure(403, 'Forbidden', `configmaps "c" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`, {
        name: 'c',
        kind: 'configmaps',
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${doomed} is being terminated`, field: 'metadata.namespace' }],
      }),
    );
  });
});

describe('authentication', () => {
  test('no token, and a wrong token', async () => {
    const unauthorized = failure(401, 'Unauthorized', 'Unauthorized');
    await expectStatus(await send({ method: 'GET', path: cmPath, auth: false }), unauthorized);
    await expectStatus(await send({ method: 'GET', path: cmPath, auth: false, headers: { Authorization: 'Bearer not-the-token' } }), unauthorized);
  });
});
