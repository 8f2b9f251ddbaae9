// The Kubebuilder book's CronJob tutorial (api/v1/cronjob_types.go), ported line by line.
import type { JobTemplateSpec } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Condition, int32, int64, ListMeta, ObjectMeta, Time } from '@operant/runtime';

// CronJobSpec defines the desired state of CronJob
export interface CronJobSpec {
  // schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
  // +kubebuilder:validation:MinLength=0
  // +required
  schedule: string;

  // startingDeadlineSeconds defines in seconds for starting the job if it misses scheduled
  // time for any reason.  Missed jobs executions will be counted as failed ones.
  // +optional
  // +kubebuilder:validation:Minimum=0
  startingDeadlineSeconds?: int64;

  // concurrencyPolicy specifies how to treat concurrent executions of a Job.
  // Valid values are:
  // - "Allow" (default): allows CronJobs to run concurrently;
  // - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
  // - "Replace": cancels currently running job and replaces it with a new one
  // +optional
  // +kubebuilder:default:=Allow
  concurrencyPolicy?: ConcurrencyPolicy;

  // suspend tells the controller to suspend subsequent executions, it does
  // not apply to already started executions.  Defaults to false.
  // +optional
  suspend?: boolean;

  // jobTemplate defines the job that will be created when executing a CronJob.
  // +required
  jobTemplate: JobTemplateSpec;

  // successfulJobsHistoryLimit defines the number of successful finished jobs to retain.
  // This is a pointer to distinguish between explicit zero and not specified.
  // +optional
  // +kubebuilder:validation:Minimum=0
  successfulJobsHistoryLimit?: int32;

  // failedJobsHistoryLimit defines the number of failed finished jobs to retain.
  // This is a pointer to distinguish between explicit zero and not specified.
  // +optional
  // +kubebuilder:validation:Minimum=0
  failedJobsHistoryLimit?: int32;
}

// ConcurrencyPolicy describes how the job will be handled.
// Only one of the following concurrent policies may be specified.
// If none of the following policies is specified, the default one
// is AllowConcurrent.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

// CronJobStatus defines the observed state of CronJob.
export interface CronJobStatus {
  // active defines a list of pointers to currently running jobs.
  // +optional
  // +listType=atomic
  // +kubebuilder:validation:MinItems=1
  // +kubebuilder:validation:MaxItems=10
  active?: ObjectReference[];

  // lastScheduleTime defines when was the last time the job was successfully scheduled.
  // +optional
  lastScheduleTime?: Time;

  // conditions represent the current state of the CronJob resource.
  // Each condition has a unique type and reflects the status of a specific aspect of the resource.
  //
  // Standard condition types include:
  // - "Available": the resource is fully functional
  // - "Progressing": the resource is being created or updated
  // - "Degraded": the resource failed to reach or maintain its desired state
  //
  // The status of each condition is one of True, False, or Unknown.
  // +listType=map
  // +listMapKey=type
  // +optional
  conditions?: Condition[];
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// CronJob is the Schema for the cronjobs API
export interface CronJob {
  apiVersion?: string;
  kind?: string;

  // metadata is a standard object metadata
  // +optional
  metadata?: ObjectMeta;

  // spec defines the desired state of CronJob
  // +required
  spec: CronJobSpec;

  // status defines the observed state of CronJob
  // +optional
  status?: CronJobStatus;
}

// +kubebuilder:object:root=true

// CronJobList contains a list of CronJob
export interface CronJobList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: CronJob[];
}
