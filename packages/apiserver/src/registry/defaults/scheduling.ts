/**
 * scheduling.k8s.io/v1 defaults (k8s.io/kubernetes pkg/apis/scheduling/v1/
 * defaults.go at 1.32): SetDefaults_PriorityClass.
 */
import { defaultNil, type Json } from './json-fields.js';

/** A PriorityClass preempts lower priorities unless it says otherwise. */
export function defaultPriorityClass(priorityClass: Json): void {
  defaultNil(priorityClass, 'preemptionPolicy', 'PreemptLowerPriority');
}
