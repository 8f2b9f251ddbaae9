/**
 * The cronjob controller (kube's cronjob_controllerv2.go): makes a Job from
 * the template at each time the schedule names, in `spec.timeZone` (UTC when
 * unset), reading time from the cluster clock so that tests can run it fast.
 *
 * - Only the most recent missed time is run (kube warns past 100 missed);
 *   with `startingDeadlineSeconds`, a time later than that is skipped;
 * - concurrencyPolicy: Allow runs Jobs side by side, Forbid skips a time
 *   while one is active, Replace deletes the active ones first;
 * - `status.active` lists the running Jobs, `lastScheduleTime` and
 *   `lastSuccessfulTime` follow them;
 * - finished Jobs beyond successfulJobsHistoryLimit and
 *   failedJobsHistoryLimit are deleted, oldest first.
 *
 * Jobs are named `<cronjob>-<minutes since the epoch of the scheduled time>`,
 * as kube names them, so a time is never run twice.
 */
import { deepCopy } from '@operant/apimachinery';
import { parseCronSchedule, type CronSchedule } from '@operant/apimachinery/cron';
import { CronJob, ignoreNotFound, isAlreadyExists, isControlledBy, isNotFound, Job, objectReference, setControllerReference, type Manager, type ReconcileResult, type Request, type Typed } from '@operant/runtime';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { rfc3339, timeOf } from '../clock.js';
import { canonicalJson } from '../json.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';

type CronJobObject = Typed<batchv1.CronJob>;
type JobObject = Typed<batchv1.Job>;
type CronJobStatus = { -readonly [K in keyof batchv1.CronJobStatus]: batchv1.CronJobStatus[K] };

/** The annotation kube puts on each Job with the time it was scheduled for. */
export const scheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** kube's check after which missed start times are reported, not counted further. */
const tooManyMissed = 100;

/**
 * Adds kube's cronjob controller to a manager. Give it the cluster's clock
 * (`options.clock`) to run schedules faster than the wall.
 *
 * @example
 * ```ts
 * import { acceleratedClock, addCronJobController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const clock = acceleratedClock(60); // a minute a second
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addCronJobController(mgr, { clock });
 * await mgr.start(handleSignals());
 * ```
 */
export function addCronJobController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('cronjob-controller'), now: () => (clock ?? Date).now() };
  mgr
    .controller('cronjob', clock ? { clock } : {})
    .for(CronJob)
    .owns(Job)
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) => syncCronJob(ctx, req));
}

const jobFinished = (job: JobObject): { type: string; at?: string } | undefined => {
  const c = (job.status?.conditions ?? []).find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  return c ? { type: c.type, at: c.lastTransitionTime } : undefined;
};

function jobReference(job: JobObject): corev1.ObjectReference {
  return { kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name, uid: job.metadata.uid, apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion };
}

async function syncCronJob(ctx: Context, req: Request): Promise<ReconcileResult | void> {
  const found = (await ctx.client.get(CronJob, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as CronJobObject | undefined;
  if (!found) return;
  const cj = deepCopy(found) as CronJobObject;
  const jobs = ((await ctx.client.list(Job, { namespace: req.namespace })).items as JobObject[]).filter((j) => isControlledBy(j, cj));
  const regarding = objectReference(cj, CronJob);
  const status: CronJobStatus = deepCopy(cj.status ?? {}) as CronJobStatus;

  // kube's cleanupFinishedJobs and the active list: finished Jobs leave it, running ones it lacks join it.
  const active: corev1.ObjectReference[] = [];
  for (const job of jobs) {
    const finished = jobFinished(job);
    const listed = (status.active ?? []).some((r) => r.uid === job.metadata.uid);
    if (!finished) {
      if (!job.metadata.deletionTimestamp) active.push(jobReference(job));
      continue;
    }
    if (listed) ctx.recorder.event(regarding, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, condition: ${finished.type}`);
    if (finished.type === 'Complete') {
      const at = timeOf(finished.at ?? job.status?.completionTime);
      if (at !== undefined && (timeOf(status.lastSuccessfulTime) ?? 0) < at) status.lastSuccessfulTime = rfc3339(at);
    }
  }
  status.active = active.length ? active : undefined;
  await removeOldJobs(ctx, cj, jobs);

  const now = ctx.now();
  let requeue: number | undefined;
  if (!cj.metadata.deletionTimestamp && !cj.spec?.suspend) requeue = await scheduleNext(ctx, cj, status, now);
  for (const key of Object.keys(status) as Array<keyof CronJobStatus>) if (status[key] === undefined) delete status[key];
  if (canonicalJson(status) !== canonicalJson(cj.status ?? {})) await ctx.client.updateStatus(CronJob, { ...cj, status } as CronJobObject);
  if (requeue !== undefined) return { requeueAfter: Math.max(1, requeue) };
}

/** The most recent scheduled time in (earliest, now], and how many there were (kube's mostRecentScheduleTime). */
function mostRecent(schedule: CronSchedule, earliest: number, now: number, zone: string): { time?: number; missed: number } {
  let time: number | undefined;
  let missed = 0;
  for (let t = schedule.next(earliest, zone); t !== undefined && t <= now; t = schedule.next(t, zone)) {
    time = t;
    if (++missed > tooManyMissed) {
      // Jump to the last one before now rather than walk every missed time.
      let last = t;
      for (let n = schedule.next(last, zone); n !== undefined && n <= now; n = schedule.next(n, zone)) last = n;
      time = last;
      break;
    }
  }
  return { time, missed };
}

/** Runs the schedule's due time, if any; returns how long until the next one (ms). */
async function scheduleNext(ctx: Context, cj: CronJobObject, status: CronJobStatus, now: number): Promise<number | undefined> {
  const spec = cj.spec!;
  const regarding = objectReference(cj, CronJob);
  let schedule: CronSchedule;
  try {
    schedule = parseCronSchedule(spec.schedule);
  } catch (err) {
    ctx.recorder.event(regarding, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(spec.schedule)} : ${(err as Error).message}`);
    return undefined;
  }
  const zone = spec.timeZone ?? 'UTC';
  let earliest = timeOf(status.lastScheduleTime) ?? timeOf(cj.metadata.creationTimestamp) ?? now;
  if (spec.startingDeadlineSeconds !== undefined) earliest = Math.max(earliest, now - spec.startingDeadlineSeconds * 1000);
  const { time, missed } = mostRecent(schedule, earliest, now, zone);
  const untilNext = (): number | undefined => {
    const next = schedule.next(now, zone);
    return next === undefined ? undefined : next - now + 100;
  };
  if (time === undefined) return untilNext();
  if (missed > tooManyMissed) {
    ctx.recorder.event(regarding, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
  }
  if (spec.startingDeadlineSeconds !== undefined && time + spec.startingDeadlineSeconds * 1000 < now) {
    ctx.recorder.event(regarding, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc3339(time)}`);
    return untilNext();
  }
  const name = `${cj.metadata.name}-${Math.floor(time / 60_000)}`;
  if ((status.active ?? []).some((r) => r.name === name)) return untilNext();
  const running = status.active ?? [];
  if (spec.concurrencyPolicy === 'Forbid' && running.length > 0) {
    ctx.recorder.event(regarding, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
    return untilNext();
  }
  if (spec.concurrencyPolicy === 'Replace') {
    for (const ref of running) {
      try {
        await ctx.client.delete(Job, ref.name!, { namespace: cj.metadata.namespace, propagationPolicy: 'Background' });
        ctx.recorder.event(regarding, 'Normal', 'SuccessfulDelete', `Deleted job ${ref.name}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    status.active = undefined;
  }
  const job = jobFromTemplate(cj, name, time, zone);
  try {
    const created = (await ctx.client.create(Job, job)) as JobObject;
    ctx.recorder.event(regarding, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
    status.active = [...(status.active ?? []), jobReference(created)];
  } catch (err) {
    // Made already (an earlier sync whose status write was lost): the time counts as run.
    if (!isAlreadyExists(err)) {
      ctx.recorder.event(regarding, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
      throw err;
    }
  }
  status.lastScheduleTime = rfc3339(time);
  return untilNext();
}

/** kube's getJobFromTemplate2: the template's labels, annotations and spec, the scheduled time, a controller reference. */
function jobFromTemplate(cj: CronJobObject, name: string, scheduled: number, zone: string): JobObject {
  const template = cj.spec?.jobTemplate;
  const job: JobObject = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: cj.metadata.namespace,
      labels: template?.metadata?.labels,
      annotations: { ...template?.metadata?.annotations, [scheduledTimestampAnnotation]: zonedRfc3339(scheduled, zone) },
    },
    spec: deepCopy(template?.spec) ?? { template: {} },
  };
  setControllerReference(cj, job, CronJob);
  return job;
}

/** RFC 3339 of an instant as seen in `zone` (`2024-05-01T09:00:00-04:00`), as Go formats a time in its location. */
function zonedRfc3339(ms: number, zone: string): string {
  if (zone === 'UTC') return rfc3339(ms);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const zoneText = offset === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${zoneText}`;
}

/** Deletes finished Jobs beyond the history limits, oldest first (kube's removeOldestJobs). */
async function removeOldJobs(ctx: Context, cj: CronJobObject, jobs: JobObject[]): Promise<void> {
  const regarding = objectReference(cj, CronJob);
  const limits: Array<[string, number | undefined]> = [
    ['Complete', cj.spec?.successfulJobsHistoryLimit],
    ['Failed', cj.spec?.failedJobsHistoryLimit],
  ];
  for (const [type, limit] of limits) {
    if (limit === undefined) continue;
    const finished = jobs
      .filter((j) => !j.metadata.deletionTimestamp && jobFinished(j)?.type === type)
      .sort((a, b) => (timeOf(a.status?.startTime) ?? 0) - (timeOf(b.status?.startTime) ?? 0));
    for (const job of finished.slice(0, Math.max(0, finished.length - limit))) {
      try {
        await ctx.client.delete(Job, job.metadata.name!, { namespace: job.metadata.namespace, propagationPolicy: 'Background' });
        ctx.recorder.event(regarding, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
