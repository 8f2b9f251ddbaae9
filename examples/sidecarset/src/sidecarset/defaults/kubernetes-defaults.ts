/**
 * The defaults Kubernetes gives containers and volumes
 * (k8s.io/kubernetes/pkg/apis/core/v1/defaults.go), as Kruise applies them to
 * a SidecarSet's containers and volumes (apis/apps/defaults): the sidecars a
 * pod receives are then complete, and the SidecarSet's hash is computed over
 * what the pods will actually carry.
 */
import type { Container, HTTPGetAction, ObjectFieldSelector, Probe, Volume } from 'kubernetes-types/core/v1.js';
import { canonicalQuantity } from '@operant/apimachinery';

/** Read-write for owner, read for others: the default mode of projected files. */
const defaultFileMode = 0o644;

/**
 * SetDefaults_Container and the per-field defaults Kruise calls after it, in place:
 * image pull policy by tag, termination message path and policy, port
 * protocols, field-ref API versions, resources rounded up to milli units,
 * liveness and readiness probes, lifecycle HTTP hooks.
 */
export function setContainerDefaults(c: Container): void {
  c.imagePullPolicy ||= imageTag(c.image ?? '') === 'latest' ? 'Always' : 'IfNotPresent';
  c.terminationMessagePath ||= '/dev/termination-log';
  c.terminationMessagePolicy ||= 'File';
  for (const p of c.ports ?? []) p.protocol ||= 'TCP';
  for (const e of c.env ?? []) if (e.valueFrom?.fieldRef) setFieldSelectorDefaults(e.valueFrom.fieldRef);
  if (c.resources?.limits) c.resources.limits = roundUpResources(c.resources.limits);
  if (c.resources?.requests) c.resources.requests = roundUpResources(c.resources.requests);
  // Kruise defaults these two probes, not the startup probe.
  for (const probe of [c.livenessProbe, c.readinessProbe]) if (probe) setProbeDefaults(probe);
  if (c.lifecycle?.postStart?.httpGet) setHttpGetDefaults(c.lifecycle.postStart.httpGet);
  if (c.lifecycle?.preStop?.httpGet) setHttpGetDefaults(c.lifecycle.preStop.httpGet);
}

export function setFieldSelectorDefaults(s: ObjectFieldSelector): void {
  s.apiVersion ||= 'v1';
}

function setProbeDefaults(p: Probe): void {
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
  if (p.httpGet) setHttpGetDefaults(p.httpGet);
}

function setHttpGetDefaults(h: HTTPGetAction): void {
  h.path ||= '/';
  h.scheme ||= 'HTTP';
}

/** SetDefaults_ResourceList: every quantity rounded up to milli units; one Go cannot read is left for validation to refuse. */
function roundUpResources(list: Record<string, string | number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, q] of Object.entries(list)) {
    try {
      out[name] = canonicalQuantity(q, { roundToMilli: true });
    } catch {
      out[name] = q as string;
    }
  }
  return out;
}

/** SetDefaultPodVolumes: emptyDir for a volume with no source, file modes, token lifetimes, hostPath type, in place. */
export function setVolumeDefaults(v: Volume): void {
  if (!Object.entries(v).some(([k, value]) => k !== 'name' && value !== undefined && value !== null)) v.emptyDir = {};
  if (v.hostPath) v.hostPath.type ??= '';
  if (v.secret) v.secret.defaultMode ??= defaultFileMode;
  if (v.configMap) v.configMap.defaultMode ??= defaultFileMode;
  if (v.downwardAPI) {
    v.downwardAPI.defaultMode ??= defaultFileMode;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef) setFieldSelectorDefaults(item.fieldRef);
  }
  if (v.projected) {
    v.projected.defaultMode ??= defaultFileMode;
    for (const source of v.projected.sources ?? []) {
      for (const item of source.downwardAPI?.items ?? []) if (item.fieldRef) setFieldSelectorDefaults(item.fieldRef);
      if (source.serviceAccountToken) source.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
}

// Docker image references (github.com/distribution/reference): [domain/]path[:tag][@digest].
const component = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const domain = '(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?';
const reference = new RegExp(
  `^(?:(${domain})/)?(${component}(?:/${component})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);

/**
 * The tag Kubernetes' parsers.ParseImageName reads from an image: its tag,
 * `latest` when it has neither tag nor digest, '' when it has only a digest or
 * does not parse (which makes the pull policy IfNotPresent).
 */
export function imageTag(image: string): string {
  const m = reference.exec(image);
  if (!m || image.length > 255) return '';
  const [, , , tag, digest] = m;
  if (tag) return tag;
  return digest ? '' : 'latest';
}
