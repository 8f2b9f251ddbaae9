/**
 * What the SidecarSet mutating webhook does on create and update (Kruise's
 * SetDefaultsSidecarSet, then SetHashSidecarSet): fill the defaults, then
 * write the two hashes into the SidecarSet's annotations, computed over the
 * defaulted containers.
 */
import type { SidecarContainer, SidecarSet, SidecarSetSpec } from '../../api/v1alpha1/sidecarset-types.js';
import { PatchPolicy, PodInjectPolicy, ShareVolumePolicyTypes, UpdateStrategyType, UpgradeType } from '../../api/v1alpha1/sidecarset-types.js';
import { SidecarSetHashAnnotation, SidecarSetHashWithoutImageAnnotation } from '../annotations.js';
import { sidecarSetHash, sidecarSetHashWithoutImage } from '../hash/hash.js';
import { setContainerDefaults, setFieldSelectorDefaults, setVolumeDefaults } from './kubernetes-defaults.js';

/** Fills the SidecarSet's defaults and writes its hash annotations, in place. */
export function defaultSidecarSet(obj: SidecarSet): void {
  const spec = (obj.spec ??= {});
  setSpecDefaults(spec);
  const annotations = (obj.metadata ??= {}).annotations ?? {};
  annotations[SidecarSetHashAnnotation] = sidecarSetHash(spec);
  annotations[SidecarSetHashWithoutImageAnnotation] = sidecarSetHashWithoutImage(spec);
  obj.metadata.annotations = annotations;
}

/** SetDefaultsSidecarSet. */
export function setSpecDefaults(spec: SidecarSetSpec): void {
  const strategy = (spec.updateStrategy ??= {});
  strategy.type ||= UpdateStrategyType.RollingUpdate;
  strategy.maxUnavailable ??= 1;
  strategy.partition ??= 0;
  for (const c of spec.initContainers ?? []) setSidecarContainerDefaults(c, PodInjectPolicy.AfterAppContainer);
  for (const c of spec.containers ?? []) setSidecarContainerDefaults(c, PodInjectPolicy.BeforeAppContainer);
  for (const v of spec.volumes ?? []) setVolumeDefaults(v);
  spec.revisionHistoryLimit ??= 10;
  for (const patch of spec.patchPodMetadata ?? []) patch.patchPolicy ||= PatchPolicy.Retain;
  const revision = spec.injectionStrategy?.revision;
  if (revision) revision.policy ||= 'Always';
}

function setSidecarContainerDefaults(c: SidecarContainer, injectPolicy: string): void {
  c.podInjectPolicy ||= injectPolicy;
  (c.upgradeStrategy ??= {}).upgradeType ||= UpgradeType.ColdUpgrade;
  (c.shareVolumePolicy ??= {}).type ||= ShareVolumePolicyTypes.Disabled;
  setContainerDefaults(c);
  for (const t of c.transferEnv ?? []) if (t.sourceContainerNameFrom?.fieldRef) setFieldSelectorDefaults(t.sourceContainerNameFrom.fieldRef);
}
