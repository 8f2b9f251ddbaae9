/**
 * batch/v1 defaults (k8s.io/kubernetes pkg/apis/batch/v1/defaults.go at 1.32:
 * SetDefaults_Job, SetDefaults_CronJob, and the pod failure policy's
 * condition patterns; zz_generated.defaults.go then defaults each pod
 * template as core/v1 defaults a PodSpec, a CronJob's job template included).
 */
import { defaultPodTemplateSpec } from './pod-spec.js';
import { asObject, defaultNil, defaultString, objectsAt, structAt, type Json } from './json-fields.js';

/** SetDefaults_Job's spec part, for a Job and for a CronJob's job template. */
function defaultJobSpec(spec: Json): void {
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  defaultNil(spec, 'parallelism', 1);
  // With a per-index limit, the Job-wide one defaults to MaxInt32.
  const perIndex = spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null;
  defaultNil(spec, 'backoffLimit', perIndex ? 2147483647 : 6);
  defaultNil(spec, 'completionMode', 'NonIndexed');
  defaultNil(spec, 'suspend', false);
  const failurePolicy = asObject(spec.podFailurePolicy);
  for (const rule of failurePolicy ? objectsAt(failurePolicy, 'rules') : []) {
    for (const pattern of objectsAt(rule, 'onPodConditions')) defaultString(pattern, 'status', 'True');
  }
  defaultNil(spec, 'podReplacementPolicy', failurePolicy ? 'Failed' : 'TerminatingOrFailed');
  defaultPodTemplateSpec(spec.template);
}

/** Fills in a Job's defaults in place; a Job without labels takes its template's. */
export function defaultJob(job: Json): void {
  const spec = structAt(job, 'spec');
  defaultJobSpec(spec);
  const metadata = structAt(job, 'metadata');
  const templateLabels = asObject(asObject(asObject(spec.template)?.metadata)?.labels);
  if (templateLabels && Object.keys(asObject(metadata.labels) ?? {}).length === 0) metadata.labels = { ...templateLabels };
}

/** Fills in a CronJob's defaults in place, its job template's included. */
export function defaultCronJob(cronJob: Json): void {
  const spec = structAt(cronJob, 'spec');
  defaultString(spec, 'concurrencyPolicy', 'Allow');
  defaultNil(spec, 'suspend', false);
  defaultNil(spec, 'successfulJobsHistoryLimit', 3);
  defaultNil(spec, 'failedJobsHistoryLimit', 1);
  defaultJobSpec(structAt(structAt(spec, 'jobTemplate'), 'spec'));
}
