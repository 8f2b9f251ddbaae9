/**
 * The Kubebuilder book's CronJob webhooks (internal/webhook/v1/cronjob_webhook.go):
 * a defaulter that fills in the concurrency policy, suspend and the history
 * limits, and a validator that refuses a schedule robfig/cron cannot parse
 * and a name too long for the Jobs' names, with kube's Invalid wording.
 * `mgr.webhook(CronJob)` is the tutorial's `ctrl.NewWebhookManagedBy(mgr).For(&batchv1.CronJob{})`.
 */
import { fieldErrors, ValidationError, type CustomDefaulter, type CustomValidator, type FieldError, type Manager } from '@operant/runtime';
import type { ConcurrencyPolicy } from '../../api/v1/cronjob-types.js';
import { CronJob } from '../../api/v1/zz_generated.kinds.js';
import { parseStandard } from '../../controllers/schedule.js';

// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1

/** SetupCronJobWebhookWithManager registers the webhooks for CronJob in the manager. */
export function setupCronJobWebhookWithManager(mgr: Manager): void {
  mgr
    .webhook(CronJob)
    .defaulter(
      cronJobCustomDefaulter({
        defaultConcurrencyPolicy: 'Allow',
        defaultSuspend: false,
        defaultSuccessfulJobsHistoryLimit: 3,
        defaultFailedJobsHistoryLimit: 1,
      }),
    )
    .validator(cronJobCustomValidator);
}

/** The defaults the defaulter applies (the fields of the tutorial's CronJobCustomDefaulter). */
export interface CronJobDefaults {
  defaultConcurrencyPolicy: ConcurrencyPolicy;
  defaultSuspend: boolean;
  defaultSuccessfulJobsHistoryLimit: number;
  defaultFailedJobsHistoryLimit: number;
}

/** Default implements webhook.CustomDefaulter so a webhook will be registered for the Kind CronJob. */
export function cronJobCustomDefaulter(d: CronJobDefaults): CustomDefaulter<CronJob> {
  return {
    default(cronjob, { log }) {
      log.info({}, 'Defaulting for CronJob'); // ctx.log already carries the name (and namespace, uid, operation)
      // applyDefaults
      cronjob.spec.concurrencyPolicy ??= d.defaultConcurrencyPolicy;
      cronjob.spec.suspend ??= d.defaultSuspend;
      cronjob.spec.successfulJobsHistoryLimit ??= d.defaultSuccessfulJobsHistoryLimit;
      cronjob.spec.failedJobsHistoryLimit ??= d.defaultFailedJobsHistoryLimit;
    },
  };
}

/** ValidateCreate and ValidateUpdate check the object; deletion needs no check (the tutorial returns nil). */
export const cronJobCustomValidator: CustomValidator<CronJob> = {
  validateCreate(cronjob, { log }) {
    log.info({}, 'Validation for CronJob upon creation');
    validateCronJob(cronjob);
  },
  validateUpdate(_old, cronjob, { log }) {
    log.info({}, 'Validation for CronJob upon update');
    validateCronJob(cronjob);
  },
};

/** validateCronJob validates the fields of a CronJob object: kube's Invalid error, with every field error. */
function validateCronJob(cronjob: CronJob): void {
  const allErrs = [validateScheduleFormat(cronjob.spec.schedule, 'spec.schedule'), validateCronJobName(cronjob)].filter((e) => e !== undefined);
  if (allErrs.length > 0) throw new ValidationError(allErrs);
}

function validateScheduleFormat(schedule: string, fldPath: string): FieldError | undefined {
  try {
    parseStandard(schedule);
    return undefined;
  } catch (err) {
    return fieldErrors.invalid(fldPath, schedule, (err as Error).message);
  }
}

function validateCronJobName(cronjob: CronJob): FieldError | undefined {
  // The job name length is 63 characters like all Kubernetes objects
  // (which must fit in a DNS subdomain). The cronjob controller appends
  // a 11-character suffix to the cronjob (`-$TIMESTAMP`) when creating
  // a job. The job name length limit is 63 characters. Therefore cronjob
  // names must have length <= 63-11=52. If we don't validate this here,
  // then job creation will fail later.
  const name = cronjob.metadata.name ?? '';
  if (name.length > 63 - 11) return fieldErrors.invalid('metadata.name', name, 'must be no more than 52 characters');
  return undefined;
}
