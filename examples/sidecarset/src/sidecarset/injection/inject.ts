/**
 * Injecting SidecarSets into a pod being created (Kruise's
 * sidecarsetMutatingPod and buildSidecars, pkg/webhook/pod/mutating/sidecarset.go).
 * For each SidecarSet that matches, in order:
 *
 *  1. its patchPodMetadata is applied to the pod's annotations;
 *  2. its init containers (later sorted by name) and imagePullSecrets are collected;
 *  3. each container and init container gets IS_INJECTED=true, the variables
 *     transferEnv names (its own win), with shareVolumePolicy the app
 *     containers' mounts, and the SidecarSet volumes its own mounts name;
 *  4. the pod records, per SidecarSet, the hashes it got (kruise.io/sidecarset-hash
 *     and -without-image, earlier records kept) and the sorted list of the
 *     SidecarSets that injected it (kruise.io/sidecarset-injected-list).
 *
 * Then containers merge in (a pod container of the same name is replaced in
 * place, others go before or after the pod's own), init containers after the
 * pod's, volumes and secrets by name, the pod's first. Nothing is recorded
 * when nothing is injected. Pure: the caller finds the SidecarSets.
 */
import type { EnvVar, LocalObjectReference, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { SidecarContainer, SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import {
  goTime,
  readPodHashes,
  SidecarEnvKey,
  SidecarSetHashAnnotation,
  SidecarSetHashWithoutImageAnnotation,
  SidecarSetListAnnotation,
  writePodHashes,
  injectedSidecarSetNames,
} from '../annotations.js';
import { isNativeSidecar } from '../hash/hash.js';
import { mergeEnv, mergeSecrets, mergeSidecarContainers, mergeVolumeMounts, mergeVolumes } from './merge.js';
import { patchPodMetadata } from './pod-metadata.js';
import { sharedVolumeMounts, transferredEnv } from './sidecar-env.js';

/**
 * The pod with the SidecarSets injected, or undefined when there was nothing
 * to change. `sidecarSets` are those that match the pod and are not paused;
 * `now` stamps the records. Throws when the pod's hash annotations cannot be read.
 */
export function injectSidecarSets(pod: Pod, sidecarSets: readonly SidecarSet[], now: Date): Pod | undefined {
  if (sidecarSets.length === 0) return undefined;
  const out = structuredClone(pod);
  const annotations = { ...out.metadata?.annotations };
  let metadataChanged = false;
  for (const set of sidecarSets) metadataChanged = patchPodMetadata(annotations, set.spec?.patchPodMetadata) || metadataChanged;

  const hashes = readPodHashes(annotations, SidecarSetHashAnnotation);
  const hashesWithoutImage = readPodHashes(annotations, SidecarSetHashWithoutImageAnnotation);
  const names = new Set(injectedSidecarSetNames(annotations));
  const containers: SidecarContainer[] = [];
  const initContainers: SidecarContainer[] = [];
  const secrets: LocalObjectReference[] = [];
  const volumes: Volume[] = [];
  const stamp = goTime(now);
  // transferEnv may read a container name from an annotation patchPodMetadata just wrote.
  const view: Pod = { ...pod, metadata: { ...pod.metadata, annotations } };

  for (const set of sidecarSets) {
    const name = set.metadata?.name ?? '';
    names.add(name);
    const declared = new Map((set.spec?.volumes ?? []).map((v) => [v.name, v]));
    const sidecarList = new Set<string>();
    let injecting = false;
    const prepare = (source: SidecarContainer): SidecarContainer => {
      const sidecar = structuredClone(source);
      const shared = sharedVolumeMounts(sidecar, view);
      const borrowed = mergeEnv(transferredEnv(sidecar, view), shared.env);
      // Only the volumes the sidecar's own mounts name (a name that is not declared is the pod's).
      for (const mount of sidecar.volumeMounts ?? []) {
        const volume = declared.get(mount.name);
        if (volume) volumes.push(structuredClone(volume));
      }
      const mounts = mergeVolumeMounts(sidecar.volumeMounts, shared.mounts);
      if (mounts.length > 0) sidecar.volumeMounts = mounts;
      const injected: EnvVar = { name: SidecarEnvKey, value: 'true' };
      sidecar.env = mergeEnv([...(sidecar.env ?? []), injected], borrowed);
      injecting = true;
      return sidecar;
    };
    // Init containers and pull secrets only at creation, which is all this webhook sees.
    for (const init of set.spec?.initContainers ?? []) {
      if (isNativeSidecar(init)) sidecarList.add(init.name);
      initContainers.push(prepare(init));
    }
    secrets.push(...(set.spec?.imagePullSecrets ?? []));
    for (const container of set.spec?.containers ?? []) {
      sidecarList.add(container.name);
      containers.push(prepare(container));
    }
    if (injecting) {
      const list = [...sidecarList].sort();
      const revision = set.status?.latestRevision;
      hashes[name] = { updateTimestamp: stamp, hash: set.metadata?.annotations?.[SidecarSetHashAnnotation] ?? '', sidecarSetName: name, sidecarList: list, ...(revision ? { controllerRevision: revision } : {}) };
      hashesWithoutImage[name] = { updateTimestamp: stamp, hash: set.metadata?.annotations?.[SidecarSetHashWithoutImageAnnotation] ?? '', sidecarSetName: name, sidecarList: list };
    }
  }

  if (containers.length === 0 && initContainers.length === 0) {
    if (!metadataChanged) return undefined;
    out.metadata = { ...out.metadata, annotations };
    return out;
  }
  const spec = (out.spec ??= { containers: [] });
  initContainers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const mergedInit = mergeSidecarContainers(spec.initContainers, initContainers);
  if (mergedInit.length > 0) spec.initContainers = mergedInit;
  spec.containers = mergeSidecarContainers(spec.containers, containers);
  const mergedVolumes = mergeVolumes(spec.volumes, volumes);
  if (mergedVolumes.length > 0) spec.volumes = mergedVolumes;
  const mergedSecrets = mergeSecrets(spec.imagePullSecrets, secrets);
  if (mergedSecrets) spec.imagePullSecrets = mergedSecrets;
  annotations[SidecarSetHashAnnotation] = writePodHashes(hashes);
  annotations[SidecarSetHashWithoutImageAnnotation] = writePodHashes(hashesWithoutImage);
  annotations[SidecarSetListAnnotation] = [...names].sort().join(',');
  out.metadata = { ...out.metadata, annotations };
  return out;
}
