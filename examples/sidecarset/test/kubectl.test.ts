/**
 * The operator as a Kruise user sees it with the real kubectl: the SidecarSet
 * manifest of Kruise's own tutorial (docs/tutorial/v1/guestbook-sidecar.yaml,
 * copied unchanged into testdata) applies as it is; `kubectl get sidecarsets`
 * prints NAME MATCHED UPDATED READY AGE; `kubectl describe pod` shows the
 * injected sidecar as Kruise's tutorial shows it (its port, IS_INJECTED, its
 * mount) and the pod's events; a ControllerRevision records the SidecarSet.
 * Without kubectl the tests are skipped, and say so.
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSimulatedCluster, type SimulatedCluster } from '@operant/controllers';
import { Deployment, type Manager } from '@operant/runtime';
import { SidecarSet } from '../src/api/v1alpha1/zz_generated.kinds.js';
import { operatorNamespace, startTestEnv, type TestEnv } from './support.js';

const kubectlPath = '/usr/bin/kubectl';
const hasKubectl = existsSync(kubectlPath);
const tutorialManifest = fileURLToPath(new URL('testdata/kruise-docs-guestbook-sidecar.yaml', import.meta.url));

describe('the operator through the real kubectl', { skip: hasKubectl ? false : `kubectl not found at ${kubectlPath}: these tests did not run` }, () => {
  let env: TestEnv;
  let cluster: SimulatedCluster;
  let manager: { mgr: Manager; stop(): Promise<void> };
  let dir: string;
  before(async () => {
    env = await startTestEnv();
    cluster = await startSimulatedCluster({ kubeconfig: env.adminConfig, nodes: 3 });
    manager = await env.startOperator();
    dir = mkdtempSync(join(tmpdir(), 'sidecarset-kubectl-'));
    writeFileSync(join(dir, 'kubeconfig'), env.server.kubeconfig, { mode: 0o600 });
  });
  after(async () => {
    await manager?.stop();
    await cluster?.stop();
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (...args: string[]) =>
    (await promisify(execFile)(kubectlPath, ['--kubeconfig', join(dir, 'kubeconfig'), ...args], { env: { ...process.env, KUBECACHEDIR: join(dir, 'cache') } })).stdout;

  it('applies the SidecarSet manifest of Kruise\'s tutorial unchanged', async () => {
    assert.equal((await kubectl('apply', '-f', tutorialManifest)).trim(), 'sidecarset.apps.kruise.io/guestbook-sidecar created');
    const set = await env.waitFor(SidecarSet, 'guestbook-sidecar', (s) => s.status?.latestRevision !== undefined);
    assert.equal(set.spec!.containers![0]!.ports![0]!.containerPort, 4000);
  });

  it('kubectl get sidecarsets prints NAME MATCHED UPDATED READY AGE, and counts the pods it injected', async (t: TestContext) => {
    await env.client.create(Deployment, {
      metadata: { name: 'guestbook-with-sidecar', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'guestbook-with-sidecar' } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': 'guestbook-with-sidecar' } },
          spec: { containers: [{ name: 'guestbook', image: 'openkruise/guestbook:v2', ports: [{ containerPort: 3000 }] }] },
        },
      },
    });
    await env.waitFor(SidecarSet, 'guestbook-sidecar', (s) => s.status?.readyPods === 2, { timeoutMs: 30_000 });
    const table = await kubectl('get', 'sidecarsets');
    t.diagnostic(table);
    assert.match(table, /^NAME {16}MATCHED {3}UPDATED {3}READY {3}AGE\nguestbook-sidecar {3}2 {9}2 {9}2 {7}\d+s\n$/);
  });

  it('kubectl describe pod shows the injected sidecar as Kruise\'s tutorial does, and the pod\'s events', async () => {
    const describe = await kubectl('describe', 'pod', '-l', 'app.kubernetes.io/name=guestbook-with-sidecar');
    const sidecar = describe.slice(describe.indexOf('  guestbook-sidecar:'));
    assert.match(sidecar, /^ {2}guestbook-sidecar:\n {4}Container ID: +containerd:\/\/[0-9a-f]{64}\n {4}Image: +openkruise\/guestbook:sidecar\n/);
    assert.match(sidecar, /Port: +4000\/TCP/);
    assert.match(sidecar, /Environment:\n {6}IS_INJECTED: +true/);
    assert.match(sidecar, /Mounts:\n {6}\/var\/log from log-volume \(rw\)/);
    assert.match(describe, /Events:\n {2}Type +Reason +Age +From +Message/);
    assert.match(describe, /Normal {2}Started .*Started container guestbook-sidecar/);
  });

  it('kubectl get controllerrevisions shows the SidecarSet\'s revision in the operator\'s namespace', async () => {
    const out = await kubectl('get', 'controllerrevisions', '-n', operatorNamespace);
    assert.match(out, /^NAME +CONTROLLER +REVISION +AGE\nguestbook-sidecar-[bcdfghjklmnpqrstvwxz2456789]+ +sidecarset\.apps\.kruise\.io\/guestbook-sidecar +1 +\d+s\n$/);
  });
});
