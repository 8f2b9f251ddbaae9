/**
 * The SidecarSet API (apps.kruise.io/v1alpha1), field for field and marker for
 * marker as OpenKruise v1.8.4 declares it in apis/apps/v1alpha1/sidecarset_types.go,
 * so that a SidecarSet manifest moves between a Kruise cluster and this
 * operator without edits. The descriptions are ours; the fields this slice
 * leaves out are listed in the README.
 *
 * The policy fields are plain strings, not unions of literals: Kruise's CRD
 * carries no enum for them, so that its validating webhook, not the API
 * server's schema check, refuses a wrong value, with Kruise's own message.
 */
import type { Container, LocalObjectReference, ObjectFieldSelector, Volume } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { int32, int64, IntOrString, ListMeta, ObjectMeta } from '@operant/runtime';

/**
 * The label that names the custom version of a SidecarSet; its ControllerRevisions
 * carry it too, and `injectionStrategy.revision.customVersion` selects them by it.
 */
export const SidecarSetCustomVersionLabel = 'apps.kruise.io/sidecarset-custom-version';

// SidecarSetSpec is what a SidecarSet wants: which pods get which sidecars, and how they are updated.
export interface SidecarSetSpec {
  // selector chooses the pods that get the sidecars. It must be set and not empty.
  selector?: LabelSelector;

  // namespace, when set, limits the SidecarSet to the pods of that namespace;
  // otherwise pods in every namespace can match.
  namespace?: string;

  // namespaceSelector limits the SidecarSet to the pods of the namespaces whose
  // labels it matches. It cannot be used with namespace.
  namespaceSelector?: LabelSelector;

  // initContainers are injected, sorted by name, when a pod is created; a pod
  // that already exists never gets them.
  initContainers?: SidecarContainer[];

  // containers are the sidecar containers injected into the selected pods.
  containers?: SidecarContainer[];

  // volumes the sidecar containers may mount; each pod gets those its sidecars mount.
  // +kubebuilder:pruning:PreserveUnknownFields
  // +kubebuilder:validation:Schemaless
  volumes?: Volume[];

  // updateStrategy says how pods that already carry the sidecars are updated
  // when the sidecars change.
  updateStrategy?: SidecarSetUpdateStrategy;

  // injectionStrategy says what is injected into new pods.
  injectionStrategy?: SidecarSetInjectionStrategy;

  // imagePullSecrets the sidecar images need; added to each pod's own.
  imagePullSecrets?: LocalObjectReference[];

  // revisionHistoryLimit is how many ControllerRevisions of this SidecarSet are
  // kept; 10 by default.
  revisionHistoryLimit?: int32;

  // patchPodMetadata are annotations written into the selected pods.
  patchPodMetadata?: SidecarSetPatchPodMetadata[];
}

// SidecarSetPatchPodMetadata is a set of annotations to write into pods, and how.
export interface SidecarSetPatchPodMetadata {
  // annotations to write.
  annotations?: Record<string, string>;

  // patchPolicy is Retain (add missing keys only; the default), Overwrite, or
  // MergePatchJson (merge the value, a JSON object, into the pod's).
  patchPolicy?: SidecarSetPatchPolicyType;
}

/** Retain, Overwrite or MergePatchJson. */
export type SidecarSetPatchPolicyType = string;

/** The values of {@link SidecarSetPatchPolicyType}. */
export const PatchPolicy = { Retain: 'Retain', Overwrite: 'Overwrite', MergePatchJson: 'MergePatchJson' } as const;

// SidecarContainer is a container to inject, with how to inject and upgrade it.
export interface SidecarContainer
  // The container's own fields are kept as given, unvalidated by the schema, as Kruise's CRD has it.
  // +kubebuilder:pruning:PreserveUnknownFields
  // +kubebuilder:validation:Schemaless
  extends Container {
  // podInjectPolicy places the container before the pod's own containers
  // (BeforeAppContainer, the default for containers) or after them
  // (AfterAppContainer, the default for init containers).
  podInjectPolicy?: PodInjectPolicyType;

  // upgradeStrategy says how the container is upgraded in place.
  upgradeStrategy?: SidecarContainerUpgradeStrategy;

  // shareVolumePolicy, when enabled, mounts every volume the pod's own
  // containers mount into this container too.
  shareVolumePolicy?: ShareVolumePolicy;

  // transferEnv copies environment variables from the pod's containers.
  transferEnv?: TransferEnvVar[];
}

// ShareVolumePolicy turns volume sharing on or off.
export interface ShareVolumePolicy {
  // type is enabled or disabled (the default).
  type?: ShareVolumePolicyType;
}

/** BeforeAppContainer or AfterAppContainer. */
export type PodInjectPolicyType = string;

/** The values of {@link PodInjectPolicyType}. */
export const PodInjectPolicy = { BeforeAppContainer: 'BeforeAppContainer', AfterAppContainer: 'AfterAppContainer' } as const;

/** enabled or disabled. */
export type ShareVolumePolicyType = string;

/** The values of {@link ShareVolumePolicyType}. */
export const ShareVolumePolicyTypes = { Enabled: 'enabled', Disabled: 'disabled' } as const;

// TransferEnvVar copies environment variables from one of the pod's containers.
export interface TransferEnvVar {
  // sourceContainerName names the container to copy from.
  sourceContainerName?: string;
  // sourceContainerNameFrom reads the name of that container from the pod.
  // +optional
  sourceContainerNameFrom?: SourceContainerNameSource;
  // envName is a variable to copy.
  envName?: string;
  // envNames are more variables to copy.
  // +optional
  envNames?: string[];
}

// SourceContainerNameSource reads a container name from the pod.
export interface SourceContainerNameSource {
  // fieldRef selects the field: metadata.name, metadata.labels['<KEY>'] or metadata.annotations['<KEY>'].
  fieldRef?: ObjectFieldSelector;
}

/** ColdUpgrade or HotUpgrade. */
export type SidecarContainerUpgradeType = string;

/** The values of {@link SidecarContainerUpgradeType}. */
export const UpgradeType = { ColdUpgrade: 'ColdUpgrade', HotUpgrade: 'HotUpgrade' } as const;

// SidecarContainerUpgradeStrategy says how a sidecar is upgraded in place.
export interface SidecarContainerUpgradeStrategy {
  // upgradeType is ColdUpgrade (stop, then start with the new image; the
  // default) or HotUpgrade (start the new one beside the old one).
  upgradeType?: SidecarContainerUpgradeType;

  // hotUpgradeEmptyImage is the image that idles in the spare container of a hot upgrade.
  hotUpgradeEmptyImage?: string;
}

// SidecarSetInjectionStrategy says what new pods get.
export interface SidecarSetInjectionStrategy {
  // paused stops injecting into new pods; pods that have the sidecars keep them
  // and are still updated.
  paused?: boolean;

  // revision injects a recorded revision of the SidecarSet instead of the latest.
  revision?: SidecarSetInjectRevision;
}

// SidecarSetInjectRevision names a recorded revision of the SidecarSet.
export interface SidecarSetInjectRevision {
  // customVersion selects the latest ControllerRevision labelled
  // apps.kruise.io/sidecarset-custom-version with this value.
  // +optional
  customVersion?: string;
  // revisionName names the ControllerRevision.
  // +optional
  revisionName?: string;
  // policy is Always (every new pod gets the revision) or Partial (new pods
  // outside updateStrategy.selector get it, the others get the latest with the
  // probability set by updateStrategy.partition).
  // +kubebuilder:validation:Enum=Always;Partial;
  // +kubebuilder:default=Always
  policy?: SidecarSetInjectRevisionPolicy;
}

/** Always or Partial. */
export type SidecarSetInjectRevisionPolicy = string;

// SidecarSetUpdateStrategy says how pods that carry the sidecars are updated.
export interface SidecarSetUpdateStrategy {
  // type is RollingUpdate (update the injected pods in place; the default) or
  // NotUpdate (only new pods get the new sidecars).
  type?: SidecarSetUpdateStrategyType;

  // paused stops updating the injected pods.
  paused?: boolean;

  // selector, when set, limits the update to the pods it matches.
  selector?: LabelSelector;

  // partition is how many pods (or what percentage of them) stay on the old
  // version; 0 by default.
  partition?: IntOrString;

  // maxUnavailable is how many pods (or what percentage, rounded up) may be
  // unavailable at once during the update; 1 by default, and never 0.
  maxUnavailable?: IntOrString;

  // scatterStrategy spreads the pods that share a label value over the update's
  // batches, so that they are not all updated together.
  scatterStrategy?: UpdateScatterStrategy;
}

/** RollingUpdate or NotUpdate. */
export type SidecarSetUpdateStrategyType = string;

/** The values of {@link SidecarSetUpdateStrategyType}. */
export const UpdateStrategyType = { RollingUpdate: 'RollingUpdate', NotUpdate: 'NotUpdate' } as const;

/** Terms to scatter pods by during an update (Kruise's apps/v1alpha1 UpdateScatterStrategy). */
export type UpdateScatterStrategy = UpdateScatterTerm[];

// UpdateScatterTerm names a label key and value; value "*" stands for every value seen.
export interface UpdateScatterTerm {
  key: string;
  value: string;
}

// SidecarSetStatus is what the controller observed.
export interface SidecarSetStatus {
  // observedGeneration is the metadata.generation this status was computed for.
  observedGeneration?: int64;

  // matchedPods counts the pods that match the SidecarSet and carry its sidecars.
  matchedPods: int32;

  // updatedPods counts the matched pods that carry the latest sidecars.
  updatedPods: int32;

  // readyPods counts the matched pods that are running and ready.
  readyPods: int32;

  // updatedReadyPods counts the matched pods that are both updated and ready.
  updatedReadyPods?: int32;

  // latestRevision names the ControllerRevision of the current sidecars.
  latestRevision?: string;

  // collisionCount counts hash collisions among the SidecarSet's ControllerRevision
  // names; it is added to the hash to make a new name.
  collisionCount?: int32;
}

// +genclient
// +genclient:nonNamespaced
// +k8s:openapi-gen=true
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="MATCHED",type="integer",JSONPath=".status.matchedPods",description="The number of pods matched."
// +kubebuilder:printcolumn:name="UPDATED",type="integer",JSONPath=".status.updatedPods",description="The number of pods matched and updated."
// +kubebuilder:printcolumn:name="READY",type="integer",JSONPath=".status.readyPods",description="The number of pods matched and ready."
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp",description="CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC."

// SidecarSet injects sidecar containers into the pods it selects, and keeps them up to date.
export interface SidecarSet {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;

  spec?: SidecarSetSpec;
  status?: SidecarSetStatus;
}

// +kubebuilder:object:root=true

// SidecarSetList contains a list of SidecarSet
export interface SidecarSetList {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: SidecarSet[];
}
