/**
 * The CronJob operator against the embedded API server (@operant/testing's
 * TestEnv), by its effects on the API: the webhooks (installed by the manager
 * itself, as in a local run) default a CronJob and refuse a bad schedule or
 * name; a batch/v1 Job is created for the latest missed run, owned by its
 * CronJob and listed in status.active; the concurrency policies, suspend and
 * startingDeadlineSeconds decide whether a run starts; finished Jobs beyond
 * the history limits are deleted; Events record what was done. The
 * controller's clock is the test's, so "a minute later" is a line of code.
 *
 * The environment runs no simulated cluster, so no Job controller runs the
 * Jobs: the test finishes a Job by writing its status, as the Job controller
 * would.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ApiError,
  EventsV1Event,
  Job,
  createLogger,
  defineKind,
  generateServingCertificate,
  Manager,
  MutatingWebhookConfiguration,
  rfc3339,
  setControllerReference,
} from '@operant/runtime';
import { TestEnv, consistently, eventuallyFound } from '@operant/testing';
import type { CronJobSpec } from '../src/api/v1/cronjob-types.js';
import { CronJob } from '../src/api/v1/zz_generated.kinds.js';
import { scheduledTimeAnnotation, setupCronJobController, type JobObject } from '../src/controllers/cronjob-controller.js';
import { setupCronJobWebhookWithManager } from '../src/webhooks/v1/cronjob-webhook.js';

const exampleDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const minute = 60_000;
const env = await TestEnv.start({ crds: join(exampleDir, 'config/crd/bases') });
const client = env.client;
let mgr: Manager;
/** The controller's clock. Each test starts it an hour back, before its CronJobs: no run is missed until the test moves it. */
let clock = new Date(0);
beforeEach(() => {
  clock = new Date(Date.now() - 60 * minute);
});
const stop = new AbortController();
let running: Promise<void>;
let namespaces = 0;

/** How long a test waits for the controller to get somewhere. */
const patience = 10_000;

before(async () => {
  // A local run: generated certificates, and the webhook configurations the manager installs for itself.
  const certs = await generateServingCertificate();
  mgr = await Manager.create({
    kubeconfig: env.kubeconfig.config,
    logger: createLogger(),
    client: { qps: Infinity },
    webhook: { port: 0, host: '127.0.0.1', certificates: certs.source, localConfigurations: { caPem: certs.caPem, name: 'cronjob-test' } },
  });
  setupCronJobController(mgr, { now: () => clock });
  setupCronJobWebhookWithManager(mgr);
  running = mgr.start(stop.signal);
  await Promise.race([mgr.elected(), running]);
});

after(async () => {
  stop.abort();
  await running;
  await env.stop();
});

// No template metadata: the CRD prunes it (controller-gen writes an embedded ObjectMeta as a bare
// `type: object`, as in the tutorial's cluster), so a Job's labels could never come from there.
const jobTemplate: CronJobSpec['jobTemplate'] = {
  spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox', args: ['/bin/sh', '-c', 'date'] }], restartPolicy: 'OnFailure' } } },
};

/** A CronJob running every minute in a namespace of its own. */
async function newCronJob(name: string, spec: Partial<CronJobSpec> = {}): Promise<CronJob> {
  const namespace = `cronjobs-${++namespaces}`;
  await client.create(defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false }), { metadata: { name: namespace } });
  return client.create(CronJob, { metadata: { name, namespace }, spec: { schedule: '*/1 * * * *', jobTemplate, ...spec } });
}

/** Moves the controller's clock and makes it look (an annotation change reconciles the CronJob). */
async function at(time: Date, cronJob: CronJob): Promise<void> {
  clock = time;
  await client.patch(CronJob, cronJob.metadata.name!, { metadata: { annotations: { 'test/now': time.toISOString() } } }, { namespace: cronJob.metadata.namespace });
}

/** The Jobs in the CronJob's namespace, by name. */
async function jobs(cronJob: CronJob): Promise<JobObject[]> {
  const list = await client.list(Job, { namespace: cronJob.metadata.namespace });
  return list.items.sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
}

/** The minute boundary at or before `t`: the run a clock at `t` has just missed. */
function runAt(t: Date): Date {
  return new Date(Math.floor(t.getTime() / minute) * minute);
}

function jobName(cronJob: CronJob, run: Date): string {
  return `${cronJob.metadata.name}-${run.getTime() / 1000}`;
}

/** Finishes a Job as the Job controller would: a start time, and a Complete (with its completion time) or Failed condition. */
async function finish(job: JobObject, type: 'Complete' | 'Failed', startTime: Date): Promise<void> {
  const now = rfc3339(new Date());
  const condition = { type, status: 'True', lastProbeTime: now, lastTransitionTime: now, ...(type === 'Failed' ? { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' } : {}) };
  await client.updateStatus(Job, { ...job, status: { startTime: rfc3339(startTime), ...(type === 'Complete' ? { completionTime: now, succeeded: 1 } : { failed: 1 }), conditions: [condition] } });
}

describe('the CronJob webhooks', () => {
  test('default what the tutorial defaults, and refuse a schedule robfig/cron cannot parse and a name too long for its Jobs', async () => {
    const cronJob = await newCronJob('defaulted');
    assert.deepEqual(
      [cronJob.spec.concurrencyPolicy, cronJob.spec.suspend, cronJob.spec.successfulJobsHistoryLimit, cronJob.spec.failedJobsHistoryLimit],
      ['Allow', false, 3, 1],
    );
    const installed = await client.get(MutatingWebhookConfiguration, 'cronjob-test');
    assert.equal(installed.webhooks?.[0]?.name, 'mcronjob-v1.kb.io', 'the manager installed the configuration the markers describe');

    const refusal = async (name: string, schedule: string): Promise<string> => {
      const err = await client.create(CronJob, { metadata: { name, namespace: cronJob.metadata.namespace }, spec: { schedule, jobTemplate } }).then(
        () => assert.fail('created'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ApiError && err.code === 422, String(err));
      return err.message;
    };
    // kube-apiserver prefixes a webhook's denial with the webhook's name.
    assert.equal(
      await refusal('bad-schedule', '*/1 * * *'),
      'admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.tutorial.kubebuilder.io "bad-schedule" is invalid: spec.schedule: Invalid value: "*/1 * * *": expected exactly 5 fields, found 4: [*/1 * * *]',
    );
    assert.equal(
      await refusal('bad-minute', '60 * * * *'),
      'admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.tutorial.kubebuilder.io "bad-minute" is invalid: spec.schedule: Invalid value: "60 * * * *": end of range (60) above maximum (59): 60',
    );
    const long = 'x'.repeat(53);
    assert.equal(
      await refusal(long, '@hourly'),
      `admission webhook "vcronjob-v1.kb.io" denied the request: CronJob.batch.tutorial.kubebuilder.io "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 52 characters`,
    );
  });
});

describe('the CronJob controller', () => {
  test('creates the Job of the latest missed run, owned by the CronJob and listed in status.active; a minute later, the next', async () => {
    const cronJob = await newCronJob('every-minute');
    const created = new Date(cronJob.metadata.creationTimestamp!);
    const first = runAt(new Date(created.getTime() + 1.5 * minute));
    await at(new Date(created.getTime() + 1.5 * minute), cronJob);
    const [job] = await eventuallyFound(async () => {
      const list = await jobs(cronJob);
      return list.length > 0 && list;
    }, { message: 'the first Job', timeout: patience });
    assert.equal(job!.metadata.name, jobName(cronJob, first));
    assert.deepEqual(job!.metadata.ownerReferences, [
      { apiVersion: 'batch.tutorial.kubebuilder.io/v1', kind: 'CronJob', name: 'every-minute', uid: cronJob.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(job!.metadata.annotations, { [scheduledTimeAnnotation]: rfc3339(first) });
    // The Job's spec is the template's, with the server's batch/v1 defaults (and generated selector) added.
    assert.deepEqual(job!.spec?.template.spec?.containers.map((c) => [c.name, c.image, c.args]), [['hello', 'busybox', ['/bin/sh', '-c', 'date']]]);
    assert.equal(job!.spec?.template.spec?.restartPolicy, 'OnFailure');
    await eventuallyFound(async () => {
      const status = (await client.get(CronJob, 'every-minute', { namespace: cronJob.metadata.namespace })).status;
      return status?.active?.length === 1 && status.lastScheduleTime === rfc3339(first) && status.active[0]!.name === job!.metadata.name && status.active[0]!.uid === job!.metadata.uid;
    }, { message: 'status.active', timeout: patience });

    await at(new Date(first.getTime() + minute + 5_000), cronJob);
    const both = await eventuallyFound(async () => {
      const list = await jobs(cronJob);
      return list.length === 2 && list;
    }, { message: 'the second Job', timeout: patience });
    assert.deepEqual(both.map((j) => j.metadata.name).sort(), [jobName(cronJob, first), jobName(cronJob, new Date(first.getTime() + minute))].sort());
    await eventuallyFound(async () => (await client.get(CronJob, 'every-minute', { namespace: cronJob.metadata.namespace })).status?.active?.length === 2, { message: 'both Jobs active (concurrencyPolicy Allow)', timeout: patience });

    // Events, as Kubernetes' CronJob controller records them, from the manager's recorder.
    await mgr.eventRecorderFor('cronjob-controller').flush();
    const events = (await client.list(EventsV1Event, { namespace: cronJob.metadata.namespace })).items as Array<{ reason?: string; note?: string; reportingController?: string }>;
    assert.deepEqual(
      events.filter((e) => e.reason === 'SuccessfulCreate').map((e) => [e.reportingController, e.note]).sort(),
      both.map((j) => ['cronjob-controller', `Created job ${j.metadata.name}`]).sort(),
    );
  });

  test('finished Jobs leave status.active, and only the newest within the history limits are kept', async () => {
    const cronJob = await newCronJob('history', { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1, suspend: true });
    const base = new Date(cronJob.metadata.creationTimestamp!);
    const made: JobObject[] = [];
    for (let i = 0; i < 6; i++) {
      const run = new Date(base.getTime() + i * minute);
      const job: JobObject = { metadata: { name: `history-run-${i}`, namespace: cronJob.metadata.namespace, annotations: { [scheduledTimeAnnotation]: rfc3339(run) } }, spec: jobTemplate.spec };
      setControllerReference(cronJob, job, CronJob);
      made.push(await client.create(Job, job));
    }
    // Runs 0-2 succeeded, 3-4 failed, 5 is still running.
    for (let i = 0; i < 5; i++) await finish(made[i]!, i < 3 ? 'Complete' : 'Failed', new Date(base.getTime() + i * minute));
    await at(new Date(base.getTime() + 10 * minute), cronJob);
    await eventuallyFound(async () => {
      const names = (await jobs(cronJob)).map((j) => j.metadata.name);
      return JSON.stringify(names) === JSON.stringify(['history-run-2', 'history-run-4', 'history-run-5']);
    }, { message: 'the old finished Jobs to go', timeout: patience });
    const status = await eventuallyFound(async () => {
      const s = (await client.get(CronJob, 'history', { namespace: cronJob.metadata.namespace })).status;
      return s?.active?.length === 1 && s;
    }, { message: 'the status', timeout: patience });
    assert.equal(status.active![0]!.name, 'history-run-5');
    assert.equal(status.lastScheduleTime, rfc3339(new Date(base.getTime() + 5 * minute)));
  });

  test('Forbid skips a run while a Job is active; Replace deletes the active Job and starts the new run\'s', async () => {
    const forbid = await newCronJob('forbid', { concurrencyPolicy: 'Forbid' });
    const replace = await newCronJob('replace', { concurrencyPolicy: 'Replace' });
    const start = new Date(Math.max(Date.parse(forbid.metadata.creationTimestamp!), Date.parse(replace.metadata.creationTimestamp!)) + 1.5 * minute);
    const first = runAt(start);
    await at(start, forbid);
    await at(start, replace);
    for (const cj of [forbid, replace]) await eventuallyFound(async () => (await jobs(cj)).length === 1, { message: `${cj.metadata.name}'s first Job`, timeout: patience });

    const later = new Date(first.getTime() + minute + 5_000);
    await at(later, forbid);
    await at(later, replace);
    const replaced = await eventuallyFound(async () => {
      const names = (await jobs(replace)).map((j) => j.metadata.name);
      return names.length === 1 && names[0] === jobName(replace, runAt(later)) && names;
    }, { message: 'the replacement', timeout: patience });
    assert.deepEqual(replaced, [jobName(replace, runAt(later))]);
    // The Forbid CronJob was told of the same time, and starts nothing (given time to have done it wrongly).
    await consistently(async () => assert.deepEqual((await jobs(forbid)).map((j) => j.metadata.name), [jobName(forbid, first)]), { duration: 300, message: 'Forbid starts nothing while its Job runs' });

    // Once the active Job finishes, the next run starts.
    await finish((await jobs(forbid))[0]!, 'Complete', first);
    const third = new Date(first.getTime() + 2 * minute + 5_000);
    await at(third, forbid);
    await eventuallyFound(async () => (await jobs(forbid)).some((j) => j.metadata.name === jobName(forbid, runAt(third))), { message: 'the next run after the active Job finished', timeout: patience });
  });

  test('a suspended CronJob starts nothing, and a run older than startingDeadlineSeconds is not started late', async () => {
    const suspended = await newCronJob('suspended', { suspend: true });
    const late = await newCronJob('late', { startingDeadlineSeconds: 10 });
    const created = Math.max(Date.parse(suspended.metadata.creationTimestamp!), Date.parse(late.metadata.creationTimestamp!));
    // 30 s past a minute boundary: that run is 20 s past the deadline.
    const missed = new Date(runAt(new Date(created + 1.5 * minute)).getTime() + 30_000);
    await at(missed, suspended);
    await at(missed, late);
    await consistently(async () => {
      assert.deepEqual(await jobs(suspended), []);
      assert.deepEqual(await jobs(late), []);
    }, { duration: 300, message: 'no run while suspended or past the deadline' });
    // 5 s past the next boundary: within the deadline.
    const inTime = new Date(runAt(missed).getTime() + minute + 5_000);
    await at(inTime, late);
    await eventuallyFound(async () => (await jobs(late)).some((j) => j.metadata.name === jobName(late, runAt(inTime))), { message: 'the run within the deadline', timeout: patience });
    await client.patch(CronJob, 'suspended', { spec: { suspend: false } }, { namespace: suspended.metadata.namespace });
    await eventuallyFound(async () => (await jobs(suspended)).some((j) => j.metadata.name === jobName(suspended, runAt(inTime))), { message: 'the suspended CronJob to run once resumed', timeout: patience });
  });
});
