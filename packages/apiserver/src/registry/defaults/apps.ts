/**
 * apps/v1 defaults (k8s.io/kubernetes pkg/apis/apps/v1/defaults.go at 1.32:
 * SetDefaults_Deployment, SetDefaults_ReplicaSet, SetDefaults_StatefulSet,
 * SetDefaults_DaemonSet; zz_generated.defaults.go then
 * defaults each pod template as core/v1 defaults a PodSpec).
 */
import { defaultPodTemplateSpec } from './pod-spec.js';
import { defaultNil, defaultString, objectsAt, structAt, type Json } from './json-fields.js';

/** Fills in a Deployment's defaults in place. */
export function defaultDeployment(deployment: Json): void {
  const spec = structAt(deployment, 'spec');
  defaultNil(spec, 'replicas', 1);
  const strategy = structAt(spec, 'strategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = structAt(strategy, 'rollingUpdate');
    defaultNil(rollingUpdate, 'maxUnavailable', '25%');
    defaultNil(rollingUpdate, 'maxSurge', '25%');
  }
  defaultNil(spec, 'revisionHistoryLimit', 10);
  defaultNil(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplateSpec(spec.template);
}

/** Fills in a ReplicaSet's defaults in place: one replica, and its template's. */
export function defaultReplicaSet(replicaSet: Json): void {
  const spec = structAt(replicaSet, 'spec');
  defaultNil(spec, 'replicas', 1);
  defaultPodTemplateSpec(spec.template);
}

/** Fills in a StatefulSet's defaults in place, its volume claim templates' included. */
export function defaultStatefulSet(statefulSet: Json): void {
  const spec = structAt(statefulSet, 'spec');
  defaultString(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = structAt(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    defaultNil(strategy, 'rollingUpdate', {});
  }
  const rollingUpdate = strategy.rollingUpdate;
  if (strategy.type === 'RollingUpdate' && rollingUpdate && typeof rollingUpdate === 'object') defaultNil(rollingUpdate as Json, 'partition', 0);
  const retention = structAt(spec, 'persistentVolumeClaimRetentionPolicy');
  defaultString(retention, 'whenDeleted', 'Retain');
  defaultString(retention, 'whenScaled', 'Retain');
  defaultNil(spec, 'replicas', 1);
  defaultNil(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(spec.template);
  for (const claim of objectsAt(spec, 'volumeClaimTemplates')) {
    // SetDefaults_PersistentVolumeClaim and _PersistentVolumeClaimSpec.
    defaultString(structAt(claim, 'status'), 'phase', 'Pending');
    defaultNil(structAt(claim, 'spec'), 'volumeMode', 'Filesystem');
  }
}

/** Fills in a DaemonSet's defaults in place. */
export function defaultDaemonSet(daemonSet: Json): void {
  const spec = structAt(daemonSet, 'spec');
  const strategy = structAt(spec, 'updateStrategy');
  defaultString(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = structAt(strategy, 'rollingUpdate');
    defaultNil(rollingUpdate, 'maxUnavailable', 1);
    defaultNil(rollingUpdate, 'maxSurge', 0);
  }
  defaultNil(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplateSpec(spec.template);
}
