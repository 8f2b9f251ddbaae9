/**
 * What a sidecar borrows from the pod's own containers (Kruise's
 * GetSidecarTransferEnvs and GetInjectedVolumeMountsAndEnvs): the
 * environment variables its transferEnv names, and, with
 * `shareVolumePolicy: enabled`, every volume mount of the app containers,
 * with the variables their subPathExpr refers to.
 */
import type { Container, EnvVar, Pod, VolumeMount } from 'kubernetes-types/core/v1.js';
import { isQualifiedName } from '@operant/apimachinery';
import type { SidecarContainer } from '../../api/v1alpha1/sidecarset-types.js';
import { ShareVolumePolicyTypes } from '../../api/v1alpha1/sidecarset-types.js';
import { SidecarEnvKey } from '../annotations.js';
import { splitSubscriptedPath } from '../field-path.js';

/** The variables transferEnv copies, in order; a missing source or variable is skipped. */
export function transferredEnv(sidecar: SidecarContainer, pod: Pod): EnvVar[] {
  const byContainer = new Map<string, EnvVar>();
  for (const c of pod.spec?.containers ?? []) for (const e of c.env ?? []) byContainer.set(`${c.name}/${e.name}`, e);
  const out: EnvVar[] = [];
  for (const t of sidecar.transferEnv ?? []) {
    const names = [...new Set([...(t.envName ? [t.envName] : []), ...(t.envNames ?? [])])].sort();
    let source = t.sourceContainerName ?? '';
    if (t.sourceContainerNameFrom?.fieldRef) {
      const fromPod = containerNameFromPod(t.sourceContainerNameFrom.fieldRef.fieldPath, pod);
      if (fromPod === undefined) continue;
      source = fromPod;
    }
    for (const name of names) {
      const env = byContainer.get(`${source}/${name}`);
      if (env) out.push(env);
    }
  }
  return out;
}

/** ExtractContainerNameFromFieldPath: a pod label or annotation; undefined when the path cannot be read. */
function containerNameFromPod(fieldPath: string, pod: Pod): string | undefined {
  const split = splitSubscriptedPath(fieldPath);
  if (!split) return undefined;
  if (split.path === 'metadata.annotations') {
    return isQualifiedName(split.subscript.toLowerCase()).length === 0 ? (pod.metadata?.annotations?.[split.subscript] ?? '') : undefined;
  }
  if (split.path === 'metadata.labels') {
    return isQualifiedName(split.subscript).length === 0 ? (pod.metadata?.labels?.[split.subscript] ?? '') : undefined;
  }
  return undefined;
}

/** Matches `$(NAME)` in a subPathExpr. */
const subPathExprEnv = /\$\(([-._a-zA-Z][-._a-zA-Z0-9]*)\)/g;

/** With shareVolumePolicy enabled: the app containers' mounts, and the variables their subPathExpr needs. */
export function sharedVolumeMounts(sidecar: SidecarContainer, pod: Pod): { mounts: VolumeMount[]; env: EnvVar[] } {
  if (sidecar.shareVolumePolicy?.type !== ShareVolumePolicyTypes.Enabled) return { mounts: [], env: [] };
  const mounts: VolumeMount[] = [];
  const env: EnvVar[] = [];
  for (const app of pod.spec?.containers ?? []) {
    if (isInjectedContainer(app)) continue;
    for (const mount of app.volumeMounts ?? []) {
      mounts.push(mount);
      for (const [, name] of (mount.subPathExpr ?? '').matchAll(subPathExprEnv)) {
        const v = app.env?.find((e) => e.name === name);
        if (v) env.push(v);
      }
    }
  }
  return { mounts, env };
}

/** A container some SidecarSet injected: it carries IS_INJECTED=true. */
export function isInjectedContainer(c: Container): boolean {
  return c.env?.some((e) => e.name === SidecarEnvKey && e.value === 'true') ?? false;
}
