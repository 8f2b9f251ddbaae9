/**
 * autoscaling defaults (k8s.io/kubernetes pkg/apis/autoscaling/v1 and v2
 * defaults.go at 1.32), for an HPA in the version it was sent in.
 */
import { asObject, defaultNil, structAt, type Json } from './json-fields.js';

/** SetDefaults_HPAScalingRules: what kube fills into a behavior's scaleUp and scaleDown. */
function scalingRules(rules: Json | undefined, defaults: { stabilizationWindowSeconds?: number; policies: Json[] }): Json {
  const out: Json = { ...(rules ?? {}) };
  if (defaults.stabilizationWindowSeconds !== undefined) defaultNil(out, 'stabilizationWindowSeconds', defaults.stabilizationWindowSeconds);
  defaultNil(out, 'selectPolicy', 'Max');
  // Only a nil list (absent or null): an empty one stays, for validation to refuse, as in kube.
  if (out.policies === undefined || out.policies === null) out.policies = defaults.policies;
  return out;
}

/** SetDefaults_HorizontalPodAutoscaler of v2 (a CPU target of 80% when there is none; behavior filled in) or of v1. */
export function defaultHorizontalPodAutoscaler(hpa: Json): void {
  const spec = structAt(hpa, 'spec');
  defaultNil(spec, 'minReplicas', 1);
  if (hpa.apiVersion === 'autoscaling/v1') return;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  const behavior = asObject(spec.behavior);
  if (behavior) {
    behavior.scaleUp = scalingRules(asObject(behavior.scaleUp), {
      stabilizationWindowSeconds: 0,
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    behavior.scaleDown = scalingRules(asObject(behavior.scaleDown), { policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
  }
}
