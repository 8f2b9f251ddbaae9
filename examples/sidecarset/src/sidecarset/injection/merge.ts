/**
 * How injected things merge with what the pod has (Kruise's
 * mergeSidecarContainers, mergeSidecarSecrets and util.Merge*): the pod's own
 * entries come first and win; a sidecar named like one of the pod's
 * containers replaces it where it stands; new sidecars go before the pod's
 * containers (BeforeAppContainer, as one block, in order) or after them.
 */
import type { Container, EnvVar, LocalObjectReference, Volume, VolumeMount } from 'kubernetes-types/core/v1.js';
import type { SidecarContainer } from '../../api/v1alpha1/sidecarset-types.js';
import { PodInjectPolicy } from '../../api/v1alpha1/sidecarset-types.js';

/** The pod's containers with the sidecars merged in. */
export function mergeSidecarContainers(podContainers: readonly Container[] | undefined, sidecars: readonly SidecarContainer[]): Container[] {
  const merged = [...(podContainers ?? [])];
  const index = new Map(merged.map((c, i) => [c.name, i]));
  const before: Container[] = [];
  const after: Container[] = [];
  for (const sidecar of sidecars) {
    const container = toContainer(sidecar);
    const at = index.get(sidecar.name);
    if (at !== undefined) merged[at] = container;
    else if (sidecar.podInjectPolicy === PodInjectPolicy.BeforeAppContainer) before.push(container);
    else after.push(container);
  }
  return [...before, ...merged, ...after];
}

/** A SidecarContainer without the SidecarSet's own fields: what goes into the pod. */
export function toContainer(sidecar: SidecarContainer): Container {
  const container: Container & Partial<SidecarContainer> = { ...sidecar };
  for (const key of sidecarFields) delete container[key];
  return container;
}

const sidecarFields = ['podInjectPolicy', 'upgradeStrategy', 'shareVolumePolicy', 'transferEnv'] as const;

/** The pod's pull secrets, then the sidecars', each name once. */
export function mergeSecrets(pod: readonly LocalObjectReference[] | undefined, sidecars: readonly LocalObjectReference[]): LocalObjectReference[] | undefined {
  const out = uniqueBy([...(pod ?? []), ...sidecars], (s) => s.name ?? '');
  return out.length > 0 ? out : undefined;
}

/** The first list, then what the second adds by name. */
export function mergeVolumes(original: readonly Volume[] | undefined, additional: readonly Volume[]): Volume[] {
  const names = new Set((original ?? []).map((v) => v.name));
  return [...(original ?? []), ...uniqueBy(additional.filter((v) => !names.has(v.name)), (v) => v.name)];
}

/** The first list, then what the second adds by name: the first one's variables win. */
export function mergeEnv(original: readonly EnvVar[] | undefined, additional: readonly EnvVar[]): EnvVar[] {
  const names = new Set((original ?? []).map((e) => e.name));
  return [...(original ?? []), ...uniqueBy(additional.filter((e) => !names.has(e.name)), (e) => e.name)];
}

/** The first list, then what the second adds by mount path. */
export function mergeVolumeMounts(original: readonly VolumeMount[] | undefined, additional: readonly VolumeMount[]): VolumeMount[] {
  const paths = new Set((original ?? []).map((m) => m.mountPath));
  return [...(original ?? []), ...uniqueBy(additional.filter((m) => !paths.has(m.mountPath)), (m) => m.mountPath)];
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && (seen.add(key(item)), true));
}
