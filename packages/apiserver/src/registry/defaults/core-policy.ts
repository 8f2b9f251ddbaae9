/**
 * core/v1 defaults of ReplicationControllers, PodTemplates and LimitRanges
 * (k8s.io/kubernetes pkg/apis/core/v1/defaults.go at 1.32:
 * SetDefaults_ReplicationController, SetDefaults_LimitRangeItem, and the pod
 * template defaults zz_generated.defaults.go applies).
 */
import { defaultPodTemplateSpec } from './pod-spec.js';
import { asObject, defaultNil, objectsAt, structAt, type Json } from './json-fields.js';

/** A ReplicationController without a selector or labels takes its template's; one replica unless it says. */
export function defaultReplicationController(rc: Json): void {
  const spec = structAt(rc, 'spec');
  const templateLabels = asObject(asObject(asObject(spec.template)?.metadata)?.labels);
  if (templateLabels) {
    if (Object.keys(asObject(spec.selector) ?? {}).length === 0) spec.selector = { ...templateLabels };
    const metadata = structAt(rc, 'metadata');
    if (Object.keys(asObject(metadata.labels) ?? {}).length === 0) metadata.labels = { ...templateLabels };
  }
  defaultNil(spec, 'replicas', 1);
  defaultPodTemplateSpec(spec.template);
}

/** A PodTemplate's pod spec gets the pod defaults. */
export function defaultPodTemplate(podTemplate: Json): void {
  defaultPodTemplateSpec(podTemplate.template);
}

/**
 * SetDefaults_LimitRangeItem for Container limits: the default limit falls
 * back to the max, the default request to the default limit, then to the min.
 */
export function defaultLimitRange(limitRange: Json): void {
  for (const item of objectsAt(structAt(limitRange, 'spec'), 'limits')) {
    if (item.type !== 'Container') continue;
    const defaults: Json = { ...(asObject(item.default) ?? {}) };
    const requests: Json = { ...(asObject(item.defaultRequest) ?? {}) };
    for (const [k, v] of Object.entries(asObject(item.max) ?? {})) if (!(k in defaults)) defaults[k] = v;
    for (const [k, v] of Object.entries(defaults)) if (!(k in requests)) requests[k] = v;
    for (const [k, v] of Object.entries(asObject(item.min) ?? {})) if (!(k in requests)) requests[k] = v;
    if (Object.keys(defaults).length > 0) item.default = defaults;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}
