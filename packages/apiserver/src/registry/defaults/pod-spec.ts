/**
 * Pod and pod template defaults (k8s.io/kubernetes pkg/apis/core/v1 at 1.32:
 * SetDefaults_PodSpec for every pod spec, SetDefaults_Pod for pods only, and
 * zz_generated.defaults.go's walk through volumes and containers). Kube keeps
 * some defaults out of templates on purpose (requests from limits, service
 * links, host ports), so that adding them does not roll every Deployment.
 */
import { defaultContainer } from './containers.js';
import { defaultVolume } from './volumes.js';
import { asObject, defaultNil, defaultString, objectsAt, structAt, type Json } from './json-fields.js';

const containerLists = ['initContainers', 'containers', 'ephemeralContainers'];

/** SetDefaults_PodSpec and the nested defaults, for pods and templates alike. */
export function defaultPodSpec(spec: Json): void {
  defaultString(spec, 'dnsPolicy', 'ClusterFirst');
  defaultString(spec, 'restartPolicy', 'Always');
  defaultNil(spec, 'securityContext', {});
  defaultNil(spec, 'terminationGracePeriodSeconds', 30);
  defaultString(spec, 'schedulerName', 'default-scheduler');
  for (const volume of objectsAt(spec, 'volumes')) defaultVolume(volume);
  for (const list of containerLists) for (const c of objectsAt(spec, list)) defaultContainer(c);
}

/** SetDefaults_Pod: a container's missing requests are its limits. */
function defaultRequestsFromLimits(c: Json): void {
  const resources = asObject(c.resources);
  const limits = asObject(resources?.limits);
  if (!resources || !limits) return;
  const requests = asObject(resources.requests) ?? {};
  for (const [name, quantity] of Object.entries(limits)) if (!Object.hasOwn(requests, name)) requests[name] = quantity;
  if (Object.keys(requests).length > 0) resources.requests = requests;
}

/** With host networking, SetDefaults_Pod gives each container port its own number as host port. */
function defaultHostNetworkPorts(c: Json): void {
  for (const port of objectsAt(c, 'ports')) if (!port.hostPort) port.hostPort = port.containerPort;
}

/** Fills in a Pod's defaults in place (SetObjectDefaults_Pod). */
export function defaultPod(pod: Json): void {
  const spec = structAt(pod, 'spec');
  for (const list of ['containers', 'initContainers']) {
    for (const c of objectsAt(spec, list)) {
      defaultRequestsFromLimits(c);
      if (spec.hostNetwork === true) defaultHostNetworkPorts(c);
    }
  }
  defaultNil(spec, 'enableServiceLinks', true);
  defaultPodSpec(spec);
}

/** Fills in a pod template's defaults in place (the template of a Deployment, ReplicaSet, ...). */
export function defaultPodTemplateSpec(template: unknown): void {
  const t = asObject(template);
  const spec = asObject(t?.spec);
  if (spec) defaultPodSpec(spec);
}

