/**
 * `npm start` at the repository root, run as a user runs it (in a data
 * directory of its own, `npm start -- --dir DIR`): it shows the three pods
 * with their injected sidecar and `kubectl get sidecarsets` at 3/3/3, prints
 * the commands to try, and stops on Ctrl-C. A second start reuses the data
 * and makes no second set of samples; the real kubectl then sees the
 * SidecarSet's columns and the sidecar in `describe pod`, and the first
 * suggested command (a new sidecar image) rolls through the pods in place.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const kubectlPath = '/usr/bin/kubectl';
const hasKubectl = existsSync(kubectlPath);

/** A running `npm start`: its output so far, and a way to wait for a line. */
class NpmStart {
  private readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(dir: string) {
    const env: NodeJS.ProcessEnv = { ...process.env, OPERANT_LOG_LEVEL: 'warn' };
    // A nested node must not think it is a test of this runner.
    delete env.NODE_TEST_CONTEXT;
    // Its own process group, so that Ctrl-C (SIGINT to the group) reaches node under npm, as in a terminal.
    this.child = spawn('npm', ['start', '--', '--dir', dir], { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => this.child.once('close', (code, signal) => resolve({ code, signal })));
  }

  /** Resolves once the output matches; rejects after `timeoutMs` or if npm exits first. */
  async waitFor(pattern: RegExp, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (this.child.exitCode !== null) throw new Error(`npm start exited (${this.child.exitCode}) before printing ${pattern}:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`npm start did not print ${pattern} within ${timeoutMs} ms:\n${this.output}`);
      await new Promise<void>((resolve) => this.child.stdout!.once('data', () => resolve()).once('close', () => resolve()));
    }
  }

  /**
   * Ctrl-C: the demo stops cleanly (it says so last). npm itself ends as a
   * terminal's Ctrl-C ends it, by the signal, or with 0 when node was faster.
   */
  async interrupt(): Promise<void> {
    process.kill(-this.child.pid!, 'SIGINT');
    const { code, signal } = await this.exited;
    assert.ok(code === 0 || signal === 'SIGINT', `npm start ended with code ${code}, signal ${signal}:\n${this.output}`);
    assert.match(this.output, /\nstopped\n$/);
  }

  /** Whatever is left of the group (after a failed test). */
  kill(): void {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

describe('npm start: the SidecarSet demo', () => {
  let dir: string;
  let running: NpmStart | undefined;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'operant-npm-start-'));
  });
  after(() => {
    running?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (...args: string[]) =>
    (await promisify(execFile)(kubectlPath, ['--kubeconfig', join(dir, 'kubeconfig'), ...args], { env: { ...process.env, KUBECACHEDIR: join(dir, 'kube-cache') } })).stdout;

  /** The lines of the demo's pod listing. */
  const podLines = (output: string) => output.split('\n').filter((l) => /^ {2}guestbook-[a-z0-9]+-[a-z0-9]+ /.test(l));

  it('shows the pods with their sidecar and the SidecarSet at 3/3/3, prints what to try, and stops on Ctrl-C', { timeout: 180_000 }, async () => {
    running = new NpmStart(dir);
    await running.waitFor(/Press Ctrl-C to stop/);
    const out = running.output;
    assert.match(out, /the SidecarSet operator on an embedded Kubernetes API server with 3 simulated nodes/);
    assert.match(out, /samples {5}sidecarset\/sidecarset-sample created, deployment\/guestbook created/);
    const pods = podLines(out);
    assert.equal(pods.length, 3, out);
    for (const line of pods) assert.match(line, /node-[123] {2}2\/2 Running {2}log-shipper \(busybox:1\.36\), guestbook \(nginx:1\.27\)$/);
    assert.match(out, /\$ kubectl get sidecarsets\nNAME {16}MATCHED {3}UPDATED {3}READY {3}AGE\nsidecarset-sample {3}3 {9}3 {9}3 {7}\d+s\n/);
    assert.match(out, /kubectl --kubeconfig \S+kubeconfig patch sidecarset sidecarset-sample --type=json -p '\[\{"op":"replace","path":"\/spec\/containers\/0\/image","value":"busybox:1\.37"\}\]'/);
    await running.interrupt();
  });

  it('a second start reuses the data: the same samples, no second set; kubectl sees them, and the suggested image change rolls in place', { timeout: 180_000 }, async (t) => {
    running = new NpmStart(dir);
    await running.waitFor(/Press Ctrl-C to stop/);
    const out = running.output;
    assert.match(out, /samples {5}sidecarset\/sidecarset-sample kept \(from the last run\), deployment\/guestbook kept \(from the last run\)/);
    assert.doesNotMatch(out, /had permission|warning/i);
    assert.equal(podLines(out).length, 3, out);
    if (!hasKubectl) {
      t.skip(`kubectl not found at ${kubectlPath}: the kubectl half of this test did not run`);
      await running.interrupt();
      return;
    }
    assert.match(await kubectl('get', 'sidecarsets'), /^NAME {16}MATCHED {3}UPDATED {3}READY {3}AGE\nsidecarset-sample {3}3 {9}3 {9}3 /);
    assert.equal((await kubectl('get', 'pods', '-l', 'app.kubernetes.io/name=guestbook-with-sidecar', '-o', 'name')).trim().split('\n').length, 3);
    const describe = await kubectl('describe', 'pod', '-l', 'app.kubernetes.io/name=guestbook-with-sidecar');
    assert.match(describe, /log-shipper:\n\s+Container ID:/);
    assert.match(describe, /IS_INJECTED:\s+true/);
    assert.match(describe, /Scheduled\s+.*Successfully assigned default\/guestbook-/);

    await kubectl('patch', 'sidecarset', 'sidecarset-sample', '--type=json', '-p', '[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:1.37"}]');
    // Each pod, once its sidecar has restarted on the new image.
    const wait = await kubectl('wait', 'pods', '-l', 'app.kubernetes.io/name=guestbook-with-sidecar', '--for=jsonpath={.status.containerStatuses[?(@.name=="log-shipper")].image}=docker.io/library/busybox:1.37', '--timeout=60s');
    assert.equal(wait.match(/condition met/g)?.length, 3, wait);
    const images = await kubectl('get', 'pods', '-l', 'app.kubernetes.io/name=guestbook-with-sidecar', '-o', 'jsonpath={range .items[*]}{.status.containerStatuses[?(@.name=="log-shipper")].image} {.status.containerStatuses[?(@.name=="log-shipper")].restartCount}{"\\n"}{end}');
    assert.deepEqual(images.trim().split('\n'), Array(3).fill('docker.io/library/busybox:1.37 1'));
    await running.interrupt();
  });
});
