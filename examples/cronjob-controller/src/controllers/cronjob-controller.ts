/**
 * The Kubebuilder book's CronJob controller (internal/controller/cronjob_controller.go),
 * ported step by step; the Go tutorial's numbered steps are kept as comments.
 * A CronJob runs a Job at each time of its schedule: the reconcile lists the
 * Jobs it owns, writes the active ones into its status, deletes finished ones
 * beyond the history limits, and creates the Job of the latest missed run
 * unless suspended, too late or forbidden by the concurrency policy; then
 * asks to be reconciled again at the next run. Beyond the tutorial, it records
 * Events as Kubernetes' own CronJob controller does (SuccessfulCreate,
 * SuccessfulDelete), through the manager's recorder.
 */
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import {
  getControllerOf,
  ignoreNotFound,
  isAlreadyExists,
  Job,
  objectReference,
  rfc3339,
  setControllerReference,
  type Manager,
  type ReconcileFunc,
  type Typed,
} from '@operant/runtime';
import { CronJob } from '../api/v1/zz_generated.kinds.js';
import { parseStandard } from './schedule.js';

export type JobObject = Typed<batchv1.Job>;

export const scheduledTimeAnnotation = 'batch.tutorial.kubebuilder.io/scheduled-at';
/** The field index of the Jobs' controlling CronJob (the tutorial's jobOwnerKey). */
export const jobOwnerKey = '.metadata.controller';
const apiGVStr = `${CronJob.group}/${CronJob.version}`;

export interface CronJobReconcilerOptions {
  /** The clock (the tutorial's `Clock` interface, so tests can move time); default the real one. */
  now?: () => Date;
}

// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs/status,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

/** SetupWithManager: the index of Jobs by their CronJob, and a controller for CronJobs that owns Jobs. */
export function setupCronJobController(mgr: Manager, options: CronJobReconcilerOptions = {}): void {
  mgr.cache.indexField(Job, jobOwnerKey, (job) => {
    // grab the job object, extract the owner...
    const owner = getControllerOf(job);
    // ...make sure it's a CronJob...
    if (!owner || owner.apiVersion !== apiGVStr || owner.kind !== 'CronJob') return [];
    // ...and if so, return it
    return [owner.name];
  });
  mgr
    .controller('cronjob')
    .for(CronJob)
    .owns(Job)
    .reconcile(cronJobReconciler(mgr, { now: options.now ?? (() => new Date()) }));
}

function cronJobReconciler(mgr: Manager, { now }: Required<CronJobReconcilerOptions>): ReconcileFunc {
  const recorder = mgr.eventRecorderFor('cronjob-controller');

  return async (req, { client, log }) => {
    // 1: Load the CronJob by name
    const cronJob = await client.get(CronJob, req.name, { namespace: req.namespace }).catch(ignoreNotFound);
    // we'll ignore not-found errors, since they can't be fixed by an immediate
    // requeue (we'll need to wait for a new notification), and we can get them
    // on deleted requests.
    if (!cronJob) return;

    // 2: List all active jobs, and update the status
    const childJobs = await client.list(Job, { namespace: req.namespace, matchingFields: { [jobOwnerKey]: req.name } });
    // find the active list of jobs
    const activeJobs: JobObject[] = [];
    const successfulJobs: JobObject[] = [];
    const failedJobs: JobObject[] = [];
    let mostRecentTime: Date | undefined; // find the last run so we can update the status
    for (const job of childJobs.items) {
      const finishedType = isJobFinished(job);
      if (finishedType === undefined) activeJobs.push(job); // ongoing
      else if (finishedType === 'Failed') failedJobs.push(job);
      else successfulJobs.push(job);
      // We'll store the launch time in an annotation, so we'll reconstitute that from the active jobs themselves.
      const scheduledTimeForJob = getScheduledTimeForJob(job);
      if (scheduledTimeForJob === null) {
        log.error({ job: job.metadata.name }, 'unable to parse schedule time for child job');
        continue;
      }
      if (scheduledTimeForJob && (!mostRecentTime || mostRecentTime < scheduledTimeForJob)) mostRecentTime = scheduledTimeForJob;
    }
    const status = (cronJob.status ??= {});
    if (mostRecentTime) status.lastScheduleTime = rfc3339(mostRecentTime);
    else delete status.lastScheduleTime;
    const active = activeJobs.map((job) => objectReference(job, Job));
    if (active.length > 0) status.active = active;
    else delete status.active; // the CRD says minItems 1: no list rather than an empty one
    log.debug({ activeJobs: activeJobs.length, successfulJobs: successfulJobs.length, failedJobs: failedJobs.length }, 'job count');
    // Using the data we've gathered, we'll update the status of our CRD.
    await client.updateStatus(CronJob, cronJob);

    // 3: Clean up old jobs according to the history limit.
    // NB: deleting these are "best effort" -- if we fail on a particular one,
    // we won't requeue just to finish the deleting.
    const deleteOldest = async (jobs: JobObject[], limit: number | undefined, what: string): Promise<void> => {
      if (limit === undefined) return;
      jobs.sort((a, b) => startTimeOf(a) - startTimeOf(b));
      for (const job of jobs.slice(0, Math.max(0, jobs.length - limit))) {
        try {
          await client.delete(Job, job.metadata.name!, { namespace: req.namespace, propagationPolicy: 'Background' }).catch(ignoreNotFound);
          log.info({ job: job.metadata.name }, `deleted old ${what} job`);
          recorder.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
        } catch (err) {
          log.error({ err, job: job.metadata.name }, `unable to delete old ${what} job`);
        }
      }
    };
    await deleteOldest(failedJobs, cronJob.spec.failedJobsHistoryLimit, 'failed');
    await deleteOldest(successfulJobs, cronJob.spec.successfulJobsHistoryLimit, 'successful');

    // 4: Check if we're suspended
    if (cronJob.spec.suspend) {
      log.debug({}, 'cronjob suspended, skipping');
      return;
    }

    // 5: Get the next scheduled run
    let missedRun: Date | undefined;
    let nextRun: Date | undefined;
    try {
      ({ missedRun, nextRun } = getNextSchedule(cronJob, now()));
    } catch (err) {
      // we don't really care about requeuing until we get an update that fixes the schedule, so don't return an error
      log.error({ err }, 'unable to figure out CronJob schedule');
      return;
    }
    // We'll prep our eventual request to requeue until the next job, and then figure out if we actually need to run.
    // (A schedule with no next run, such as February 30th, is not requeued: robfig's Next gives Go's zero time.)
    const scheduledResult = nextRun ? { requeueAfter: nextRun.getTime() - now().getTime() } : {}; // save this so we can re-use it elsewhere
    const runLog = log.child({ now: now().toISOString(), nextRun: nextRun?.toISOString() ?? 'never' });

    // 6: Run a new job if it's on schedule, not past the deadline, and not blocked by our concurrency policy
    if (!missedRun) {
      runLog.debug({}, 'no upcoming scheduled times, sleeping until next');
      return scheduledResult;
    }
    // make sure we're not too late to start the run
    const currentLog = runLog.child({ currentRun: missedRun.toISOString() });
    const deadline = cronJob.spec.startingDeadlineSeconds;
    if (deadline !== undefined && missedRun.getTime() + deadline * 1000 < now().getTime()) {
      currentLog.debug({}, 'missed starting deadline for last run, sleeping till next');
      return scheduledResult;
    }
    // figure out how to run this job -- concurrency policy might forbid us from running
    // multiple at the same time...
    if (cronJob.spec.concurrencyPolicy === 'Forbid' && activeJobs.length > 0) {
      currentLog.debug({ numActive: activeJobs.length }, 'concurrency policy blocks concurrent runs, skipping');
      return scheduledResult;
    }
    // ...or instruct us to replace existing ones...
    if (cronJob.spec.concurrencyPolicy === 'Replace') {
      for (const activeJob of activeJobs) {
        // we don't care if the job was already deleted
        await client.delete(Job, activeJob.metadata.name!, { namespace: req.namespace, propagationPolicy: 'Background' }).catch(ignoreNotFound);
      }
    }
    // actually make the job...
    const job = constructJobForCronJob(cronJob, missedRun);
    // ...and create it on the cluster
    try {
      await client.create(Job, job);
    } catch (err) {
      // The name is deterministic so that a run is never created twice: a reconcile that
      // ran before the cache saw our Job finds it there, and that is not a failure.
      if (!isAlreadyExists(err)) throw err;
      currentLog.debug({ job: job.metadata.name }, 'Job for CronJob run already exists');
      return scheduledResult;
    }
    currentLog.debug({ job: job.metadata.name }, 'created Job for CronJob run');
    recorder.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${job.metadata.name}`);

    // 7: Requeue when we either see a running job or it's time for the next scheduled run
    return scheduledResult;
  };
}

/** The condition a Job finished with (`Complete` or `Failed`), or undefined while it runs. */
function isJobFinished(job: JobObject): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

/** The run a Job was made for: undefined without the annotation, null when it does not parse. */
function getScheduledTimeForJob(job: JobObject): Date | undefined | null {
  const timeRaw = job.metadata.annotations?.[scheduledTimeAnnotation];
  if (!timeRaw) return undefined;
  const time = new Date(timeRaw);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** A Job's start time for sorting: a Job that has not started sorts first, as in the tutorial. */
function startTimeOf(job: JobObject): number {
  return job.status?.startTime ? new Date(job.status.startTime).getTime() : -Infinity;
}

/**
 * The latest run missed since the last one (or since creation), and the next
 * run after now. Too many missed runs (> 100) is an error, as in the tutorial.
 */
export function getNextSchedule(cronJob: CronJob, now: Date): { missedRun: Date | undefined; nextRun: Date | undefined } {
  let sched;
  try {
    sched = parseStandard(cronJob.spec.schedule);
  } catch (err) {
    throw new Error(`unparseable schedule ${JSON.stringify(cronJob.spec.schedule)}: ${(err as Error).message}`, { cause: err });
  }
  // for optimization purposes, cheat a bit and start from our last observed run time
  // we could reconstitute this here, but there's not much point, since we've
  // just updated it.
  let earliestTime = new Date(cronJob.status?.lastScheduleTime ?? cronJob.metadata.creationTimestamp!);
  if (cronJob.spec.startingDeadlineSeconds !== undefined) {
    // controller is not going to schedule anything below this point
    const schedulingDeadline = new Date(now.getTime() - cronJob.spec.startingDeadlineSeconds * 1000);
    if (schedulingDeadline > earliestTime) earliestTime = schedulingDeadline;
  }
  if (earliestTime > now) return { missedRun: undefined, nextRun: sched.next(now) };
  let missedRun: Date | undefined;
  let starts = 0;
  for (let t = sched.next(earliestTime); t && t <= now; t = sched.next(t)) {
    missedRun = t;
    // An object might miss several starts. For example, if
    // controller gets wedged on Friday at 5:01pm when everyone has
    // gone home, and someone comes in on Tuesday AM and discovers
    // the problem and restarts the controller, then all the hourly
    // jobs, more than 80 of them for one hourly scheduledJob, should
    // all start running with no further intervention (if the scheduledJob
    // allows concurrency and late starts).
    //
    // However, if there is a bug somewhere, or incorrect clock
    // on controller's server or apiservers (for setting creationTimestamp)
    // then there could be so many missed start times (it could be off
    // by decades or more), that it would eat up all the CPU and memory
    // of this controller. In that case, we want to not try to list
    // all the missed start times.
    if (++starts > 100) {
      // We can't get the most recent times so just return an empty slice
      throw new Error('Too many missed start times (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.');
    }
  }
  return { missedRun, nextRun: sched.next(now) };
}

/** The Job of one run: the template's spec, labels and annotations, a deterministic name, and the CronJob as controller. */
function constructJobForCronJob(cronJob: CronJob, scheduledTime: Date): JobObject {
  // We want job names for a given nominal start time to have a deterministic name to avoid the same job being created twice
  const name = `${cronJob.metadata.name}-${Math.floor(scheduledTime.getTime() / 1000)}`;
  const template = cronJob.spec.jobTemplate;
  const job: JobObject = {
    metadata: {
      name,
      namespace: cronJob.metadata.namespace,
      labels: { ...template.metadata?.labels },
      annotations: { ...template.metadata?.annotations, [scheduledTimeAnnotation]: rfc3339(scheduledTime) },
    },
    spec: structuredClone(template.spec),
  };
  setControllerReference(cronJob, job, CronJob);
  return job;
}
