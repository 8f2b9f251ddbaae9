import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatusError } from '@operant/apimachinery';
import { builtinResources } from '../registry/builtin-resources.js';
import { decodeKubeProtobuf, goDuration, kubeProtobufMediaType, missingDescriptorReferences } from './decode.js';

// --- A tiny protobuf writer for hand-made bodies -------------------------------------------

function varint(n: bigint | number): number[] {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function key(field: number, wire: number): number[] {
  return varint((field << 3) | wire);
}

function num(field: number, n: bigint | number): Buffer {
  return Buffer.from([...key(field, 0), ...varint(n)]);
}

function len(field: number, value: string | Uint8Array): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([Buffer.from([...key(field, 2), ...varint(bytes.length)]), bytes]);
}

function msg(...parts: Buffer[]): Buffer {
  return Buffer.concat(parts);
}

const magic = Buffer.from('k8s\x00', 'latin1');

/** `k8s\x00` + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
function body(apiVersion: string, kind: string, raw: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([magic, len(1, msg(len(1, apiVersion), len(2, kind))), len(2, raw)]);
}

function statusOf(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('expected an error');
}

// --- Real kubectl bodies -------------------------------------------------------------------

const kubectl = '/usr/bin/kubectl';

interface Capture {
  path: string;
  contentType: string;
  body: Buffer;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(kubectl, args, { env, timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A stand-in API server: answers /version as v1.32 (the /usr/bin/kubectl
 * dispatcher picks the kubectl matching the server), records each POST body and
 * echoes the decoded object back as JSON, so kubectl's own `<kind>/<name> created`
 * shows the decoding round-tripped.
 */
async function recordingServer(): Promise<{ server: Server; url: string; captures: Capture[] }> {
  const captures: Capture[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reqBody = Buffer.concat(chunks);
      const json = (code: number, value: unknown): void => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.url?.startsWith('/version')) {
        json(200, { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' });
        return;
      }
      if (req.method !== 'POST') {
        json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' });
        return;
      }
      captures.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: reqBody });
      try {
        const { object } = decodeKubeProtobuf(reqBody);
        if (object.kind === 'TokenRequest') object.status = { token: 'tok', expirationTimestamp: '2030-01-01T00:00:00Z' };
        json(201, object);
      } catch (e) {
        const status = e instanceof StatusError ? e.status : { kind: 'Status', apiVersion: 'v1', code: 500, message: String(e) };
        json(status.code, status);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, captures };
}

/**
 * Deep equality under Go's decoding: a key missing on one side equals null or a
 * zero scalar on the other (Go's omitempty and zero values), so kubectl's own
 * `-o json` output can be compared with the decoded protobuf.
 */
function assertGoEquivalent(actual: unknown, expected: unknown, path = '$'): void {
  const isZero = (v: unknown): boolean => v === null || v === undefined || v === 0 || v === '' || v === false;
  if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) {
    assert.ok(typeof actual === 'object' && actual !== null && !Array.isArray(actual), `${path}: expected an object, got ${JSON.stringify(actual)}`);
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    for (const k of new Set([...Object.keys(a), ...Object.keys(e)])) {
      if (!(k in a) && isZero(e[k])) continue;
      if (!(k in e) && isZero(a[k])) continue;
      assert.ok(k in a && k in e, `${path}.${k}: ${JSON.stringify(a[k])} vs ${JSON.stringify(e[k])}`);
      assertGoEquivalent(a[k], e[k], `${path}.${k}`);
    }
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`);
    expected.forEach((v, i) => assertGoEquivalent(actual[i], v, `${path}[${i}]`));
  } else {
    assert.deepEqual(actual, expected, path);
  }
}

test('decodes the protobuf bodies the real kubectl sends', async (t) => {
  if (!existsSync(kubectl)) {
    t.skip(`kubectl not found at ${kubectl}: the real-kubectl protobuf tests did NOT run`);
    return;
  }
  const home = mkdtempSync(join(tmpdir(), 'operant-kubectl-'));
  const kubeconfig = join(home, 'kubeconfig');
  writeFileSync(kubeconfig, '');
  const env = { ...process.env, HOME: home, KUBECONFIG: kubeconfig };
  const { server, url, captures } = await recordingServer();
  try {
    const cases: Array<{ args: string; path: string; check: (o: Record<string, unknown>) => void }> = [
      {
        args: 'create namespace foo',
        path: '/api/v1/namespaces',
        check: (o) => assert.deepEqual(o, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'foo' }, spec: {}, status: {} }),
      },
      {
        args: 'create configmap cm --from-literal=a=b --from-literal=empty= -n default',
        path: '/api/v1/namespaces/default/configmaps',
        check: (o) => {
          assert.deepEqual(o.metadata, { name: 'cm', namespace: 'default' });
          assert.deepEqual(o.data, { a: 'b', empty: '' }); // map values keep empty strings
        },
      },
      {
        args: 'create secret generic s --from-literal=k=v --type=Opaque',
        path: '/api/v1/namespaces/default/secrets',
        check: (o) => {
          assert.deepEqual(o.data, { k: Buffer.from('v').toString('base64') });
          assert.equal(o.type, 'Opaque');
        },
      },
      {
        args: 'create deployment web --image=nginx --replicas=2',
        path: '/apis/apps/v1/namespaces/default/deployments',
        check: (o) => {
          assert.equal(o.apiVersion, 'apps/v1');
          const spec = o.spec as { replicas: number; template: { spec: { containers: Array<{ name: string; image: string }> } } };
          assert.equal(spec.replicas, 2);
          assert.equal(spec.template.spec.containers[0].image, 'nginx');
          assert.equal(spec.template.spec.containers[0].name, 'nginx');
        },
      },
      {
        args: 'create deployment zero --image=nginx --replicas=0',
        path: '/apis/apps/v1/namespaces/default/deployments',
        // replicas is a pointer in Go: an explicit 0 must survive.
        check: (o) => assert.equal((o.spec as { replicas: number }).replicas, 0),
      },
      {
        args: 'create service clusterip svc --tcp=80:8080 --tcp=443:https',
        path: '/api/v1/namespaces/default/services',
        check: (o) => {
          const ports = (o.spec as { ports: Array<Record<string, unknown>> }).ports;
          assert.deepEqual(ports[0], { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 });
          assert.equal(ports[1].targetPort, 'https');
        },
      },
      {
        args: 'create serviceaccount sa',
        path: '/api/v1/namespaces/default/serviceaccounts',
        check: (o) => assert.deepEqual(o, { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'sa' } }),
      },
      {
        args: 'create rolebinding rb --role=r --user=u --serviceaccount=default:sa',
        path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
        check: (o) => {
          assert.deepEqual(o.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });
          assert.equal((o.subjects as unknown[]).length, 2);
        },
      },
      {
        args: 'create clusterrolebinding crb --clusterrole=view --group=g',
        path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
        check: (o) => assert.equal(o.kind, 'ClusterRoleBinding'),
      },
      {
        args: 'create quota q --hard=cpu=1,memory=1Gi,pods=2',
        path: '/api/v1/namespaces/default/resourcequotas',
        check: (o) => assert.deepEqual((o.spec as { hard: unknown }).hard, { cpu: '1', memory: '1Gi', pods: '2' }),
      },
      {
        args: 'create job j --image=busybox',
        path: '/apis/batch/v1/namespaces/default/jobs',
        check: (o) => assert.equal((o.spec as { template: { spec: { restartPolicy: string } } }).template.spec.restartPolicy, 'Never'),
      },
      {
        args: 'create cronjob cj --image=busybox --schedule=*/5_*_*_*_*',
        path: '/apis/batch/v1/namespaces/default/cronjobs',
        check: (o) => assert.equal((o.spec as { schedule: string }).schedule, '*/5 * * * *'),
      },
      {
        args: 'create pdb p --selector=app=x --min-available=50%',
        path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
        check: (o) => assert.equal((o.spec as { minAvailable: unknown }).minAvailable, '50%'),
      },
    ];
    for (const c of cases) {
      const args = c.args.split(' ').map((a) => a.replaceAll('_', ' '));
      const before = captures.length;
      const created = await run(['--server', url, ...args], env);
      assert.equal(created.code, 0, `kubectl ${c.args}: ${created.stderr}`);
      assert.match(created.stdout, new RegExp(`/${args[args[1] === 'secret' || args[1] === 'service' ? 3 : 2]} created`));
      assert.equal(captures.length, before + 1, `kubectl ${c.args} sent one body`);
      const capture = captures[before];
      assert.equal(capture.path.split('?')[0], c.path);
      assert.equal(capture.contentType, kubeProtobufMediaType);
      const { object } = decodeKubeProtobuf(capture.body);
      c.check(object);
      // The same object as kubectl's own JSON encoding writes it.
      const dryRun = await run(['--server', url, ...args, '--dry-run=client', '-o', 'json'], env);
      assert.equal(dryRun.code, 0, dryRun.stderr);
      assertGoEquivalent(object, JSON.parse(dryRun.stdout));
    }

    // TokenRequest goes to a subresource and is authentication.k8s.io/v1.
    const token = await run(['--server', url, 'create', 'token', 'sa', '--duration=1h', '--audience=a', '--audience=b'], env);
    assert.equal(token.code, 0, token.stderr);
    assert.equal(token.stdout.trim(), 'tok');
    const tokenBody = captures.at(-1)!;
    assert.equal(tokenBody.path, '/api/v1/namespaces/default/serviceaccounts/sa/token');
    const decodedToken = decodeKubeProtobuf(tokenBody.body);
    assert.equal(decodedToken.apiVersion, 'authentication.k8s.io/v1');
    assert.deepEqual(decodedToken.object.spec, { audiences: ['a', 'b'], expirationSeconds: 3600 });

    // kubectl create ingress sends networking.k8s.io/v1, now served and decoded.
    const ingress = await run(['--server', url, 'create', 'ingress', 'i', '--rule=a.example.com/=svc:80'], env);
    assert.equal(ingress.code, 0, ingress.stderr);
    const decodedIngress = decodeKubeProtobuf(captures.at(-1)!.body);
    assert.equal(decodedIngress.apiVersion, 'networking.k8s.io/v1');
    assert.deepEqual(decodedIngress.object.spec, {
      rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Exact', backend: { service: { name: 'svc', port: { number: 80 } } } }] } }],
    });

    // kubectl create priorityclass sends scheduling.k8s.io/v1, served and decoded too.
    const priorityClass = await run(['--server', url, 'create', 'priorityclass', 'high', '--value=1000'], env);
    assert.equal(priorityClass.code, 0, priorityClass.stderr);
    const decodedPriorityClass = decodeKubeProtobuf(captures.at(-1)!.body);
    assert.equal(decodedPriorityClass.apiVersion, 'scheduling.k8s.io/v1');
    assert.equal(decodedPriorityClass.object.value, 1000);
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
  }
});

// --- Hand-made bodies -----------------------------------------------------------------------

const META = {
  // ObjectMeta: name = 1, namespace = 3, creationTimestamp = 8, labels = 11, managedFields = 17.
  name: (n: string) => len(1, n),
};

test('every type the descriptor table references is in it or decoded by hand', () => {
  assert.deepEqual(missingDescriptorReferences(), []);
});

test('every served built-in kind except CRDs and APIServices has a protobuf layout', () => {
  for (const r of builtinResources) {
    const apiVersion = r.group === '' ? r.version : `${r.group}/${r.version}`;
    if (r.group === 'apiextensions.k8s.io' || r.group === 'apiregistration.k8s.io') {
      // kubectl carries no apiextensions or apiregistration descriptors, and clients send CRDs and APIServices as JSON.
      assert.equal(statusOf(() => decodeKubeProtobuf(body(apiVersion, r.kind))).code, 415);
      continue;
    }
    assert.deepEqual(decodeKubeProtobuf(body(apiVersion, r.kind)).object, { kind: r.kind, apiVersion }, `${apiVersion} ${r.kind}`);
  }
  // The meta/v1 option kinds are registered in every group version.
  const del = decodeKubeProtobuf(body('apps/v1', 'DeleteOptions', msg(num(1, 0), len(4, 'Foreground'), len(5, 'All'))));
  assert.deepEqual(del.object, { kind: 'DeleteOptions', apiVersion: 'apps/v1', gracePeriodSeconds: 0, propagationPolicy: 'Foreground', dryRun: ['All'] });
  assert.equal(decodeKubeProtobuf(body('autoscaling/v1', 'Scale')).kind, 'Scale');
  assert.equal(decodeKubeProtobuf(body('policy/v1', 'Eviction')).kind, 'Eviction');
});

test('times, micro times, durations and embedded JSON', () => {
  const seconds = Date.UTC(2024, 0, 2, 3, 4, 5) / 1000;
  // Lease: metadata = 1, spec = 2 {holderIdentity = 1, leaseDurationSeconds = 2, acquireTime = 3, renewTime = 4}.
  const lease = decodeKubeProtobuf(
    body(
      'coordination.k8s.io/v1',
      'Lease',
      msg(
        len(1, msg(META.name('l'), len(8, msg()), len(17, msg(len(1, 'kubectl'), len(7, msg(len(1, '{"f:spec":{}}'))))))),
        len(2, msg(len(1, 'me'), num(2, 15), len(3, msg(num(1, seconds), num(2, 123_456_789))), len(4, msg(num(1, 0), num(2, 0))))),
      ),
    ),
  );
  assert.deepEqual(lease.object, {
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    // The zero creationTimestamp (an empty message) is left out: Go writes null.
    metadata: { name: 'l', managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }] },
    spec: {
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
      acquireTime: '2024-01-02T03:04:05.123456Z',
      renewTime: '1970-01-01T00:00:00.000000Z',
    },
  });
  // metav1.Time keeps whole seconds, as Go's unmarshalling does.
  const ns = decodeKubeProtobuf(body('v1', 'Namespace', msg(len(1, msg(META.name('n'), len(8, msg(num(1, seconds), num(2, 999))))))));
  assert.deepEqual(ns.object.metadata, { name: 'n', creationTimestamp: '2024-01-02T03:04:05Z' });
  // ControllerRevision.data (2) is a RawExtension {raw = 1}: JSON, or a nested protobuf object.
  const rev = (raw: Buffer) => decodeKubeProtobuf(body('apps/v1', 'ControllerRevision', msg(len(2, msg(len(1, raw))), num(3, 4)))).object;
  assert.deepEqual(rev(Buffer.from('{"spec":{"x":[1]}}')), { kind: 'ControllerRevision', apiVersion: 'apps/v1', data: { spec: { x: [1] } }, revision: 4 });
  assert.deepEqual(rev(body('v1', 'ConfigMap', msg(len(1, META.name('c'))))).data, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' } });
  assert.equal(statusOf(() => rev(Buffer.from('{nope'))).code, 400);
});

test('Go duration strings', () => {
  const s = 1_000_000_000n;
  assert.equal(goDuration(0n), '0s');
  assert.equal(goDuration(3723n * s), '1h2m3s');
  assert.equal(goDuration(90n * s), '1m30s');
  assert.equal(goDuration(1_500_000_000n), '1.5s');
  assert.equal(goDuration(1_500_000n), '1.5ms');
  assert.equal(goDuration(2_000n), '2µs');
  assert.equal(goDuration(7n), '7ns');
  assert.equal(goDuration(-61n * s), '-1m1s');
  assert.equal(goDuration(3600n * s), '1h0m0s');
});

test('inline structs, renamed fields, maps of bytes, omitted zero values', () => {
  // Pod.spec (2) .volumes (1) [Volume{name = 1, volumeSource = 2 {configMap = 19 {localObjectReference = 1 {name = 1}}}}],
  // and containers (2) [{name = 1, livenessProbe = 10 {handler = 1 {exec = 1 {command = 1}}, timeoutSeconds = 3: 0}}].
  const pod = decodeKubeProtobuf(
    body(
      'v1',
      'Pod',
      msg(
        len(1, META.name('p')),
        len(
          2,
          msg(
            len(1, msg(len(1, 'cfg'), len(2, msg(len(19, msg(len(1, msg(len(1, 'settings'))))))))),
            len(2, msg(len(1, 'c'), len(10, msg(len(1, msg(len(1, msg(len(1, 'true'))))), num(3, 0), num(4, 10))))),
          ),
        ),
      ),
    ),
  ).object;
  const spec = pod.spec as { volumes: unknown[]; containers: Array<Record<string, unknown>> };
  assert.deepEqual(spec.volumes, [{ name: 'cfg', configMap: { name: 'settings' } }]);
  // timeoutSeconds is a non-pointer int32: its wire zero is Go's "unset", so it is left out.
  assert.deepEqual(spec.containers[0].livenessProbe, { exec: { command: ['true'] }, periodSeconds: 10 });

  // MutatingWebhookConfiguration's proto field is `Webhooks`; its JSON name is `webhooks`.
  const mwc = decodeKubeProtobuf(body('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', msg(len(2, msg(len(1, 'w')))))).object;
  assert.deepEqual(mwc.webhooks, [{ name: 'w' }]);

  // ConfigMap.binaryData (3) map<string, bytes>; a key named __proto__ stays a plain key.
  const cm = decodeKubeProtobuf(body('v1', 'ConfigMap', msg(len(3, msg(len(1, '__proto__'), len(2, Buffer.from([0, 255]))))))).object;
  assert.equal(Object.getPrototypeOf(cm.binaryData), Object.prototype);
  assert.deepEqual(Object.entries(cm.binaryData as object), [['__proto__', 'AP8=']]);

  // SubjectAccessReview.spec (2) .extra (5) map<string, ExtraValue>: ExtraValue is `[]string` in Go.
  const sar = decodeKubeProtobuf(
    body('authorization.k8s.io/v1', 'SubjectAccessReview', msg(len(2, msg(len(5, msg(len(1, 'scopes'), len(2, msg(len(1, 'a'), len(1, 'b'))))))))),
  ).object;
  assert.deepEqual(sar.spec, { extra: { scopes: ['a', 'b'] } });
  // A projected volume's downwardAPI (DownwardAPIProjection) is a struct with items, not a bare array.
  const projected = decodeKubeProtobuf(
    body('v1', 'Pod', msg(len(2, msg(len(1, msg(len(1, 'v'), len(2, msg(len(26, msg(len(1, msg(len(2, msg(len(1, msg(len(1, 'f'))))))))))))))))),
  ).object;
  assert.deepEqual((projected.spec as { volumes: unknown[] }).volumes, [{ name: 'v', projected: { sources: [{ downwardAPI: { items: [{ path: 'f' }] } }] } }]);

  // Unknown fields are skipped, as Go does.
  assert.deepEqual(decodeKubeProtobuf(body('v1', 'Namespace', msg(num(99, 1), len(98, 'x')))).object, { kind: 'Namespace', apiVersion: 'v1' });
});

test('malformed bodies are 400s, never crashes or hangs', () => {
  const good = body('v1', 'Namespace', msg(len(1, META.name('foo'))));
  assert.match(statusOf(() => decodeKubeProtobuf(Buffer.from('{"kind":"Namespace"}'))).message, /expected prefix \[107 56 115 0\]/);
  assert.equal(statusOf(() => decodeKubeProtobuf(Buffer.alloc(0))).code, 400);
  assert.equal(statusOf(() => decodeKubeProtobuf(Buffer.concat([magic, Buffer.from([0x0a, 0xff])]))).code, 400); // truncated varint
  assert.match(statusOf(() => decodeKubeProtobuf(Buffer.concat([magic, Buffer.from([0x0a, 0x7f, 0x00])]))).message, /runs past the end/);
  assert.match(statusOf(() => decodeKubeProtobuf(Buffer.concat([magic, Buffer.from(Array(11).fill(0xff))]))).message, /varint/);
  assert.match(statusOf(() => decodeKubeProtobuf(body('v1', ''))).message, /Kind' is missing/);
  assert.match(statusOf(() => decodeKubeProtobuf(body('v1', 'Namespace', msg(num(1, 5))))).message, /wire type 0/);
  // A cut at a field boundary is still a valid message; any other cut is a 400.
  for (let cut = magic.length; cut < good.length; cut++) {
    try {
      decodeKubeProtobuf(good.subarray(0, cut));
    } catch (e) {
      assert.ok(e instanceof StatusError && e.code === 400, `cut at ${cut}: ${String(e)}`);
    }
  }
  assert.equal(statusOf(() => decodeKubeProtobuf(good.subarray(0, good.length - 1))).code, 400);

  // Custom resources are JSON-only, in kube too, even when a kind's name matches a built-in one.
  assert.equal(statusOf(() => decodeKubeProtobuf(body('apps.example.com/v1', 'Deployment'))).code, 415);
  // resource.k8s.io is not served (its v1beta1 is off by default in 1.32): a clear 415.
  const claim = statusOf(() => decodeKubeProtobuf(body('resource.k8s.io/v1beta1', 'ResourceClaim')));
  assert.equal(claim.code, 415);
  assert.match(claim.message, /"ResourceClaim" in "resource.k8s.io\/v1beta1"/);
  assert.equal(statusOf(() => decodeKubeProtobuf(body('example.com/v1', 'DeleteOptions'))).code, 415);
  const unknown = statusOf(() => decodeKubeProtobuf(body('example.com/v1', 'Widget')));
  assert.equal(unknown.code, 415);
  assert.match(unknown.message, /"Widget" in "example.com\/v1"/);

  // Nested RawExtension objects deeper than any real object.
  let nested = body('v1', 'ConfigMap');
  for (let i = 0; i < 2000; i++) nested = body('apps/v1', 'ControllerRevision', msg(len(2, msg(len(1, nested)))));
  assert.match(statusOf(() => decodeKubeProtobuf(nested)).message, /nested deeper/);

  // Random corruption: always a decoded object or a StatusError.
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const sample = body(
    'apps/v1',
    'Deployment',
    msg(len(1, msg(META.name('web'), len(11, msg(len(1, 'app'), len(2, 'web'))))), len(2, msg(num(1, 2), len(3, msg(len(2, msg(len(2, msg(len(1, 'c'), len(2, 'nginx')))))))))),
  );
  for (let i = 0; i < 3000; i++) {
    const corrupt = Buffer.from(sample);
    for (let j = 0, n = 1 + random(4); j < n; j++) corrupt[magic.length + random(corrupt.length - magic.length)] = random(256);
    try {
      decodeKubeProtobuf(corrupt);
    } catch (e) {
      assert.ok(e instanceof StatusError, `corruption ${i}: ${String(e)}`);
    }
  }
});
