/**
 * apps/v1 defaults (k8s.io/kubernetes pkg/apis/apps/v1/defaults.go at 1.32:
 * SetDefaults_Deployment, SetDefaults_ReplicaSet; zz_generated.defaults.go then
 * defaults each pod template as core/v1 defaults a PodSpec).
 */
import { defaultPodTemplateSpec } from './pod-spec.js';
import { defaultNil, defaultString, structAt, type Json } from './json-fields.js';

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
