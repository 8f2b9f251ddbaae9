/**
 * Service and Endpoints defaults (k8s.io/kubernetes pkg/apis/core/v1/defaults.go
 * at 1.32: SetDefaults_Service, the `+default="TCP"` of ServicePort.protocol,
 * SetDefaults_Endpoints). Cluster IPs, IP families and node ports are not
 * defaults: the service registry allocates them when the service is created.
 */
import { asObject, defaultNil, defaultString, objectsAt, structAt, type Json } from './json-fields.js';

/** v1.DefaultClientIPServiceAffinitySeconds: three hours. */
const clientIpAffinitySeconds = 10800;

/** kube's service.ExternallyAccessible: node ports, load balancers, or external IPs. */
function externallyAccessible(spec: Json): boolean {
  if (spec.type === 'LoadBalancer' || spec.type === 'NodePort') return true;
  return spec.type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0;
}

/** Fills in a Service's defaults in place. */
export function defaultService(service: Json): void {
  const spec = structAt(service, 'spec');
  defaultString(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = asObject(asObject(asObject(spec.sessionAffinityConfig)?.clientIP))?.timeoutSeconds;
    if (timeout === undefined || timeout === null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: clientIpAffinitySeconds } };
  }
  defaultString(spec, 'type', 'ClusterIP');
  for (const port of objectsAt(spec, 'ports')) {
    defaultString(port, 'protocol', 'TCP');
    // intstr's zero values, 0 and "", both mean "the service port".
    if (port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (externallyAccessible(spec)) defaultString(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'ClusterIP' || spec.type === 'NodePort' || spec.type === 'LoadBalancer') defaultNil(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') {
    defaultNil(spec, 'allocateLoadBalancerNodePorts', true);
    const loadBalancer = asObject(asObject(service.status)?.loadBalancer);
    for (const ingress of loadBalancer ? objectsAt(loadBalancer, 'ingress') : []) {
      if (ingress.ip) defaultNil(ingress, 'ipMode', 'VIP');
    }
  }
}

/** Fills in an Endpoints object's defaults in place: each port's protocol is TCP. */
export function defaultEndpoints(endpoints: Json): void {
  for (const subset of objectsAt(endpoints, 'subsets')) {
    for (const port of objectsAt(subset, 'ports')) defaultString(port, 'protocol', 'TCP');
  }
}
