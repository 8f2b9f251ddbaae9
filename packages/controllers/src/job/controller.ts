/**
 * The job controller (kube's job_controller.go): runs a Job's pods to
 * completion.
 *
 * - Up to `parallelism` pods run at once, until `completions` of them
 *   succeeded (without completions: until one succeeded and none is left);
 * - a failed pod is replaced after kube's backoff (10 s, doubling, at most
 *   6 min) until more than `backoffLimit` failed (with OnFailure, until the
 *   containers' restarts reach it): the Job then fails with
 *   BackoffLimitExceeded; past `activeDeadlineSeconds` with DeadlineExceeded;
 * - `suspend` removes the running pods, and resuming starts again;
 * - Indexed completion: each pod runs one index from 0 to completions - 1
 *   (its `batch.kubernetes.io/job-completion-index` annotation and label,
 *   `JOB_COMPLETION_INDEX` in its environment, hostname `<job>-<index>`), the
 *   lowest missing ones first, until every index succeeded once
 *   (`status.completedIndexes`);
 * - finished pods are counted as kube counts them: each pod carries the
 *   `batch.kubernetes.io/job-tracking` finalizer, a terminated pod is first
 *   recorded in `status.uncountedTerminatedPods`, then loses its finalizer,
 *   then moves into `succeeded` or `failed`, so none is lost or counted twice
 *   (a pod someone else deleted before it ended counts as failed; the ones
 *   this controller deletes lose their finalizer first and do not count);
 * - a finished Job gets SuccessCriteriaMet and Complete (or FailureTarget and
 *   Failed) and, with `ttlSecondsAfterFinished`, is deleted that long after;
 * - with a `podFailurePolicy`, each failed pod goes through its rules
 *   (./pod-failure-policy.ts): FailJob fails the Job at once (reason
 *   PodFailurePolicy, FailureTarget recorded with the pod's count so that it
 *   survives the pod), Ignore leaves the pod out of `failed` and
 *   backoffLimit (its failure still holds the next pod back), Count counts
 *   it as usual, FailIndex fails its index;
 * - with a `podFailurePolicy` or `podReplacementPolicy: Failed`, a pod that
 *   is deleted is neither counted nor replaced until the kubelet reports it
 *   Failed (kube's isPodFailed and onlyReplaceFailedPods), so the policy's
 *   rules see how its containers really ended; `status.terminating` counts
 *   the pods on their way out;
 * - Indexed with `backoffLimitPerIndex` (./per-index.ts): each index counts
 *   its failures, an index past its limit (or failed by a FailIndex rule)
 *   goes into `status.failedIndexes` and is not run again, the Job fails with
 *   MaxFailedIndexesExceeded once more than `maxFailedIndexes` indexes
 *   failed, and with FailedIndexes once every index ended and some failed.
 *
 * Pods run for the time their `sim.operant.dev/run-seconds` annotation says
 * on the simulated nodes (see the kubelet).
 */
import { deepCopy } from '@operant/apimachinery';
import { ignoreNotFound, isControlledBy, isNotFound, Job, objectReference, Pod, type Manager, type ReconcileResult, type Request, type Typed } from '@operant/runtime';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import { rfc3339, timeOf } from '../clock.js';
import { canonicalJson } from '../json.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import type { PodObject } from '../objects.js';
import { isPodReady } from '../pod/pod-util.js';
import { slowStartBatch } from '../replicaset/controller.js';
import { createOwnedPod, deleteOwnedPod, isTerminal, podFromTemplate } from '../workload/pod-template.js';
import { completionIndexKey, formatIndexes, indexOf, parseIndexes } from './indexes.js';
import { failsItsIndex, failureCountAnnotations, finishedAt, hasBackoffLimitPerIndex, indexAbsoluteFailureCount as indexAbsoluteFailures, lastFailedPodPerIndex } from './per-index.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';

type JobObject = Typed<batchv1.Job>;
type JobStatus = { -readonly [K in keyof batchv1.JobStatus]: batchv1.JobStatus[K] };
type JobCondition = batchv1.JobCondition;

/** The finalizer that keeps a Job's pod until the Job counted it. */
export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';

/** kube's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
const backoffBaseMs = 10_000;
const backoffMaxMs = 360_000;

/**
 * Adds kube's job controller to a manager.
 *
 * @example
 * ```ts
 * import { addJobController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addJobController(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addJobController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('job-controller'), now: () => (clock ?? Date).now() };
  const backoff: Backoff = new Map();
  mgr
    .controller('job', clock ? { clock } : {})
    .for(Job)
    .owns(Pod)
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile((req) => syncJob(ctx, req, backoff));
}

/**
 * What the pod creation back-off remembers of each Job, by its key
 * (`namespace/name`), in memory as kube's backoff store; a record is
 * dropped when its Job is gone or finished.
 */
type Backoff = Map<string, BackoffRecord>;

interface BackoffRecord {
  /** The Job the record is about: one of the same name made later starts afresh. */
  uid: string;
  /** When a pod of the Job last failed. */
  lastFailure: number;
  /** How many of its failed pods an Ignore rule left out of `status.failed`: they still lengthen the back-off. */
  ignoredFailures: number;
}

/** The status's condition of `type` when it is True. */
const trueCondition = (status: JobStatus, type: string): JobCondition | undefined => (status.conditions ?? []).find((c) => c.type === type && c.status === 'True');
const hasCondition = (job: JobObject, type: string): boolean => trueCondition(job.status ?? {}, type) !== undefined;
const isFinished = (job: JobObject): boolean => hasCondition(job, 'Complete') || hasCondition(job, 'Failed');
const hasFinalizer = (pod: PodObject): boolean => (pod.metadata.finalizers ?? []).includes(jobTrackingFinalizer);
/**
 * kube's onlyReplaceFailedPods: with `podReplacementPolicy: Failed` (the
 * only one a pod failure policy allows) a pod on its way out is awaited.
 */
const onlyReplaceFailedPods = (job: JobObject): boolean => job.spec?.podReplacementPolicy === 'Failed' || !!job.spec?.podFailurePolicy;
/**
 * kube's isPodFailed: Failed; unless only failed pods are replaced, also
 * deleted before it succeeded (an orphan never reaches Failed).
 */
function isPodFailed(pod: PodObject, job: JobObject): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded';
}

/** kube's getFailJobMessage: the message of the first failed pod that matches a FailJob rule. */
function failJobMessage(job: JobObject, pods: PodObject[]): string | undefined {
  const policy = job.spec?.podFailurePolicy;
  if (!policy) return undefined;
  for (const pod of pods) {
    if (!isPodFailed(pod, job)) continue;
    const message = matchPodFailurePolicy(policy, pod).failJobMessage;
    if (message) return message;
  }
  return undefined;
}

/** Removes the tracking finalizer from each pod (ignoring pods already gone). */
async function releasePods(ctx: Context, pods: PodObject[]): Promise<void> {
  await Promise.all(
    pods.filter(hasFinalizer).map((p) =>
      ctx.client
        .patch(Pod, p.metadata.name!, { metadata: { finalizers: (p.metadata.finalizers ?? []).filter((f) => f !== jobTrackingFinalizer) } }, { namespace: p.metadata.namespace, patchType: 'merge' })
        .catch(ignoreNotFound),
    ),
  );
}

/**
 * kube's deleteJobPods: a pod the controller removes itself (suspension, a
 * surplus, the Job done or failed) loses its tracking finalizer first, so it
 * is not counted as a failure.
 */
async function deleteJobPod(ctx: Context, job: JobObject, pod: PodObject): Promise<void> {
  await releasePods(ctx, [pod]);
  await deleteOwnedPod(ctx, job, Job, pod);
}

async function syncJob(ctx: Context, req: Request, backoff: Backoff): Promise<ReconcileResult | void> {
  const all = (await ctx.client.list(Pod, { namespace: req.namespace })).items as PodObject[];
  const found = (await ctx.client.get(Job, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as JobObject | undefined;
  const key = `${req.namespace ?? ''}/${req.name}`;
  if (!found || found.metadata.deletionTimestamp) {
    // kube's removeBackoffRecord: nothing is created for a Job that is gone.
    backoff.delete(key);
    // Orphans (the Job is gone or going): nothing will count them, so they lose the finalizer now.
    const orphans = all.filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.controller && r.kind === 'Job' && r.name === req.name && (!found || r.uid === found.metadata.uid)));
    await releasePods(ctx, orphans);
    return;
  }
  const job = deepCopy(found) as JobObject;
  const uid = job.metadata.uid ?? '';
  if (backoff.get(key)?.uid !== uid) backoff.delete(key);
  const pods = all.filter((p) => isControlledBy(p, job));
  const now = ctx.now();
  const status: JobStatus = deepCopy(job.status ?? {}) as JobStatus;

  // A pod that matched a FailJob rule: FailureTarget goes into the status write that records the pod, before its
  // finalizer goes (kube's interim condition), so the reason outlives the pod.
  if (!isFinished(job) && !trueCondition(status, 'FailureTarget') && !trueCondition(status, 'SuccessCriteriaMet')) {
    const message = failJobMessage(job, pods);
    if (message) setCondition(status, { type: 'FailureTarget', status: 'True', reason: 'PodFailurePolicy', message }, now);
  }

  await trackFinishedPods(ctx, job, pods, status, (ignored) => {
    backoff.set(key, { uid, lastFailure: now, ignoredFailures: (backoff.get(key)?.ignoredFailures ?? 0) + ignored });
  });

  const spec = job.spec!;
  const active = pods.filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp);
  const terminating = pods.filter((p) => !isTerminal(p) && p.metadata.deletionTimestamp);
  const regarding = objectReference(job, Job);
  let requeueAt: number | undefined;

  const fail = async (failure: { reason: string; message: string }): Promise<void> => {
    for (const p of active) await deleteJobPod(ctx, job, p);
    setCondition(status, { type: 'FailureTarget', status: 'True', ...failure }, now);
    setCondition(status, { type: 'Failed', status: 'True', ...failure }, now);
    ctx.recorder.event(regarding, 'Warning', failure.reason, failure.message);
  };

  if (!isFinished(job)) {
    const succeeded = status.succeeded ?? 0;
    const failed = status.failed ?? 0;
    const backoffLimit = spec.backoffLimit ?? 6;
    // A FailureTarget already decided (a FailJob rule) is carried out whatever else holds, suspension included.
    const target = trueCondition(status, 'FailureTarget');
    if (target) {
      await fail({ reason: target.reason ?? '', message: target.message ?? '' });
    } else if (spec.suspend) {
      for (const p of active) await deleteJobPod(ctx, job, p);
      if (!hasCondition(job, 'Suspended')) {
        setCondition(status, { type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }, now);
        ctx.recorder.event(regarding, 'Normal', 'Suspended', 'Job suspended');
      }
      delete status.startTime;
    } else {
      if (hasCondition(job, 'Suspended')) {
        setCondition(status, { type: 'Suspended', status: 'False', reason: 'JobResumed', message: 'Job resumed' }, now);
        ctx.recorder.event(regarding, 'Normal', 'Resumed', 'Job resumed');
      }
      status.startTime ??= rfc3339(now);
      const started = timeOf(status.startTime) ?? now;
      const restarts = active.reduce((n, p) => n + (p.status?.containerStatuses ?? []).reduce((m, c) => m + (c.restartCount ?? 0), 0), 0);
      const onFailure = spec.template?.spec?.restartPolicy === 'OnFailure';
      const pastBackoff = failed > backoffLimit || (onFailure && (backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit));
      const deadline = spec.activeDeadlineSeconds !== undefined ? started + spec.activeDeadlineSeconds * 1000 : undefined;
      const failure = pastBackoff
        ? { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }
        : deadline !== undefined && now >= deadline
          ? { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }
          : failedIndexesOutcome(job, status);
      const complete = spec.completions !== undefined ? succeeded >= spec.completions : succeeded > 0 && active.length === 0;
      // (For an Indexed Job, succeeded is the number of completed indexes.)
      if (failure) {
        await fail(failure);
      } else if (complete) {
        for (const p of active) await deleteJobPod(ctx, job, p);
        const done = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
        setCondition(status, { type: 'SuccessCriteriaMet', status: 'True', ...done }, now);
        setCondition(status, { type: 'Complete', status: 'True', ...done }, now);
        status.completionTime = rfc3339(now);
        ctx.recorder.event(regarding, 'Normal', 'Completed', 'Job completed');
      } else {
        const record = backoff.get(key);
        requeueAt = await manageActive(ctx, job, status, pods, active, terminating, { at: record?.lastFailure, ignored: record?.ignoredFailures ?? 0 }, now);
        if (deadline !== undefined) requeueAt = Math.min(requeueAt ?? Infinity, deadline);
      }
    }
  }

  const live = pods.filter((p) => !isTerminal(p) && !p.metadata.deletionTimestamp && !isFinished({ ...job, status }));
  status.active = live.length || undefined;
  status.ready = live.filter(isPodReady).length;
  status.terminating = terminating.length;
  status.uncountedTerminatedPods ??= {};
  for (const key of Object.keys(status) as Array<keyof JobStatus>) if (status[key] === undefined) delete status[key];
  if (canonicalJson(status) !== canonicalJson(job.status ?? {})) {
    await ctx.client.updateStatus(Job, { ...job, status } as JobObject);
  }

  if (isFinished({ ...job, status })) {
    backoff.delete(key);
    return ttlAfterFinished(ctx, job, status, now);
  }
  if (requeueAt !== undefined && Number.isFinite(requeueAt)) return { requeueAfter: Math.max(1, requeueAt - now) };
}

/**
 * kube's trackJobStatusAndRemoveFinalizers: terminated pods go into
 * uncountedTerminatedPods (one status write, with the indexes they complete
 * or fail), lose their finalizer, then move into the counters (the caller's
 * status write). A failed pod that the pod failure policy ignores only
 * loses its finalizer. `onFailure` hears of the failures once their pods are
 * released, with how many were ignored.
 */
async function trackFinishedPods(ctx: Context, job: JobObject, pods: PodObject[], status: JobStatus, onFailure: (ignored: number) => void): Promise<void> {
  const uncounted = { succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])], failed: [...(status.uncountedTerminatedPods?.failed ?? [])] };
  const seen = new Set([...uncounted.succeeded, ...uncounted.failed]);
  const spec = job.spec!;
  const policy = spec.podFailurePolicy;
  const indexed = spec.completionMode === 'Indexed';
  const completions = spec.completions ?? 0;
  // kube's calculateFailedIndexes: those recorded, plus the index of each failed pod not yet released that fails it.
  const failedIndexes = indexed && hasBackoffLimitPerIndex(spec) ? parseIndexes(status.failedIndexes, completions) : undefined;
  const ignored: PodObject[] = [];
  let added = false;
  for (const pod of pods) {
    const uid = pod.metadata.uid ?? '';
    if (!hasFinalizer(pod)) continue;
    const failed = pod.status?.phase !== 'Succeeded' && isPodFailed(pod, job);
    if (failedIndexes && failed) {
      const i = indexOf(pod);
      if (i !== undefined && i < completions && failsItsIndex(spec, pod)) failedIndexes.add(i);
    }
    if (seen.has(uid)) continue;
    if (pod.status?.phase === 'Succeeded') uncounted.succeeded.push(uid);
    else if (failed) {
      if (!matchPodFailurePolicy(policy, pod).countFailed) {
        ignored.push(pod);
        continue;
      }
      uncounted.failed.push(uid);
    } else continue;
    added = true;
  }
  // With backoffLimitPerIndex, failedIndexes is always there, "" while none failed (as kube writes it).
  if (failedIndexes) status.failedIndexes = formatIndexes(failedIndexes);
  if (added) {
    status.uncountedTerminatedPods = uncounted;
    if (indexed) {
      // kube records a succeeded index together with its pod's uid.
      const done = parseIndexes(status.completedIndexes, completions);
      for (const pod of pods) {
        const i = indexOf(pod);
        if (i !== undefined && i < completions && uncounted.succeeded.includes(pod.metadata.uid ?? '')) done.add(i);
      }
      status.completedIndexes = formatIndexes(done) || undefined;
    }
    await ctx.client.updateStatus(Job, { ...job, status } as JobObject);
  }
  const counted = new Set([...uncounted.succeeded, ...uncounted.failed]);
  if (counted.size === 0 && ignored.length === 0) return;
  await releasePods(ctx, [...pods.filter((p) => counted.has(p.metadata.uid ?? '')), ...ignored]);
  status.succeeded = (indexed ? parseIndexes(status.completedIndexes, completions).size : (status.succeeded ?? 0) + uncounted.succeeded.length) || undefined;
  status.failed = (status.failed ?? 0) + uncounted.failed.length || undefined;
  if (uncounted.failed.length || ignored.length) onFailure(ignored.length);
  status.uncountedTerminatedPods = {};
}

/**
 * How a Job with backoffLimitPerIndex ends on its failed indexes: more of
 * them than maxFailedIndexes fails it at once, and so does every index having
 * ended with some failed (kube's syncJob, in that order).
 */
function failedIndexesOutcome(job: JobObject, status: JobStatus): { reason: string; message: string } | undefined {
  const spec = job.spec;
  if (spec?.completionMode !== 'Indexed' || !hasBackoffLimitPerIndex(spec)) return undefined;
  const completions = spec.completions ?? 0;
  const failed = parseIndexes(status.failedIndexes, completions).size;
  const succeeded = parseIndexes(status.completedIndexes, completions).size;
  if (spec.maxFailedIndexes !== undefined && spec.maxFailedIndexes !== null && failed > spec.maxFailedIndexes) {
    return { reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' };
  }
  if (failed > 0 && failed + succeeded >= completions) return { reason: 'FailedIndexes', message: 'Job has failed indexes' };
  return undefined;
}

/** kube's pod failure back-off after `failures` failures: 10 s, doubling, at most 6 min. */
const backoffDelay = (failures: number): number => Math.min(backoffBaseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30), backoffMaxMs);

/**
 * kube's manageJob: as many active pods as parallelism allows toward the
 * completions still missing (for an Indexed Job, the lowest indexes neither
 * completed, failed nor running); new pods wait out the failure backoff
 * (the Job's, or with backoffLimitPerIndex each index's own). Returns when
 * to look again, if the backoff holds creations back.
 */
async function manageActive(
  ctx: Context,
  job: JobObject,
  status: JobStatus,
  pods: PodObject[],
  active: PodObject[],
  terminating: PodObject[],
  lastFailure: { at: number | undefined; ignored: number },
  now: number,
): Promise<number | undefined> {
  const spec = job.spec!;
  const succeeded = status.succeeded ?? 0;
  const failed = status.failed ?? 0;
  const parallelism = spec.parallelism ?? 1;
  const indexed = spec.completionMode === 'Indexed';
  const perIndex = indexed && hasBackoffLimitPerIndex(spec);
  const completions = spec.completions ?? 0;
  const completed = indexed ? parseIndexes(status.completedIndexes, completions) : new Set<number>();
  const failedIndexes = perIndex ? parseIndexes(status.failedIndexes, completions) : new Set<number>();
  // An Indexed Job's pod whose index is done or failed (or out of range, or taken twice) is not needed.
  const running = new Set<number>();
  const surplus: PodObject[] = [];
  const keep: PodObject[] = [];
  for (const p of active) {
    const i = indexOf(p);
    if (indexed && (i === undefined || i >= completions || completed.has(i) || failedIndexes.has(i) || running.has(i))) surplus.push(p);
    else {
      if (i !== undefined) running.add(i);
      keep.push(p);
    }
  }
  for (const p of surplus) await deleteJobPod(ctx, job, p);
  const remaining = completions - succeeded - failedIndexes.size;
  const wanted = spec.completions !== undefined ? Math.max(0, Math.min(parallelism, remaining)) : succeeded > 0 ? 0 : parallelism;
  // With podReplacementPolicy Failed, a terminating pod still holds its place.
  const holding = keep.length + (onlyReplaceFailedPods(job) ? terminating.length : 0);
  if (holding > wanted) {
    // The ones that got least far go first: pending, then not ready, then the newest.
    const rank = (p: PodObject): number => (p.status?.phase !== 'Running' ? 0 : isPodReady(p) ? 2 : 1);
    const victims = [...keep].sort((a, b) => rank(a) - rank(b) || (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '')).slice(0, holding - wanted);
    for (const p of victims) await deleteJobPod(ctx, job, p);
    return undefined;
  }
  if (holding === wanted) return undefined;
  if (!perIndex) {
    // Failures an Ignore rule left uncounted hold new pods back all the same (kube's backoff record counts every failed pod).
    const failures = failed + lastFailure.ignored;
    if (failures > 0 && lastFailure.at !== undefined) {
      const delay = backoffDelay(failures);
      if (now < lastFailure.at + delay) return lastFailure.at + delay;
    }
  }
  const created: PodObject[] = [];
  let requeueAt: number | undefined;
  if (indexed) {
    // Terminating pods keep their index until they are gone when only failed pods are replaced.
    const held = new Set(onlyReplaceFailedPods(job) ? terminating.map(indexOf) : []);
    // kube's getPodCreationInfoForIndependentIndexes: each index waits for its own back-off from its last failed pod.
    const replaced = perIndex ? lastFailedPodPerIndex(pods.filter((p) => isPodFailed(p, job))) : new Map<number, PodObject>();
    for (let i = 0; i < completions && created.length < wanted - holding; i++) {
      if (completed.has(i) || failedIndexes.has(i) || running.has(i) || held.has(i)) continue;
      const last = replaced.get(i);
      if (last) {
        const due = (finishedAt(last) ?? now) + backoffDelay(indexAbsoluteFailures(last) + 1);
        if (now < due) {
          requeueAt = Math.min(requeueAt ?? Infinity, due);
          continue;
        }
      }
      created.push(indexedPod(job, i, perIndex ? failureCountAnnotations(spec, last) : {}));
    }
  } else {
    for (let n = 0; n < wanted - holding; n++) created.push(podFromTemplate(job, Job, spec.template, { generateName: `${job.metadata.name}-`, finalizers: [jobTrackingFinalizer] }));
  }
  let next = 0;
  await slowStartBatch(created.length, async () => {
    await createOwnedPod(ctx, job, Job, created[next++]!);
  });
  return requeueAt;
}

/**
 * The pod of index `i` of an Indexed Job (kube's addCompletionIndexAnnotation,
 * label and env var, and hostname), with `annotations` of its own (the
 * index's failure counts).
 */
function indexedPod(job: JobObject, i: number, annotations: Record<string, string>): PodObject {
  return podFromTemplate(job, Job, job.spec?.template, {
    generateName: `${job.metadata.name}-${i}-`,
    annotations: { [completionIndexKey]: String(i), ...annotations },
    labels: { [completionIndexKey]: String(i) },
    finalizers: [jobTrackingFinalizer],
    adjustSpec(spec) {
      spec.hostname ??= `${job.metadata.name}-${i}`;
      // apiVersion is what the server's SetDefaults_ObjectFieldSelector would add.
      const env = { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${completionIndexKey}']` } } };
      for (const list of [spec.containers, spec.initContainers ?? []]) {
        for (const c of list as Array<{ env?: unknown[] }>) {
          const current = (c.env ?? []) as Array<{ name: string }>;
          if (!current.some((e) => e.name === env.name)) c.env = [...current, env];
        }
      }
    },
  });
}

/** Sets a condition (kube's ensureJobConditionStatus): its times move only when its status does. */
function setCondition(status: JobStatus, c: Omit<JobCondition, 'lastProbeTime' | 'lastTransitionTime'>, now: number): void {
  const t = rfc3339(now);
  const conditions = [...(status.conditions ?? [])];
  const i = conditions.findIndex((x) => x.type === c.type);
  if (i >= 0 && conditions[i]!.status === c.status) return;
  const next: JobCondition = { ...c, lastProbeTime: t, lastTransitionTime: t };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  status.conditions = conditions;
}

/** kube's TTL-after-finished controller: the finished Job is deleted (foreground) once its TTL passed. */
async function ttlAfterFinished(ctx: Context, job: JobObject, status: JobStatus, now: number): Promise<ReconcileResult | void> {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined) return;
  const finishedAt = timeOf(status.completionTime) ?? timeOf((status.conditions ?? []).find((c) => c.type === 'Failed')?.lastTransitionTime) ?? now;
  const due = finishedAt + ttl * 1000;
  if (now < due) return { requeueAfter: due - now };
  try {
    await ctx.client.delete(Job, job.metadata.name!, { namespace: job.metadata.namespace, propagationPolicy: 'Foreground', preconditions: { uid: job.metadata.uid } });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
