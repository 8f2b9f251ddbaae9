/**
 * networking.k8s.io/v1 defaults (k8s.io/kubernetes pkg/apis/networking/v1/
 * defaults.go at 1.32): a NetworkPolicy's policyTypes and port protocols, an
 * IngressClass's parameters scope.
 */
import { asObject, defaultNil, objectsAt, structAt, type Json } from './json-fields.js';

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort. */
export function defaultNetworkPolicy(policy: Json): void {
  const spec = structAt(policy, 'spec');
  for (const direction of ['ingress', 'egress']) {
    for (const rule of objectsAt(spec, direction)) {
      for (const port of objectsAt(rule, 'ports')) defaultNil(port, 'protocol', 'TCP');
    }
  }
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    // A policy naming no types is at least an Ingress policy, and an Egress one when it has egress rules.
    spec.policyTypes = Array.isArray(spec.egress) && spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

/** SetDefaults_IngressClass: parameters without a scope are cluster-scoped. */
export function defaultIngressClass(ingressClass: Json): void {
  const parameters = asObject(structAt(ingressClass, 'spec').parameters);
  if (parameters) defaultNil(parameters, 'scope', 'Cluster');
}
