/**
 * Container defaults (k8s.io/kubernetes pkg/apis/core/v1/defaults.go at 1.32:
 * SetDefaults_Container, SetDefaults_Probe, SetDefaults_HTTPGetAction,
 * SetDefaults_ObjectFieldSelector, and the `+default` markers of k8s.io/api
 * core/v1 that zz_generated.defaults.go applies to ports and gRPC probes), for
 * containers, init containers and ephemeral containers alike.
 */
import { asObject, defaultNil, defaultNumber, defaultString, objectsAt, structAt, type Json } from './json-fields.js';

/**
 * The tag kube's parsers.ParseImageName finds: the reference's tag, `latest`
 * for a bare name, `""` for a digest without tag or a reference it cannot parse.
 */
export function imageTag(image: string): string {
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  // Docker references are lowercase; ParseNormalizedNamed refuses the rest, and the defaulter ignores the error.
  if (named === '' || /[A-Z]/.test(named.replace(/:[^/]*$/, ''))) return '';
  const lastSegment = named.slice(named.lastIndexOf('/') + 1);
  const colon = lastSegment.indexOf(':');
  if (colon >= 0) return lastSegment.slice(colon + 1);
  return at >= 0 ? '' : 'latest';
}

/** SetDefaults_ObjectFieldSelector: a fieldRef's apiVersion is `v1`. */
export function defaultFieldRef(holder: Json): void {
  const ref = asObject(holder.fieldRef);
  if (ref) defaultString(ref, 'apiVersion', 'v1');
}

/** SetDefaults_HTTPGetAction on the httpGet of a probe or lifecycle handler. */
function defaultHandler(handler: Json): void {
  const httpGet = asObject(handler.httpGet);
  if (httpGet) {
    defaultString(httpGet, 'path', '/');
    defaultString(httpGet, 'scheme', 'HTTP');
  }
}

/** SetDefaults_Probe, then its handler; GRPCAction.service carries `+default=""` and no omitempty. */
function defaultProbe(probe: Json): void {
  defaultNumber(probe, 'timeoutSeconds', 1);
  defaultNumber(probe, 'periodSeconds', 10);
  defaultNumber(probe, 'successThreshold', 1);
  defaultNumber(probe, 'failureThreshold', 3);
  defaultHandler(probe);
  const grpc = asObject(probe.grpc);
  if (grpc) defaultNil(grpc, 'service', '');
}

/** Fills in one container's defaults in place. */
export function defaultContainer(c: Json): void {
  if (c.imagePullPolicy === undefined || c.imagePullPolicy === null || c.imagePullPolicy === '') {
    c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  }
  defaultString(c, 'terminationMessagePath', '/dev/termination-log');
  defaultString(c, 'terminationMessagePolicy', 'File');
  // Container.Resources is a struct: encoding/json writes it even when empty.
  structAt(c, 'resources');
  for (const port of objectsAt(c, 'ports')) defaultString(port, 'protocol', 'TCP');
  for (const env of objectsAt(c, 'env')) {
    const valueFrom = asObject(env.valueFrom);
    if (valueFrom) defaultFieldRef(valueFrom);
  }
  for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const probe = asObject(c[key]);
    if (probe) defaultProbe(probe);
  }
  const lifecycle = asObject(c.lifecycle);
  if (lifecycle) {
    for (const key of ['postStart', 'preStop']) {
      const handler = asObject(lifecycle[key]);
      if (handler) defaultHandler(handler);
    }
  }
}
