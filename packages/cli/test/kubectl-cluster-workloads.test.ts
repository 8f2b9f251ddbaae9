/**
 * `operant server --nodes 3 --time-scale 60` judged by the real kubectl: a
 * StatefulSet's pods come as web-0, web-1, web-2, each once the one before
 * runs, and go in reverse; a DaemonSet puts one pod on each node; a Job
 * completes; a CronJob makes a Job each scheduled minute (a minute of cluster
 * time is a second of the test's). And `--controllers=*,-deployment` leaves
 * Deployments to someone else while the rest runs.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { hasKubectl, kubectlOk, startServer, type ServerProcess } from './harness.js';
import { RunningKubectl, kit, tableRows } from './kubectl-support.js';

let server: ServerProcess;

before(async () => {
  if (!hasKubectl) return;
  server = await startServer({ extraArgs: ['--nodes', '3', '--time-scale', '60'] });
});
after(async () => {
  await server?.stop();
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = async (args: string[], on: ServerProcess = server): Promise<Json> => JSON.parse(await kubectlOk(on, [...args, '-o', 'json'])) as Json;

/** The cells of `kubectl get -w --output-watch-events` lines: EVENT, NAME, READY, STATUS, ... */
const watchRows = (lines: string[]): string[][] => lines.map((l) => l.trim().split(/\s+/)).filter((r) => r[0] !== 'EVENT' && r.length > 3);

describe('operant server --nodes 3: the workload controllers', () => {
  kit('a StatefulSet\'s pods come as web-0, web-1, web-2, each after the one before runs, and go in reverse', async () => {
    const watch = new RunningKubectl(server, ['get', 'pods', '-l', 'app=web', '-w', '--output-watch-events']);
    try {
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
`,
      });
      const status = await kubectlOk(server, ['rollout', 'status', 'statefulset/web', '--timeout=30s']);
      assert.match(status, /partitioned roll out complete: 3 new pods have been updated/);
      assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'sts', 'web']))[1]!.slice(0, 2), ['web', '3/3']);

      await kubectlOk(server, ['scale', 'statefulset', 'web', '--replicas=0']);
      await kubectlOk(server, ['wait', 'pods', '-l', 'app=web', '--for=delete', '--timeout=30s']);
      await watch.waitForLine(/^DELETED\s+web-0\s/);
    } finally {
      await watch.kill();
    }
    const rows = watchRows(watch.lines);
    const added = rows.filter((r) => r[0] === 'ADDED').map((r) => r[1]);
    assert.deepEqual(added, ['web-0', 'web-1', 'web-2']);
    // Each pod was added only after the one before it was seen Running and 1/1.
    for (const [n, name] of ['web-1', 'web-2'].entries()) {
      const addedAt = rows.findIndex((r) => r[0] === 'ADDED' && r[1] === name);
      const readyAt = rows.findIndex((r) => r[1] === `web-${n}` && r[2] === '1/1' && r[3] === 'Running');
      assert.ok(readyAt >= 0 && readyAt < addedAt, `${name} added at line ${addedAt}, web-${n} ready at ${readyAt}`);
    }
    const terminating: string[] = [];
    for (const r of rows) if (r[3] === 'Terminating' && !terminating.includes(r[1]!)) terminating.push(r[1]!);
    assert.deepEqual(terminating, ['web-2', 'web-1', 'web-0']);
  });

  kit('a DaemonSet puts one pod on each node', async () => {
    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: busybox:1.36}]}
`,
    });
    const status = await kubectlOk(server, ['rollout', 'status', 'daemonset/agent', '--timeout=30s']);
    assert.match(status, /daemon set "agent" successfully rolled out/);
    const pods = (await json(['get', 'pods', '-l', 'app=agent'])).items as Json[];
    assert.deepEqual(pods.map((p) => p.spec.nodeName).sort(), ['node-1', 'node-2', 'node-3']);
    assert.ok(pods.every((p) => p.status.phase === 'Running'));
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'ds', 'agent']))[1]!.slice(0, 7), ['agent', '3', '3', '3', '3', '3', '<none>']);
  });

  kit('kubectl create job: the Job completes; a Job of completions 3 runs its pods for their run-seconds', async () => {
    await kubectlOk(server, ['create', 'job', 'pi', '--image=perl:5.34', '--', 'perl', '-e', 'print 1']);
    const met = await kubectlOk(server, ['wait', '--for=condition=complete', 'job/pi', '--timeout=30s']);
    assert.match(met, /job\.batch\/pi condition met/);
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'job', 'pi']))[1]!.slice(0, 3), ['pi', 'Complete', '1/1']);
    const pod = tableRows(await kubectlOk(server, ['get', 'pods', '-l', 'job-name=pi']))[1]!;
    assert.equal(pod[2], 'Completed');

    await kubectlOk(server, ['apply', '-f', '-'], {
      input: `apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  completions: 3
  parallelism: 3
  template:
    metadata:
      annotations: {sim.operant.dev/run-seconds: "120"}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: busybox}]
`,
    });
    await kubectlOk(server, ['wait', '--for=condition=complete', 'job/batch', '--timeout=30s']);
    const job = await json(['get', 'job', 'batch']);
    assert.equal(job.status.succeeded, 3);
    const pods = (await json(['get', 'pods', '-l', 'job-name=batch'])).items as Json[];
    for (const p of pods) {
      const t = p.status.containerStatuses[0].state.terminated;
      // 120 s of cluster time between start and finish, as the annotation asked.
      assert.equal((Date.parse(t.finishedAt) - Date.parse(t.startedAt)) / 1000, 120);
    }
  });

  kit('backoffLimitPerIndex: the index whose pods exit 1 fails after its retry, the others complete; kubectl shows the Job Failed with failedIndexes 1', async () => {
    const shards = new RunningKubectl(server, ['get', 'pods', '-l', 'job-name=shards', '-w', '--output-watch-events', '--no-headers']);
    try {
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: batch/v1
kind: Job
metadata: {name: shards}
spec:
  completions: 3
  parallelism: 3
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    metadata:
      annotations: {sim.operant.dev/run-seconds: "86400"}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: busybox}]
`,
      });
      // The pods run (a day) until told to end: each pod of index 1 to exit 1 now, the first, then the one that
      // replaces it; then those of indexes 0 and 2 to exit 0. (With 120 s, 2 s of wall time at 60x, a loaded
      // machine's kubectl annotate could come after the run had ended with 0, and index 1 completed.)
      let from = 0;
      for (let attempt = 0; attempt < 2; attempt++) {
        const added = await shards.waitForLine(/^ADDED\s+shards-1-[a-z0-9]{5}\s/, from, 20_000);
        from = added.index + 1;
        const name = /shards-1-[a-z0-9]{5}/.exec(added.line)![0];
        await kubectlOk(server, ['annotate', 'pod', name, 'sim.operant.dev/exit-code=1', 'sim.operant.dev/run-seconds=0', '--overwrite']);
      }
      for (const index of [0, 2]) {
        const added = await shards.waitForLine(new RegExp(`^ADDED\\s+shards-${index}-[a-z0-9]{5}\\s`), 0, 20_000);
        await kubectlOk(server, ['annotate', 'pod', /shards-\d-[a-z0-9]{5}/.exec(added.line)![0], 'sim.operant.dev/run-seconds=0', '--overwrite']);
      }
      const met = await kubectlOk(server, ['wait', '--for=condition=failed', 'job/shards', '--timeout=30s']);
      assert.match(met, /job\.batch\/shards condition met/);
    } finally {
      await shards.kill();
    }
    const job = await json(['get', 'job', 'shards']);
    assert.equal(job.status.failedIndexes, '1');
    assert.equal(job.status.completedIndexes, '0,2');
    const failed = (job.status.conditions as Json[]).find((c) => c.type === 'Failed');
    assert.equal(failed?.reason, 'FailedIndexes');
    assert.equal(failed?.message, 'Job has failed indexes');
    assert.deepEqual(tableRows(await kubectlOk(server, ['get', 'job', 'shards']))[1]!.slice(0, 3), ['shards', 'Failed', '2/3']);
    const pods = (await json(['get', 'pods', '-l', 'job-name=shards,batch.kubernetes.io/job-completion-index=1'])).items as Json[];
    assert.deepEqual(pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-index-failure-count']).sort(), ['0', '1']);
    for (const row of tableRows(await kubectlOk(server, ['get', 'pods', '-l', 'job-name=shards,batch.kubernetes.io/job-completion-index=1'])).slice(1)) assert.equal(row[2], 'Error');
  });

  kit('kubectl delete pod: the kubelet reports it Failed with exit code 143, which a podFailurePolicy Ignore rule lets go; the pod is replaced', async () => {
    // Watched from before the create: the Job's pods come after the apply returns, the replacement after the delete.
    const pods = new RunningKubectl(server, ['get', 'pods', '-l', 'job-name=tolerant', '-w', '-o', 'jsonpath={.metadata.name} {.status.phase} {.status.containerStatuses[0].state.terminated.exitCode}{"\\n"}']);
    try {
      await kubectlOk(server, ['apply', '-f', '-'], {
        input: `apiVersion: batch/v1
kind: Job
metadata: {name: tolerant}
spec:
  backoffLimit: 0
  podFailurePolicy:
    rules: [{action: Ignore, onExitCodes: {operator: In, values: [143]}}]
  template:
    metadata:
      annotations: {sim.operant.dev/run-seconds: "100000"}
    spec:
      restartPolicy: Never
      containers: [{name: work, image: busybox}]
`,
      });
      const running = await pods.waitForLine(/^\S+ Running\s*$/, 0, 30_000);
      const first = running.line.split(' ')[0]!;
      await kubectlOk(server, ['delete', 'pod', first, '--wait=false']);
      const ended = await pods.waitForLine(new RegExp(`^${first} Failed 143$`), running.index + 1, 20_000);
      const replacement = await pods.waitForLine(new RegExp(`^(?!${first} )\\S+ Running\\s*$`), ended.index + 1, 30_000);
      assert.ok(replacement);
    } finally {
      await pods.kill();
    }
    const job = await json(['get', 'job', 'tolerant']);
    assert.equal(job.status.failed, undefined, 'ignored, not counted');
    assert.equal(job.status.active, 1);
    assert.equal((job.status.conditions ?? []).some((c: Json) => c.type === 'Failed'), false);
  });

  kit('a CronJob makes a Job at each scheduled minute', async () => {
    const watch = new RunningKubectl(server, ['get', 'jobs', '-w', '--output-watch-events', '--no-headers']);
    try {
      await kubectlOk(server, ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/1 * * * *', '--', 'date']);
      const first = await watch.waitForLine(/^ADDED\s+tick-\d+\s/, 0, 20_000);
      const second = await watch.waitForLine(/^ADDED\s+tick-\d+\s/, first.index + 1, 20_000);
      const minute = (line: string): number => Number(/tick-(\d+)/.exec(line)![1]);
      assert.equal(minute(second.line) - minute(first.line), 1);
      await watch.waitForLine(/^MODIFIED\s+tick-\d+\s+Complete\s/, 0, 20_000);
    } finally {
      await watch.kill();
    }
    const cj = await json(['get', 'cronjob', 'tick']);
    assert.ok(cj.status.lastScheduleTime);
    const described = await kubectlOk(server, ['describe', 'cronjob', 'tick']);
    assert.match(described, /SuccessfulCreate\s+.*cronjob-controller\s+Created job tick-\d+/);
  });
});

describe('operant server --controllers', () => {
  kit('*,-deployment: Deployments are left alone, Jobs still run', async () => {
    const partial = await startServer({ extraArgs: ['--nodes', '1', '--time-scale', '60', '--controllers', '*,-deployment'] });
    try {
      await kubectlOk(partial, ['create', 'deployment', 'idle', '--image=nginx']);
      await kubectlOk(partial, ['create', 'job', 'runs', '--image=busybox']);
      await kubectlOk(partial, ['wait', '--for=condition=complete', 'job/runs', '--timeout=30s']);
      assert.equal((await kubectlOk(partial, ['get', 'rs', '-o', 'name'])).trim(), '');
      assert.deepEqual((await json(['get', 'deployment', 'idle'], partial)).status, {});
    } finally {
      await partial.stop();
    }
  });
});
