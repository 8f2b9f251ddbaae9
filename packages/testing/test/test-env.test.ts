/**
 * TestEnv: CRDs from a directory (multi-document files, other files left
 * alone) installed and Established; a kubeconfig file and text; namespaces
 * per test, deleted when the test ends or when disposed; the operator under
 * test run by a Manager whose webhook server the installed configurations
 * reach; converges, passing and failing with its two messages; and fault
 * proxies that hand the requests no fault can act on to the server in the
 * process (no connection at all) and reach it on its private socket otherwise
 * (plain HTTP, no TLS to the same process), the new one after a restart.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { connect, TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ConfigMap, CustomResourceDefinition, Job, MutatingWebhookConfiguration, Namespace, Node, Pod, Secret, StatefulSet, defaulter, defineKind, isNotFound, loadKubeConfig, mutatePath, silentLogger, type Typed } from '@operant/runtime';
import { Informer } from '@operant/runtime/cache';
import type { Status } from '@operant/apimachinery';
import { chaos, converges, eventually, eventuallyFound, processCertificates, TestEnv, WaitError } from '../src/index.js';

const testdata = join(dirname(fileURLToPath(import.meta.url)), 'testdata');
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'cli', 'bin', 'operant.js');
type Widget = Typed<{ spec?: { size?: number; color?: string }; status?: { observedSize?: number } }>;
const Widget = defineKind<Widget>({ group: 'testing.operant.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
const Gadget = defineKind<Typed<{ spec?: object }>>({ group: 'testing.operant.dev', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: false });

const env = await TestEnv.start({ crds: join(testdata, 'crds'), webhooks: { manifests: join(testdata, 'webhook-manifests.yaml') } });
after(() => env.stop());

describe('starting', () => {
  test('installs every CRD of the directory, Established, and knows their kinds', async () => {
    assert.deepEqual(
      env.crdKinds.map((k) => `${k.kind}.${k.group}/${k.version} ${k.plural} ${k.namespaced ? 'namespaced' : 'cluster'}`),
      ['Widget.testing.operant.dev/v1 widgets namespaced', 'Gadget.testing.operant.dev/v1 gadgets cluster'],
    );
    for (const name of ['widgets.testing.operant.dev', 'gadgets.testing.operant.dev']) {
      const crd = await env.client.get(CustomResourceDefinition, name);
      const conditions = (crd.status as { conditions: Array<{ type: string; status: string }> }).conditions;
      assert.ok(conditions.some((c) => c.type === 'Established' && c.status === 'True'));
    }
    assert.ok(env.startMs > 0 && env.startMs < 10_000);
  });

  test('writes a kubeconfig file that any client can use, the same as the text', async () => {
    assert.equal(readFileSync(env.kubeconfig.path, 'utf8'), env.kubeconfig.text);
    const client = Client.fromConfig(await loadKubeConfig({ path: env.kubeconfig.path }));
    try {
      assert.ok((await client.list(Namespace)).items.some((n) => n.metadata.name === 'default'));
      assert.match(env.kubeconfig.config.server, /^https:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      client.close();
    }
  });

  test('points the webhook configurations at a local port with the process CA', async () => {
    assert.ok(env.webhook && env.webhook.port > 0);
    assert.match(env.webhook.caPem, /BEGIN CERTIFICATE/);
    // As installed in the server: the manifest's service clientConfig became the local port, on the service's path, with the CA as caBundle.
    const installed = await env.client.get(MutatingWebhookConfiguration, 'testing-mutating-webhook-configuration');
    assert.deepEqual(
      installed.webhooks?.map((w) => w.clientConfig),
      [{ url: `https://127.0.0.1:${env.webhook.port}/mutate-testing-operant-dev-v1-widget`, caBundle: Buffer.from(env.webhook.caPem).toString('base64') }],
    );
  });

  test("a simulated cluster's kubelets report the server's version, or the one asked for", async () => {
    const kubeletVersions = async (e: TestEnv): Promise<string[]> => (await e.client.list(Node)).items.map((n) => String((n.status as { nodeInfo?: { kubeletVersion?: string } }).nodeInfo?.kubeletVersion));
    const plain = await TestEnv.start({ cluster: { nodes: 2 } });
    try {
      const { gitVersion } = JSON.parse(await plain.client.getRaw('/version')) as { gitVersion: string };
      assert.deepEqual(await kubeletVersions(plain), [gitVersion, gitVersion]);
    } finally {
      await plain.stop();
    }
    const older = await TestEnv.start({ cluster: { nodes: 1, kubeletVersion: 'v1.31.4' } });
    try {
      assert.deepEqual(await kubeletVersions(older), ['v1.31.4']);
    } finally {
      await older.stop();
    }
  });

  test("a simulated cluster runs kube-controller-manager's controllers beyond Deployments', less those `controllers` turns off", async () => {
    const partial = await TestEnv.start({ cluster: { nodes: 1, controllers: ['*', '-statefulset'] } });
    try {
      const ns = (await partial.namespace()).name;
      const labels = { app: 'db' };
      await partial.client.create(StatefulSet, {
        metadata: { name: 'db', namespace: ns },
        spec: { serviceName: 'db', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'db', image: 'postgres:17' }] } } },
      });
      await partial.client.create(Job, {
        metadata: { name: 'once', namespace: ns },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox:1.36' }] } } },
      });
      await eventually(
        async () => {
          const job = await partial.client.get(Job, 'once', { namespace: ns });
          assert.ok(job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'), `the Job completes: ${JSON.stringify(job.status)}`);
        },
        { timeout: 20_000, message: 'the job controller runs' },
      );
      // The StatefulSet, made before the Job, was left to a controller that is not there.
      assert.deepEqual((await partial.client.list(Pod, { namespace: ns, labelSelector: 'app=db' })).items, []);
      assert.equal((await partial.client.get(StatefulSet, 'db', { namespace: ns })).status?.observedGeneration, undefined, 'no controller saw the StatefulSet');
    } finally {
      await partial.stop();
    }
  });

  test("every environment of a process serves the process's one CA and certificate: none is made per start", async () => {
    const { caPem, cert } = await processCertificates();
    const other = await TestEnv.start();
    try {
      for (const e of [env, other]) assert.equal(e.server.caPem, caPem, 'the server trusts the process CA');
      assert.equal(env.webhook?.caPem, caPem, 'webhook configurations get the process CA as caBundle');
      // The serving certificate each server presents is the process's own.
      const presented = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: Number(new URL(other.server.url).port), ca: caPem, servername: 'localhost' }, () => {
          resolve(socket.getPeerX509Certificate()!.toString());
          socket.end();
        });
        socket.once('error', reject);
      });
      assert.equal(presented.trim(), new X509Certificate(cert).toString().trim());
    } finally {
      await other.stop();
    }
  });

  test('fails, leaving nothing running, when a manifest is missing or is not a CRD', async () => {
    // The servers listening in this process (the API server's TCP port and its private socket are two).
    const listening = (): number => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'PipeServerWrap').length;
    const before = listening();
    await assert.rejects(TestEnv.start({ crds: join(testdata, 'nope.yaml') }), { code: 'ENOENT', message: `TestEnv.start: crds: ${join(testdata, 'nope.yaml')}: no such file or directory` });
    assert.equal(listening(), before, 'the server started beside the missing file was stopped');
    // A relative path is read from the working directory, which a test runner may not have put beside the test.
    await assert.rejects(TestEnv.start({ crds: 'config/crds/bases' }), {
      code: 'ENOENT',
      message: `TestEnv.start: crds: config/crds/bases: no such file or directory (a relative path, read from the working directory ${process.cwd()})`,
    });
    // config/crd is kustomize's directory: its kustomization.yaml is no manifest.
    const project = mkdtempSync(join(tmpdir(), 'operant-crd-kustomize-'));
    try {
      writeFileSync(join(project, 'kustomization.yaml'), 'resources:\n- bases/example.com_webapps.yaml\n');
      await assert.rejects(TestEnv.start({ crds: project }), {
        message: `TestEnv.start: crds: ${join(project, 'kustomization.yaml')}: a document without a kind: a kustomization, which is not read here; give the directory of the manifests it lists (e.g. config/crd/bases)`,
      });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
    await assert.rejects(TestEnv.start({ webhooks: { manifests: join(testdata, 'nope.yaml') } }), { code: 'ENOENT', message: `TestEnv.start: webhooks.manifests: ${join(testdata, 'nope.yaml')}: no such file or directory` });
    await assert.rejects(TestEnv.start({ crds: join(testdata, 'webhook-manifests.yaml') }), /MutatingWebhookConfiguration testing-mutating-webhook-configuration is not a CustomResourceDefinition/);
    assert.equal(listening(), before, 'the server that was up when the manifest was refused was stopped');
  });
});

describe('stopped', () => {
  test('a stopped environment refuses what would start on it, saying so; stop() again is a no-op', async () => {
    const stopped = await TestEnv.start();
    await stopped.stop();
    await stopped.stop();
    // Before: ECONNREFUSED for the namespace; a proxy to the dead server, listening past the test, for faultProxy.
    await assert.rejects(stopped.namespace(), { message: 'TestEnv.namespace: the environment is stopped' });
    await assert.rejects(stopped.faultProxy(), { message: 'TestEnv.faultProxy: the environment is stopped' });
    await assert.rejects(stopped.startManager(() => {}), { message: 'TestEnv.startManager: the environment is stopped' });
  });

  test('a stopped fault proxy refuses to play a schedule or write its kubeconfig; stop() again is a no-op', async () => {
    const proxy = await env.faultProxy();
    await proxy.stop();
    await proxy.stop();
    // Before: the play "ran" (a report of 0 requests) and the kubeconfig pointed clients at a closed port.
    await assert.rejects(proxy.play(chaos({ seed: 1, duration: 200 })), { message: 'FaultProxy.play: the proxy is stopped' });
    await assert.rejects(proxy.writeKubeconfig(join(tmpdir(), 'never-written')), { message: 'FaultProxy.writeKubeconfig: the proxy is stopped' });
  });
});

describe('namespaces', () => {
  let fromScope = '';

  test('each test gets a fresh one, deleted when the test ends', async (t) => {
    const a = await env.namespace(t);
    const b = await env.namespace(t, { prefix: 'other' });
    assert.notEqual(a.name, b.name);
    assert.match(b.name, /^other-\d+$/);
    assert.equal(`${a}`, a.name);
    await env.client.create(ConfigMap, { metadata: { name: 'x', namespace: a.name } });
    fromScope = a.name;
  });

  test('... and the one of the test before is gone or going', async () => {
    await eventually(async () => {
      const ns = await env.client.get(Namespace, fromScope).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      assert.ok(ns === undefined || ns.metadata.deletionTimestamp, `${fromScope} is still there`);
    });
  });

  test('a namespace is deleted when disposed (await using)', async () => {
    let name = '';
    {
      await using ns = await env.namespace();
      name = ns.name;
      assert.equal((await env.client.get(Namespace, name)).status?.phase, 'Active');
      await env.client.create(ConfigMap, { metadata: { name: 'content', namespace: name } });
    }
    await eventually(async () => {
      const ns = await env.client.get(Namespace, name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      assert.ok(ns === undefined || ns.metadata.deletionTimestamp);
    });
    // Not left Terminating (as envtest leaves them, without kube-controller-manager): its content is deleted, then it is gone.
    await eventually(async () => assert.ok(await env.client.get(Namespace, name).then(() => false, isNotFound), `namespace ${name} still exists`), { timeout: 10_000 });
  });
});

describe('the operator under test', () => {
  test('runs with its webhooks served on the environment port and certificate, and stops with the test', async (t) => {
    const ns = await env.namespace(t);
    const running = await env.startManager(
      (mgr) => {
        mgr.webhookServer.register(mutatePath(Widget), defaulter(Widget, { default: (w) => void (w.spec = { color: 'blue', ...w.spec }) }));
        mgr.controller('widgets').for(Widget).reconcile(async (req, { client }) => {
          const w = await client.get(Widget, req.name, { namespace: req.namespace });
          if (w.status?.observedSize !== w.spec?.size) await client.updateStatus(Widget, { ...w, status: { observedSize: w.spec?.size } });
        });
      },
      { scope: t },
    );
    // The API server called the manager's webhook (failurePolicy Fail: a TLS or port mismatch would refuse the create).
    const created = await env.client.create(Widget, { metadata: { name: 'w', namespace: ns.name }, spec: { size: 3 } });
    assert.equal(created.spec?.color, 'blue');
    const seen = await env.converges(
      async () => {
        const w = await env.client.get(Widget, 'w', { namespace: ns.name });
        assert.equal(w.status?.observedSize, 3);
        return w;
      },
      { namespace: ns.name, quiet: 200 },
    );
    assert.equal(seen.spec?.size, 3);
    assert.ok(running.manager.isLeader);
  });

  test('what one test gets is undone last first, in one hook, whatever order the runner runs hooks in', async () => {
    const hooks: Array<() => Promise<void>> = [];
    const scope = { after: (fn: () => Promise<void>) => void hooks.push(fn) };
    const proxy = await env.faultProxy(scope);
    const ns = await env.namespace(scope);
    const running = await env.startManager((mgr) => void mgr.controller('widgets-2').for(Widget).reconcile(() => undefined), { scope, kubeconfig: await proxy.clientConfig() });
    assert.equal(hooks.length, 1);
    await hooks[0]!();
    await running.done; // stopped, cleanly
    await assert.rejects(fetch(proxy.url), 'the proxy is closed');
    await eventually(async () => {
      const gone = await env.client.get(Namespace, ns.name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      assert.ok(gone === undefined || gone.metadata.deletionTimestamp);
    });
  });

  test('a function scope (vitest\'s onTestFinished) is handed each cleanup; no module of the package imports a test runner', async () => {
    const registered: Array<() => Promise<void>> = [];
    const onTestFinished = (fn: () => Promise<void>): void => void registered.push(fn);
    const ns = await env.namespace(onTestFinished);
    const proxy = await env.faultProxy(onTestFinished);
    assert.equal(registered.length, 2, 'one cleanup each, handed over at once');
    for (const cleanup of registered.reverse()) await cleanup();
    await assert.rejects(fetch(proxy.url), 'the proxy is closed');
    await eventually(async () => {
      const gone = await env.client.get(Namespace, ns.name).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
      assert.ok(gone === undefined || gone.metadata.deletionTimestamp, 'the namespace is gone or going');
    });
    // Any runner works because none is imported: node:test and vitest stay the caller's choice.
    const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');
    const runners = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from ['"](node:test|vitest)['"]|import\(['"](node:test|vitest)['"]\)/.test(readFileSync(join(src, f), 'utf8').replace(/^\s*\*.*$/gm, '')));
    assert.deepEqual(runners, []);
  });

  test('a manager that cannot start fails startManager, with the reason', async () => {
    const Missing = defineKind({ group: 'testing.operant.dev', version: 'v1', kind: 'Missing', plural: 'missings', namespaced: true });
    await assert.rejects(
      env.startManager((mgr) => void mgr.controller('missing').for(Missing).reconcile(() => undefined)),
      /missings|Missing/,
    );
  });
});

/**
 * Creates ConfigMap `churn` in `namespace` and patches it every 40 ms until the returned function is
 * called, which resolves once the writer has stopped.
 */
async function churn(namespace: string): Promise<() => Promise<void>> {
  await env.client.create(ConfigMap, { metadata: { name: 'churn', namespace }, data: { n: '0' } });
  const stop = new AbortController();
  const writing = (async () => {
    for (let n = 1; !stop.signal.aborted; n++) {
      await env.client.patch(ConfigMap, 'churn', { data: { n: String(n) } }, { namespace });
      await new Promise((r) => setTimeout(r, 40));
    }
  })();
  return async () => {
    stop.abort();
    await writing;
  };
}

describe('converges', () => {
  test('says the check still fails, with its last error, when the state never gets there', async (t) => {
    const ns = await env.namespace(t);
    const err = await env
      .converges(async () => {
        const cm = await env.client.get(ConfigMap, 'never', { namespace: ns.name });
        return cm.data;
      }, { within: 300, namespace: ns.name })
      .catch((e: unknown) => e);
    assert.ok(err instanceof WaitError);
    assert.match(err.message, /^converges: not converged within 300 ms: the check still fails \(\d+ tries\)\n {2}last error: .*configmaps "never" not found/);
  });

  test('ends by its deadline when the server never answers its watches\' lists: the check runs once, and the failure says which kinds were never listed', async (t) => {
    // A server that takes connections and never answers (a stalled apiserver): its lists stay pending.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    t.after(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const stalled = Client.fromConfig({ ...env.kubeconfig.config, server: `https://127.0.0.1:${(silent.address() as AddressInfo).port}` }, { qps: Infinity });
    t.after(() => stalled.close());
    // Bounded here so that a converges that never ends fails this test, not the whole file at its timeout.
    const ended = (p: Promise<unknown>): Promise<unknown> =>
      Promise.race([p.catch((e: unknown) => e), new Promise((resolve) => setTimeout(() => resolve('still waiting after 20 s'), 20_000).unref())]);
    let checks = 0;
    const failing = await ended(converges(stalled, () => (checks++, false), { kinds: [ConfigMap, Widget], within: 300 }));
    assert.ok(failing instanceof WaitError, String(failing));
    assert.match(failing.message, /^converges: not converged within 300 ms: the check still fails \(1 tries\)\n {2}last value: false$/);
    assert.equal(checks, 1);
    const passing = await ended(converges(stalled, () => 'ok', { kinds: [ConfigMap, Widget], within: 300 }));
    assert.ok(passing instanceof WaitError, String(passing));
    assert.equal(
      passing.message,
      "converges: not quiet within 300 ms: the check passes, but the watches never started (configmaps, widgets.testing.operant.dev still not listed), so nothing was seen to settle\n  last value: 'ok'",
    );
    // A check of assertions returns nothing: a passing one has no value to show ('last value: undefined' said nothing).
    const asserting = await ended(converges(stalled, () => assert.ok(true), { kinds: [ConfigMap, Widget], within: 300 }));
    assert.ok(asserting instanceof WaitError, String(asserting));
    assert.equal(
      asserting.message,
      'converges: not quiet within 300 ms: the check passes, but the watches never started (configmaps, widgets.testing.operant.dev still not listed), so nothing was seen to settle',
    );
  });

  test('when only some watches started by the deadline and they saw changes, says objects kept changing, and which kinds were not watched', async (t) => {
    const ns = await env.namespace(t);
    const proxy = await env.faultProxy(t);
    const client = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
    t.after(() => client.close());
    // The list of Secrets is held past the deadline; the ConfigMaps' watch starts and sees the writes.
    proxy.inject({ kind: 'latency', ms: 30_000, verbs: ['list'], resources: ['secrets'], namespaces: [ns.name] });
    const stopChurn = await churn(ns.name);
    try {
      // 3 s: at load 15 the ConfigMaps watch through the proxy must start (and see a write) before the deadline.
      const err = await converges(client, () => true, { kinds: [ConfigMap, Secret], namespace: ns.name, within: 3000, quiet: 300 }).catch((e: unknown) => e);
      assert.ok(err instanceof WaitError);
      assert.match(err.message, new RegExp(`^converges: not quiet within 3000 ms: the check passes, but objects kept changing \\(\\d+ changes; the last, MODIFIED configmaps ${ns.name}/churn, \\d+ ms ago; quiet needs 300 ms\\)\n {2}last value: true\n {2}not watched: secrets \\(still not listed\\)$`));
    } finally {
      await stopChurn();
    }
  });

  test('a change that reached a watch while the process was held up past the quiet period starts it over', async (t) => {
    // The server runs in a process of its own, so that it answers and sends the watch event while this one is held up.
    const dir = mkdtempSync(join(tmpdir(), 'converges-held-'));
    const kubeconfig = join(dir, 'kubeconfig');
    const server = spawn(process.execPath, [cli, 'server', '--port', '0', '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(async () => {
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (d: Buffer) => /^ready /m.test((out += d.toString())) && resolve());
      server.once('exit', (code) => reject(new Error(`operant server exited with ${code} before ready`)));
    });
    const client = Client.fromConfig(await loadKubeConfig({ path: kubeconfig }), { qps: Infinity });
    t.after(() => client.close());
    await client.create(ConfigMap, { metadata: { name: 'held', namespace: 'default' } });
    // The kubeconfig's server, CA and token (operant server writes it as JSON), for a writer in another process.
    const written = JSON.parse(readFileSync(kubeconfig, 'utf8')) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { token: string } }>;
    };
    const target = {
      url: `${written.clusters[0]!.cluster.server}/api/v1/namespaces/default/configmaps/held`,
      ca: Buffer.from(written.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(),
      token: written.users[0]!.user.token,
    };
    const patchFromAnotherProcess =
      "const t = JSON.parse(process.env.TARGET); require('node:https').request(t.url, { method: 'PATCH', ca: t.ca, headers: { authorization: 'Bearer ' + t.token, 'content-type': 'application/merge-patch+json' } }, (res) => process.exit(res.statusCode === 200 ? 0 : 1)).end('{\"data\":{\"late\":\"yes\"}}')";
    const quiet = 300;
    let heldUntil = 0;
    let patchFailed: unknown;
    const result = await converges(
      client,
      () => {
        // The first check passes and the quiet period starts. Soon after, this process is held up (a synchronous
        // child process, then a busy wait) until well past the period's end, while the other process changes the
        // ConfigMap: its watch event waits, unread, in the socket when the quiet period's timer fires.
        if (heldUntil === 0) {
          heldUntil = -1;
          // Held in a setImmediate callback: the loop's next turn starts with its timers, before it reads the sockets.
          setTimeout(() => setImmediate(() => {
            const start = performance.now();
            try {
              execFileSync(process.execPath, ['-e', patchFromAnotherProcess], { env: { ...process.env, TARGET: JSON.stringify(target) } });
            } catch (err) {
              patchFailed = err;
            }
            while (performance.now() < start + quiet + 200);
            heldUntil = performance.now();
          }), 50);
        }
        return 'settled';
      },
      { kinds: [ConfigMap], namespace: 'default', quiet, within: 10_000 },
    );
    assert.equal(patchFailed, undefined);
    assert.equal(result, 'settled');
    // Returned only after a whole quiet period from the change, seen once the process ran again; not at once.
    const after = performance.now() - heldUntil;
    assert.ok(heldUntil > 0 && after >= quiet - 20, `converges returned ${Math.round(after)} ms after the hold, before a quiet period (${quiet} ms) from the change it brought`);
  });

  test('says objects kept changing when the check passes but nothing settles', async (t) => {
    const ns = await env.namespace(t);
    const stopChurn = await churn(ns.name);
    try {
      // 2 s: the default kinds' 13 lists, which the deadline now bounds, took up to 1.1 s at load 15.
      const err = await env
        .converges(async () => (await env.client.get(ConfigMap, 'churn', { namespace: ns.name })).data?.n !== undefined, { within: 2000, quiet: 300, namespace: ns.name })
        .catch((e: unknown) => e);
      assert.ok(err instanceof WaitError);
      assert.match(err.message, new RegExp(`^converges: not quiet within 2000 ms: the check passes, but objects kept changing \\(\\d+ changes; the last, MODIFIED configmaps ${ns.name}/churn, \\d+ ms ago; quiet needs 300 ms\\)`));
    } finally {
      await stopChurn();
    }
    // Once the writer stops, it converges.
    await env.converges(async () => (await env.client.get(ConfigMap, 'churn', { namespace: ns.name })).data?.n !== '0', { within: 3000, quiet: 200, namespace: ns.name });
  });

  test('a failure lists the reconcile errors of the environment\'s managers meanwhile; each manager keeps its own, and its logger still gets them', async (t) => {
    const ns = await env.namespace(t);
    const logged: string[] = [];
    const none = (): void => undefined;
    const logger = { debug: none, info: none, warn: none, error: (_fields: object, msg: string) => void logged.push(msg) };
    const running = await env.startManager(
      (mgr) =>
        void mgr
          .controller('refuses')
          .for(ConfigMap, { informer: { namespace: ns.name } })
          .reconcile(async (req) => {
            if (req.name === 'bad') throw new Error(`cannot reconcile ${req.name}`);
          }),
      { scope: t, manager: { logger } },
    );
    await env.client.create(ConfigMap, { metadata: { name: 'bad', namespace: ns.name } });
    const err = await env
      .converges(async () => assert.equal((await env.client.get(ConfigMap, 'bad', { namespace: ns.name })).data?.done, 'yes'), { within: 600, namespace: ns.name })
      .catch((e: unknown) => e);
    assert.ok(err instanceof WaitError);
    assert.match(err.message, /^converges: not converged within 600 ms: the check still fails/);
    assert.match(err.message, new RegExp(`\n {2}reconcile errors meanwhile \\(\\d+\\):\n {4}refuses ${ns.name}/bad: cannot reconcile bad( \\(\\d+ times\\))?$`));
    assert.ok(err.cause instanceof assert.AssertionError, 'the check\'s own failure is still the cause');
    const kept = running.reconcileErrors();
    assert.ok(kept.length >= 1);
    assert.deepEqual({ ...kept[0]!, at: 0 }, { at: 0, controller: 'refuses', namespace: ns.name, name: 'bad', error: 'cannot reconcile bad', panic: false });
    assert.ok(logged.includes('Reconciler error'), 'the manager\'s own logger still gets the line');
    // Once the manager has stopped, a failing converges has no reconcile errors to tell of.
    await running.stop();
    const quiet = await env.converges(() => false, { within: 100, namespace: ns.name, kinds: [] }).catch((e: unknown) => e);
    assert.ok(quiet instanceof WaitError);
    assert.doesNotMatch(quiet.message, /reconcile errors/);
  });

  test('a failure after a played schedule shows it, as the play prints it: the seed, each fault at its offset, then what struck', async (t) => {
    const ns = await env.namespace(t);
    const proxy = await env.faultProxy(t);
    const schedule = chaos({ seed: 4242, duration: 400, meanGapMs: 60, faults: ['latency', 'error'] });
    assert.ok(schedule.entries.length >= 2, 'the schedule has faults to show');
    await proxy.play(schedule, { log: () => undefined });
    const err = await env.converges(() => false, { within: 200, namespace: ns.name, kinds: [] }).catch((e: unknown) => e);
    assert.ok(err instanceof WaitError);
    assert.match(err.message, /^converges: not converged within 200 ms: the check still fails \(\d+ tries\)\n {2}last value: false\n {2}after chaos schedule: seed 4242, 0\.40s, \d+ faults\n/);
    for (const line of schedule.describe().split('\n').slice(1)) assert.ok(err.message.includes(`\n  ${line}\n`), `the fault line ${line.trim()} is shown`);
    assert.match(err.message, /\n {2}chaos summary: seed 4242, ran [\d.]+ s of 0\.4 s/);
    // The standalone converges shows the schedule it is given.
    const given = await converges(env.client, () => false, { kinds: [], within: 100, schedule }).catch((e: unknown) => e);
    assert.ok(given instanceof WaitError);
    assert.ok(given.message.includes(`\n  after ${schedule.describe().split('\n').join('\n  ')}`), given.message);
    // A stopped proxy's schedule is another test's business.
    await proxy.stop();
    const later = await env.converges(() => false, { within: 100, kinds: [] }).catch((e: unknown) => e);
    assert.ok(later instanceof WaitError);
    assert.doesNotMatch(later.message, /chaos schedule/);
  });

  test('a second converges in the same namespace opens no connection to the server: it sees changes through the watches the first one started', async (t) => {
    const ns = await env.namespace(t);
    let accepted = 0;
    // Every connection a server of this process accepts: the environment's, on its HTTPS port (each a TLS handshake) or its private socket.
    const onAccepted = (): void => void accepted++;
    diagnostics.subscribe('net.server.socket', onAccepted);
    t.after(() => diagnostics.unsubscribe('net.server.socket', onAccepted));
    // A check that sends nothing: the connections counted are converges' own.
    await env.converges(() => true, { namespace: ns.name, quiet: 50 });
    const first = accepted;
    await env.converges(() => true, { namespace: ns.name, quiet: 50 });
    assert.equal(accepted - first, 0, `the second call opened ${accepted - first} connections`);
    // The watches it reuses still see this namespace's changes: a write during the quiet period starts it over.
    await env.client.create(ConfigMap, { metadata: { name: 'later', namespace: ns.name } });
    setTimeout(() => void env.client.patch(ConfigMap, 'later', { data: { later: 'yes' } }, { namespace: ns.name }), 150);
    const started = performance.now();
    await env.converges(() => true, { namespace: ns.name, quiet: 400 });
    assert.ok(performance.now() - started >= 540, `${Math.round(performance.now() - started)} ms`);
    assert.equal(accepted - first, 0, 'nor did the third');
  });

  test('changes in another namespace do not break this one\'s quiet period, while both wait at once on the same environment', async (t) => {
    const [quiet, busy] = await Promise.all([env.namespace(t), env.namespace(t)]);
    const stopChurn = await churn(busy.name);
    try {
      const [settled, unsettled] = await Promise.all([
        env.converges(() => 'quiet here', { namespace: quiet.name, within: 3000, quiet: 300 }),
        env.converges(() => true, { namespace: busy.name, within: 1500, quiet: 300 }).catch((e: unknown) => e),
      ]);
      assert.equal(settled, 'quiet here');
      assert.ok(unsettled instanceof WaitError);
      assert.match(unsettled.message, new RegExp(`^converges: not quiet within 1500 ms: the check passes, but objects kept changing \\(\\d+ changes; the last, MODIFIED configmaps ${busy.name}/churn, \\d+ ms ago; quiet needs 300 ms\\)`));
      // Cluster-scoped objects count in every namespace.
      const gadgets = setInterval(() => void env.client.create(Gadget, { metadata: { generateName: 'g-' } }), 40);
      try {
        const err = await env.converges(() => true, { namespace: quiet.name, within: 1000, quiet: 300 }).catch((e: unknown) => e);
        assert.ok(err instanceof WaitError);
        assert.match(err.message, /objects kept changing \(\d+ changes; the last, ADDED gadgets\.testing\.operant\.dev g-\w+, /);
      } finally {
        clearInterval(gadgets);
      }
    } finally {
      await stopChurn();
    }
  });

  test('a kind the server did not serve at one converges is watched at the next, once its CRD is installed', async (t) => {
    const ns = await env.namespace(t);
    const Sprocket = defineKind<Typed<{ spec?: { n?: number } }>>({ group: 'testing.operant.dev', version: 'v1', kind: 'Sprocket', plural: 'sprockets', namespaced: true });
    assert.equal(await env.converges(() => 'nothing to watch', { kinds: [Sprocket], namespace: ns.name, within: 2000, quiet: 50 }), 'nothing to watch');
    await env.client.create(CustomResourceDefinition, {
      metadata: { name: 'sprockets.testing.operant.dev' },
      spec: {
        group: 'testing.operant.dev',
        scope: 'Namespaced',
        names: { kind: 'Sprocket', listKind: 'SprocketList', plural: 'sprockets', singular: 'sprocket' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    t.after(() => env.client.delete(CustomResourceDefinition, 'sprockets.testing.operant.dev').catch(() => undefined));
    await eventually(() => env.client.list(Sprocket, { namespace: ns.name }), { timeout: 10_000 });
    await env.client.create(Sprocket, { metadata: { name: 's', namespace: ns.name }, spec: { n: 0 } });
    let n = 0;
    const writes = setInterval(() => void env.client.patch(Sprocket, 's', { spec: { n: ++n } }, { namespace: ns.name, patchType: 'merge' }).catch(() => undefined), 40);
    try {
      const err = await env.converges(() => true, { kinds: [Sprocket], namespace: ns.name, within: 1500, quiet: 300 }).catch((e: unknown) => e);
      assert.ok(err instanceof WaitError, String(err));
      assert.match(err.message, new RegExp(`objects kept changing \\(\\d+ changes; the last, MODIFIED sprockets\\.testing\\.operant\\.dev ${ns.name}/s, `));
    } finally {
      clearInterval(writes);
    }
  });

  test('a change during the quiet period starts it over', async (t) => {
    const ns = await env.namespace(t);
    await env.client.create(ConfigMap, { metadata: { name: 'late', namespace: ns.name } });
    setTimeout(() => void env.client.patch(ConfigMap, 'late', { data: { late: 'yes' } }, { namespace: ns.name }), 150);
    const started = performance.now();
    await env.converges(async () => true, { within: 5000, quiet: 400, namespace: ns.name });
    // Quiet from the late write (~150 ms) on, not from the first check.
    assert.ok(performance.now() - started >= 540, `${Math.round(performance.now() - started)} ms`);
  });
});

describe('restarting the server', () => {
  test('an environment in memory cannot, and says how to make one that can', async () => {
    await assert.rejects(env.restartServer(), /keeps its data in memory; start it with \{ durable: true \}/);
  });

  test('a durable one comes back on the same port with its objects, and an informer started before sees what changes after', async (t) => {
    const durable = await TestEnv.start({ durable: true });
    t.after(() => durable.stop());
    const ns = await durable.namespace(t);
    await durable.client.create(ConfigMap, { metadata: { name: 'kept', namespace: ns.name }, data: { a: '1' } });
    const informer = new Informer(durable.client.listerWatcher(ConfigMap), { logger: silentLogger });
    const stop = new AbortController();
    t.after(() => stop.abort());
    informer.start(stop.signal);
    await eventuallyFound(() => informer.store.get(`${ns.name}/kept`), { message: 'the informer has the ConfigMap' });
    await eventually(() => assert.equal(informer.stats().watches, 1), { message: 'the informer watches' });
    const port = durable.server.port;

    await durable.restartServer({ downMs: 200 });
    assert.equal(durable.server.port, port);
    assert.deepEqual((await durable.client.get(ConfigMap, 'kept', { namespace: ns.name })).data, { a: '1' });
    await durable.client.patch(ConfigMap, 'kept', { data: { a: '2' } }, { namespace: ns.name });
    await eventuallyFound(() => informer.store.get(`${ns.name}/kept`)?.data?.['a'] === '2', { message: 'the informer sees the change made after the restart', timeout: 15_000 });
    // The server did go away: the informer's watch ended with it, and it watched the new one.
    assert.ok(informer.stats().watches >= 2, `the informer watched ${informer.stats().watches} time(s): its first watch outlived the restart`);
  });
});

describe('fault proxies', () => {
  test('hand a request no fault can act on to the server in the process; reach it on its private socket otherwise, in plain HTTP; both follow a restart', async (t) => {
    const durable = await TestEnv.start({ durable: true });
    t.after(() => durable.stop());
    const opened: Socket[] = [];
    const onConnected = (message: unknown): void => void opened.push((message as { socket: Socket }).socket);
    // Every client socket net.connect() makes (the proxy's, whether its lean client or undici opens it; TLS clients are not made there).
    diagnostics.subscribe('net.client.socket', onConnected);
    t.after(() => diagnostics.unsubscribe('net.client.socket', onConnected));
    const proxy = await durable.faultProxy(t);
    const viaProxy = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
    t.after(() => viaProxy.close());
    const before = durable.server.socketPath!;
    assert.ok(before.endsWith('/api.sock'), before);
    /** A GET that a fault covers (1 ms of latency), so that the proxy sends it on. */
    const coveredGet = async (): Promise<void> => {
      using slow = proxy.inject({ kind: 'latency', ms: 1, resources: ['namespaces'] });
      await viaProxy.get(Namespace, 'default');
      assert.equal(slow.hits, 1);
    };

    assert.equal((await viaProxy.get(Namespace, 'default')).metadata.name, 'default');
    assert.equal(opened.length, 0, 'no connection: the server in the process took the request');
    await coveredGet();
    // A Unix domain socket has no remote address; a TCP one to the server's port would have 127.0.0.1.
    assert.ok(opened.length >= 1);
    for (const socket of opened) {
      assert.ok(!(socket instanceof TLSSocket), 'no TLS upstream');
      assert.equal(socket.remoteAddress, undefined);
    }

    await durable.restartServer();
    assert.notEqual(durable.server.socketPath, before, 'a new socket for the new server');
    await eventually(() => viaProxy.get(Namespace, 'default'), { message: 'a GET through the proxy after the restart' });
    const connections = opened.length;
    await viaProxy.get(Namespace, 'kube-system');
    assert.equal(opened.length, connections, 'handed to the new server, still without a connection');
    await eventually(coveredGet, { message: 'a GET sent on after the restart' });
    assert.ok(opened.length > connections, 'sent on over the new socket');
  });
});

describe('the restart-server fault', () => {
  test('a durable environment\'s proxy restarts the server for the window; the data stays and clients through the proxy carry on', async (t) => {
    const durable = await TestEnv.start({ durable: true });
    t.after(() => durable.stop());
    const ns = await durable.namespace(t);
    const proxy = await durable.faultProxy(t);
    const viaProxy = Client.fromConfig(await proxy.clientConfig(), { qps: Infinity });
    t.after(() => viaProxy.close());
    await viaProxy.create(ConfigMap, { metadata: { name: 'before', namespace: ns.name }, data: { a: '1' } });
    // A watch straight on the server, to see that it really went away (not only the proxy's record of it).
    const informer = new Informer(durable.client.listerWatcher(ConfigMap), { namespace: ns.name, logger: silentLogger });
    const stop = new AbortController();
    t.after(() => stop.abort());
    informer.start(stop.signal);
    await eventually(() => assert.equal(informer.stats().watches, 1), { message: 'the informer watches' });
    const watchesBefore = 1;
    const report = await proxy.play(chaos({ seed: 3, duration: 1200, meanGapMs: 300, faults: [{ kind: 'restart-server', windowMs: [300, 300] }] }), { log: () => undefined });
    const hits = report.records.filter((r) => r.type === 'hit');
    await eventually(() => assert.ok(informer.stats().watches > watchesBefore, `still on its first watch (${informer.stats().watches})`), { timeout: 15_000, message: 'the informer watches the restarted server' });
    assert.ok(hits.length >= 1, report.timeline());
    assert.match(hits[0]!.request!, new RegExp(`^the API server on port ${durable.server.port}$`));
    assert.match(hits[0]!.detail!, /^down \d+ ms, started again from its data$/);
    // A window's end line comes after what it struck, and counts it. Before, the restart's hit (known once the server was
    // back) came after '+0.90s  end   #2 stop the API server, ... (0 hits)', while the summary counted it.
    for (const hit of hits) {
      const end = report.records.findIndex((r) => r.type === 'end' && r.faultId === hit.faultId);
      assert.ok(end > report.records.indexOf(hit), report.timeline());
      assert.equal(report.records[end]!.detail, '1 hit', report.timeline());
    }
    assert.deepEqual((await viaProxy.get(ConfigMap, 'before', { namespace: ns.name })).data, { a: '1' });
    await eventually(() => viaProxy.create(ConfigMap, { metadata: { name: 'after', namespace: ns.name } }), { message: 'a create through the proxy after the restarts' });
  });

  test('compact: the server\'s history is compacted, so a watch resuming from before it gets the server\'s own 410', async (t) => {
    const ns = await env.namespace(t);
    const proxy = await env.faultProxy(t);
    const before = await env.client.create(ConfigMap, { metadata: { name: 'before', namespace: ns.name } });
    await env.client.create(ConfigMap, { metadata: { name: 'after', namespace: ns.name } });
    const fault = proxy.inject({ kind: 'compact' }, { times: 1 });
    await fault.ended;
    const hit = proxy.records.find((r) => r.type === 'hit' && r.faultId === fault.id);
    assert.match(hit?.detail ?? '', /^compacted through revision \d+$/);
    let first: { type: string; object: unknown } | undefined;
    for await (const event of env.client.watch(ConfigMap, { namespace: ns.name, resourceVersion: before.metadata.resourceVersion })) {
      first = event;
      break;
    }
    assert.equal(first?.type, 'ERROR');
    assert.deepEqual([(first?.object as Status).code, (first?.object as Status).reason], [410, 'Expired']);
  });

  test('an environment in memory records it as a miss, saying why', async (t) => {
    const proxy = await env.faultProxy(t);
    proxy.inject({ kind: 'restart-server' }, { times: 1 });
    const miss = await eventuallyFound(() => proxy.records.find((r) => r.type === 'miss'));
    assert.equal(miss.detail, 'the environment keeps its data in memory: start it with { durable: true } to restart its server');
  });
});
