/**
 * The strategies of apps/v1 StatefulSets and DaemonSets and batch/v1 Jobs
 * and CronJobs: their defaults (./defaults/apps.ts and ./defaults/batch.ts),
 * the preparation their registries do (pkg/registry/{apps,batch}/*\/strategy.go)
 * and the validation users hit (pkg/apis/{apps,batch}/validation), with kube's
 * field paths and wording.
 */
import { fieldErrors, isQualifiedName, type FieldError, type KubeObject } from '@operant/apimachinery';
import { isTimeZone, parseCronSchedule } from '@operant/apimachinery/cron';
import { baseStrategy, statusSubresourceStrategy, type Strategy } from './strategy.js';
import { validateImmutableField } from './immutable-field.js';
import { defaultDaemonSet, defaultStatefulSet } from './defaults/apps.js';
import { defaultCronJob, defaultJob } from './defaults/batch.js';
import { asObj, isSet, structAt } from './defaults/json-fields.js';
import { validatePodSpec, validateSelectorMatchesTemplate } from './pod-validation.js';

type Json = Record<string, unknown>;
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** kube's ValidateNonnegativeField. */
function nonNegative(errs: FieldError[], path: string, value: unknown): void {
  if (typeof value === 'number' && value < 0) errs.push(fieldErrors.invalid(path, value, 'must be greater than or equal to 0'));
}

function immutable(errs: FieldError[], path: string, value: unknown, old: unknown): void {
  errs.push(...validateImmutableField(value, old, path));
}

/** A pod template's restartPolicy, after defaulting (kube defaults it to Always). */
function restartPolicyOf(template: unknown): unknown {
  return asObj(asObj(template).spec).restartPolicy;
}

/** The checks every apps/v1 workload makes of its selector and template, with `kind` in kube's wording. */
function validateAppsTemplate(s: Json, kind: 'statefulset' | 'daemonset', kindName: string): FieldError[] {
  const errs = validateSelectorMatchesTemplate(s.selector, s.template, kind);
  const templateSpec = asObj(asObj(s.template).spec);
  errs.push(...validatePodSpec(templateSpec, 'spec.template.spec'));
  if (restartPolicyOf(s.template) !== 'Always') {
    errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicyOf(s.template) ?? '', ['Always']));
  }
  if (templateSpec.activeDeadlineSeconds !== undefined) {
    errs.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kindName} is not Supported`));
  }
  nonNegative(errs, 'spec.minReadySeconds', s.minReadySeconds);
  nonNegative(errs, 'spec.revisionHistoryLimit', s.revisionHistoryLimit);
  return errs;
}

// ---------------------------------------------------------------------------
// StatefulSet

function validateStatefulSet(o: KubeObject): FieldError[] {
  const s = asObj(o.spec);
  const errs = validateAppsTemplate(s, 'statefulset', 'StatefulSet');
  nonNegative(errs, 'spec.replicas', s.replicas);
  const policies = ['OrderedReady', 'Parallel'];
  if (!policies.includes(String(s.podManagementPolicy))) errs.push(fieldErrors.notSupported('spec.podManagementPolicy', s.podManagementPolicy, policies));
  const strategy = asObj(s.updateStrategy);
  const types = ['RollingUpdate', 'OnDelete'];
  if (!types.includes(String(strategy.type))) errs.push(fieldErrors.notSupported('spec.updateStrategy.type', strategy.type, types));
  if (strategy.type === 'OnDelete' && strategy.rollingUpdate !== undefined) {
    errs.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
  }
  nonNegative(errs, 'spec.updateStrategy.rollingUpdate.partition', asObj(strategy.rollingUpdate).partition);
  const retention = asObj(s.persistentVolumeClaimRetentionPolicy);
  for (const when of ['whenDeleted', 'whenScaled']) {
    if (!['Retain', 'Delete'].includes(String(retention[when]))) {
      errs.push(fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${when}`, retention[when], ['Retain', 'Delete']));
    }
  }
  return errs;
}

/** The spec fields a StatefulSet update may change (kube's ValidateStatefulSetUpdate). */
const statefulSetMutable = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

function validateStatefulSetUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateStatefulSet(o);
  const strip = (spec: unknown): Json => {
    const copy = { ...asObj(spec) };
    for (const f of statefulSetMutable) delete copy[f];
    return copy;
  };
  if (!sameJson(strip(o.spec), strip(old.spec))) {
    errs.push(
      fieldErrors.forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}

function statefulSetStrategy(): Strategy {
  return baseStrategy({
    tracksGeneration: true,
    hasStatusSubresource: true,
    applyDefaults: defaultStatefulSet,
    prepareForCreate(o) {
      o.status = { replicas: 0, availableReplicas: 0 };
    },
    validate: validateStatefulSet,
    validateUpdate: validateStatefulSetUpdate,
  });
}

// ---------------------------------------------------------------------------
// DaemonSet

/** The annotation apps/v1 keeps the deprecated spec.templateGeneration in. */
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

/** An int-or-string that is zero: 0, "0" or "0%". */
const isZero = (v: unknown): boolean => v === 0 || v === '0' || v === '0%';

function validateDaemonSet(o: KubeObject): FieldError[] {
  const s = asObj(o.spec);
  const errs = validateAppsTemplate(s, 'daemonset', 'DaemonSet');
  const strategy = asObj(s.updateStrategy);
  const types = ['RollingUpdate', 'OnDelete'];
  if (!types.includes(String(strategy.type))) errs.push(fieldErrors.notSupported('spec.updateStrategy.type', strategy.type, types));
  if (strategy.type === 'RollingUpdate') {
    const ru = asObj(strategy.rollingUpdate);
    if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
      errs.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate.maxUnavailable', ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
    }
  }
  return errs;
}

function daemonSetStrategy(): Strategy {
  return baseStrategy({
    tracksGeneration: true,
    hasStatusSubresource: true,
    applyDefaults: defaultDaemonSet,
    prepareForCreate(o) {
      o.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
      o.metadata.annotations = { ...o.metadata.annotations, [templateGenerationAnnotation]: '1' };
    },
    prepareForUpdate(o, old) {
      // kube bumps the template generation whenever the template changes.
      const previous = Number(old.metadata.annotations?.[templateGenerationAnnotation] ?? '1') || 1;
      const changed = !sameJson(asObj(o.spec).template, asObj(old.spec).template);
      o.metadata.annotations = { ...o.metadata.annotations, [templateGenerationAnnotation]: String(changed ? previous + 1 : previous) };
    },
    validate: validateDaemonSet,
    validateUpdate(o, old) {
      const errs = validateDaemonSet(o);
      immutable(errs, 'spec.selector', asObj(o.spec).selector, asObj(old.spec).selector);
      return errs;
    },
  });
}

// ---------------------------------------------------------------------------
// Job

/** The labels kube's job registry puts on a Job's pods, and the one its generated selector matches. */
export const jobLabels = {
  controllerUid: 'batch.kubernetes.io/controller-uid',
  jobName: 'batch.kubernetes.io/job-name',
  legacyControllerUid: 'controller-uid',
  legacyJobName: 'job-name',
} as const;

/** kube's generateSelector: the Job's pods carry its uid and name, and its selector matches the uid. */
function generateJobSelector(o: KubeObject): void {
  const s = structAt(o, 'spec');
  if (s.manualSelector === true) return;
  const uid = o.metadata.uid ?? '';
  const name = o.metadata.name ?? '';
  const metadata = structAt(structAt(s, 'template'), 'metadata');
  metadata.labels = {
    ...asObj(metadata.labels),
    [jobLabels.legacyControllerUid]: uid,
    [jobLabels.legacyJobName]: name,
    [jobLabels.controllerUid]: uid,
    [jobLabels.jobName]: name,
  };
  if (s.selector === undefined) s.selector = { matchLabels: { [jobLabels.controllerUid]: uid } };
}

/** ValidateJobSpec, at `path` (`spec`, or `spec.jobTemplate.spec`). */
function validateJobSpec(s: Json, path: string, checkSelector: boolean): FieldError[] {
  const errs: FieldError[] = [];
  nonNegative(errs, `${path}.parallelism`, s.parallelism);
  nonNegative(errs, `${path}.completions`, s.completions);
  nonNegative(errs, `${path}.activeDeadlineSeconds`, s.activeDeadlineSeconds);
  nonNegative(errs, `${path}.backoffLimit`, s.backoffLimit);
  nonNegative(errs, `${path}.ttlSecondsAfterFinished`, s.ttlSecondsAfterFinished);
  const perIndex = isSet(s.backoffLimitPerIndex);
  const maxFailed = isSet(s.maxFailedIndexes);
  nonNegative(errs, `${path}.backoffLimitPerIndex`, s.backoffLimitPerIndex);
  if (maxFailed) {
    nonNegative(errs, `${path}.maxFailedIndexes`, s.maxFailedIndexes);
    if (!perIndex) errs.push(fieldErrors.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
  }
  const modes = ['NonIndexed', 'Indexed'];
  if (s.completionMode !== undefined && !modes.includes(String(s.completionMode))) {
    errs.push(fieldErrors.notSupported(`${path}.completionMode`, s.completionMode, modes));
  }
  if (s.completionMode === 'Indexed') {
    if (s.completions === undefined) errs.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
    errs.push(...validateIndexedLimits(s, path));
  } else {
    // NonIndexed (or unset): the per-index fields mean nothing.
    if (perIndex) errs.push(fieldErrors.invalid(`${path}.backoffLimitPerIndex`, s.backoffLimitPerIndex, 'requires indexed completion mode'));
    if (maxFailed) errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, s.maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (isSet(s.podFailurePolicy)) errs.push(...validatePodFailurePolicy(s, `${path}.podFailurePolicy`));
  errs.push(...validatePodReplacementPolicy(s, `${path}.podReplacementPolicy`));
  if (checkSelector) {
    if (s.selector === undefined) errs.push(fieldErrors.required(`${path}.selector`, ''));
    else if (s.manualSelector === true) {
      errs.push(...validateSelectorMatchesTemplate(s.selector, s.template, 'job').filter((e) => e.type !== 'FieldValueInvalid' || !e.detail.startsWith('empty')));
    }
  }
  errs.push(...validatePodSpec(asObj(asObj(s.template).spec), `${path}.template.spec`));
  const policy = restartPolicyOf(s.template);
  if (policy === 'Always' || policy === undefined || policy === null || policy === '') {
    // kube's words for the value a pod template gets when it says nothing (SetDefaults_PodSpec's Always).
    errs.push(fieldErrors.required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  } else if (policy !== 'OnFailure' && policy !== 'Never') {
    errs.push(fieldErrors.notSupported(`${path}.template.spec.restartPolicy`, policy, ['OnFailure', 'Never']));
  } else if (isSet(s.podFailurePolicy) && policy !== 'Never') {
    errs.push(fieldErrors.invalid(`${path}.template.spec.restartPolicy`, policy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

// kube's limits for an Indexed Job (pkg/apis/batch/validation at 1.32).
const maxParallelismForIndexedJob = 100_000;
const maxFailedIndexesForIndexedJob = 100_000;
const completionsSoftLimit = 100_000;
const parallelismLimitForHighCompletions = 10_000;
const maxFailedIndexesLimitForHighCompletions = 10_000;

/** The Indexed part of kube's validateJobSpec: parallelism, maxFailedIndexes and, past 100000 completions with a per-index limit, both capped. */
function validateIndexedLimits(s: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const parallelism = num(s.parallelism);
  const completions = num(s.completions);
  const maxFailed = num(s.maxFailedIndexes);
  if (parallelism !== undefined && parallelism > maxParallelismForIndexedJob) {
    errs.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${maxParallelismForIndexedJob} when completion mode is Indexed`));
  }
  if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
    errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'));
  }
  if (maxFailed !== undefined && maxFailed > maxFailedIndexesForIndexedJob) {
    errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${maxFailedIndexesForIndexedJob}`));
  }
  if (completions !== undefined && completions > completionsSoftLimit && isSet(s.backoffLimitPerIndex)) {
    if (maxFailed === undefined) errs.push(fieldErrors.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${completionsSoftLimit}`));
    const high = `when completions are above ${completionsSoftLimit} and used with backoff limit per index`;
    if (parallelism !== undefined && parallelism > parallelismLimitForHighCompletions) {
      errs.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${parallelismLimitForHighCompletions} ${high}`));
    }
    if (maxFailed !== undefined && maxFailed > maxFailedIndexesLimitForHighCompletions) {
      errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${maxFailedIndexesLimitForHighCompletions} ${high}`));
    }
  }
  return errs;
}

// kube's limits and value sets for a pod failure policy (pkg/apis/batch/validation), the sets in sorted order.
const maxPodFailurePolicyRules = 20;
const maxOnExitCodesValues = 255;
const maxOnPodConditionsPatterns = 20;
const podFailurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const onExitCodesOperators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];
/** Go's %q of a []string, as kube's "valid values" details print their sets. */
const goQuotedList = (values: string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
/** Go's %#v of a []int32, as kube prints a list of exit codes. */
const goInt32s = (values: unknown): string => (Array.isArray(values) ? `[]int32{${values.join(', ')}}` : '[]int32(nil)');
/** field.Invalid with a value printed as Go prints it, or none (field.OmitValueType). */
const invalidRaw = (field: string, printed: string | undefined, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field,
  hasValue: false,
  detail: printed === undefined ? detail : `${printed}: ${detail}`,
});

/** kube's validatePodFailurePolicy: at most 20 rules, each with one valid requirement and action. */
function validatePodFailurePolicy(s: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const rules = asArray(asObj(s.podFailurePolicy).rules);
  if (rules.length > maxPodFailurePolicyRules) errs.push(fieldErrors.tooMany(`${path}.rules`, rules.length, maxPodFailurePolicyRules));
  const podSpec = asObj(asObj(s.template).spec);
  const containerNames = new Set([...asArray(podSpec.containers), ...asArray(podSpec.initContainers)].map((c) => asObj(c).name));
  rules.forEach((r, i) => errs.push(...validatePodFailurePolicyRule(s, asObj(r), `${path}.rules[${i}]`, containerNames)));
  return errs;
}

function validatePodFailurePolicyRule(s: Json, rule: Json, path: string, containerNames: Set<unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const action = rule.action;
  if (action === undefined || action === null || action === '') {
    errs.push(fieldErrors.required(`${path}.action`, `valid values: ${goQuotedList(podFailurePolicyActions)}`));
  } else if (action === 'FailIndex') {
    if (s.backoffLimitPerIndex === undefined || s.backoffLimitPerIndex === null) {
      errs.push(fieldErrors.invalid(`${path}.action`, action, 'requires the backoffLimitPerIndex to be set'));
    }
  } else if (!podFailurePolicyActions.includes(String(action))) {
    errs.push(fieldErrors.notSupported(`${path}.action`, action, podFailurePolicyActions));
  }
  const onExitCodes = rule.onExitCodes === undefined || rule.onExitCodes === null ? undefined : asObj(rule.onExitCodes);
  const onPodConditions = asArray(rule.onPodConditions);
  if (onExitCodes) errs.push(...validateOnExitCodes(onExitCodes, `${path}.onExitCodes`, containerNames));
  if (onPodConditions.length > 0) errs.push(...validateOnPodConditions(onPodConditions, `${path}.onPodConditions`));
  if (onExitCodes && onPodConditions.length > 0) errs.push(invalidRaw(path, undefined, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!onExitCodes && onPodConditions.length === 0) errs.push(invalidRaw(path, undefined, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

function validateOnPodConditions(patterns: unknown[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > maxOnPodConditionsPatterns) errs.push(fieldErrors.tooMany(path, patterns.length, maxOnPodConditionsPatterns));
  patterns.forEach((p, j) => {
    const pattern = asObj(p);
    const at = `${path}[${j}]`;
    const type = String(pattern.type ?? '');
    for (const msg of isQualifiedName(type)) errs.push(fieldErrors.invalid(`${at}.type`, type, msg));
    if (pattern.status === undefined || pattern.status === null || pattern.status === '') {
      errs.push(fieldErrors.required(`${at}.status`, `valid values: ${goQuotedList(conditionStatuses)}`));
    } else if (!conditionStatuses.includes(String(pattern.status))) {
      errs.push(fieldErrors.notSupported(`${at}.status`, pattern.status, conditionStatuses));
    }
  });
  return errs;
}

function validateOnExitCodes(requirement: Json, path: string, containerNames: Set<unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const operator = requirement.operator;
  if (operator === undefined || operator === null || operator === '') {
    errs.push(fieldErrors.required(`${path}.operator`, `valid values: ${goQuotedList(onExitCodesOperators)}`));
  } else if (!onExitCodesOperators.includes(String(operator))) {
    errs.push(fieldErrors.notSupported(`${path}.operator`, operator, onExitCodesOperators));
  }
  if (requirement.containerName !== undefined && requirement.containerName !== null && !containerNames.has(requirement.containerName)) {
    errs.push(fieldErrors.invalid(`${path}.containerName`, requirement.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const values = Array.isArray(requirement.values) ? (requirement.values as unknown[]) : [];
  if (values.length === 0) errs.push(invalidRaw(`${path}.values`, goInt32s(requirement.values), 'at least one value is required'));
  else if (values.length > maxOnExitCodesValues) errs.push(fieldErrors.tooMany(`${path}.values`, values.length, maxOnExitCodesValues));
  const seen = new Set<unknown>();
  let ordered = true;
  values.forEach((v, j) => {
    if (operator === 'In' && v === 0) errs.push(fieldErrors.invalid(`${path}.values[${j}]`, v, 'must not be 0 for the In operator'));
    if (seen.has(v)) errs.push(fieldErrors.duplicate(`${path}.values[${j}]`, v));
    else seen.add(v);
    if (j > 0 && Number(values[j - 1]) > Number(v)) ordered = false;
  });
  if (!ordered) errs.push(invalidRaw(`${path}.values`, goInt32s(values), 'must be ordered'));
  return errs;
}

/** kube's validatePodReplacementPolicy: with a pod failure policy, only Failed. */
function validatePodReplacementPolicy(s: Json, path: string): FieldError[] {
  const value = s.podReplacementPolicy;
  if (value === undefined || value === null) return [];
  const hasFailurePolicy = isSet(s.podFailurePolicy);
  const supported = hasFailurePolicy ? ['Failed'] : ['Failed', 'TerminatingOrFailed'];
  return supported.includes(String(value)) ? [] : [fieldErrors.notSupported(path, value, supported)];
}

function jobStrategy(): Strategy {
  return baseStrategy({
    tracksGeneration: true,
    hasStatusSubresource: true,
    applyDefaults: defaultJob,
    prepareForCreate(o) {
      o.status = {};
      generateJobSelector(o);
    },
    validate: (o) => validateJobSpec(asObj(o.spec), 'spec', true),
    validateUpdate(o, old) {
      const s = asObj(o.spec);
      const os = asObj(old.spec);
      const errs = validateJobSpec(s, 'spec', true);
      immutable(errs, 'spec.selector', s.selector, os.selector);
      immutable(errs, 'spec.completionMode', s.completionMode, os.completionMode);
      immutable(errs, 'spec.template', s.template, os.template);
      if (s.completionMode !== 'Indexed') immutable(errs, 'spec.completions', s.completions, os.completions);
      immutable(errs, 'spec.podFailurePolicy', s.podFailurePolicy, os.podFailurePolicy);
      return errs;
    },
  });
}

// ---------------------------------------------------------------------------
// CronJob

/** kube's validateScheduleFormat and the time zone check. */
function validateSchedule(s: Json): FieldError[] {
  const schedule = s.schedule;
  if (typeof schedule !== 'string' || schedule === '') return [fieldErrors.required('spec.schedule', '')];
  if (/^\s*(CRON_)?TZ=/.test(schedule)) {
    return [fieldErrors.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead')];
  }
  const errs: FieldError[] = [];
  try {
    parseCronSchedule(schedule);
  } catch (e) {
    errs.push(fieldErrors.invalid('spec.schedule', schedule, (e as Error).message));
  }
  if (s.timeZone !== undefined && (typeof s.timeZone !== 'string' || !isTimeZone(s.timeZone))) {
    errs.push(fieldErrors.invalid('spec.timeZone', s.timeZone, `unknown time zone ${String(s.timeZone)}`));
  }
  return errs;
}

function validateCronJob(o: KubeObject): FieldError[] {
  const s = asObj(o.spec);
  const errs: FieldError[] = [];
  // Its Jobs are named <cronjob>-<minutes>, 11 more characters, and must fit a label value.
  if ((o.metadata.name ?? '').length > 52) errs.push(fieldErrors.invalid('metadata.name', o.metadata.name, 'must be no more than 52 characters'));
  errs.push(...validateSchedule(s));
  const policies = ['Allow', 'Forbid', 'Replace'];
  if (!policies.includes(String(s.concurrencyPolicy))) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', s.concurrencyPolicy, policies));
  nonNegative(errs, 'spec.startingDeadlineSeconds', s.startingDeadlineSeconds);
  nonNegative(errs, 'spec.successfulJobsHistoryLimit', s.successfulJobsHistoryLimit);
  nonNegative(errs, 'spec.failedJobsHistoryLimit', s.failedJobsHistoryLimit);
  errs.push(...validateJobSpec(asObj(asObj(s.jobTemplate).spec), 'spec.jobTemplate.spec', false));
  return errs;
}

function cronJobStrategy(): Strategy {
  return statusSubresourceStrategy({
    applyDefaults: defaultCronJob,
    validate: validateCronJob,
    validateUpdate: validateCronJob,
  });
}

/** The strategies of this file, keyed `<group>/<resource>` as in the built-in strategy table. */
export function workloadStrategies(): Array<[string, Strategy]> {
  return [
    ['apps/statefulsets', statefulSetStrategy()],
    ['apps/daemonsets', daemonSetStrategy()],
    ['batch/jobs', jobStrategy()],
    ['batch/cronjobs', cronJobStrategy()],
  ];
}
