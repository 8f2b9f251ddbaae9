/**
 * What a SidecarSet's ControllerRevision records, and the revision's name
 * (Kruise's realControl.NewRevision and getPatch, pkg/control/sidecarcontrol/
 * history_control.go, on k8s.io/kubernetes pkg/controller/history).
 *
 * The data is a strategic merge patch that restores the injected parts of the
 * spec: `{"spec":{"$patch":"replace","containers":...,"imagePullSecrets":...,
 * "initContainers":...,"patchPodMetadata":...,"volumes":...}}`, as Go writes a
 * map (keys sorted at every level, absent parts `null`). The name is the
 * SidecarSet's name and the FNV-1 32-bit hash of that data (and the collision
 * count), in decimal, encoded as apimachinery's rand.SafeEncodeString does.
 * Same bytes and names as Kruise's, so revisions carry over between the two.
 */
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type { Typed } from '@operant/runtime';
import { SidecarSetCustomVersionLabel, type SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import { SidecarSetKindName } from '../annotations.js';
import { goJsonValue } from '../hash/go-json.js';
import { marshalSidecarContainers, safeEncode } from '../hash/hash.js';

/** A ControllerRevision as the client reads and writes it. */
export type ControllerRevision = Typed<appsv1.ControllerRevision>;

/** kube's ControllerRevisionHashLabel: the hash part of a revision's name. */
export const ControllerRevisionHashLabel = 'controller.kubernetes.io/hash';

/** The revision data of the SidecarSet, as the JSON text Kruise records. */
export function revisionData(sidecarSet: SidecarSet): string {
  const spec = sidecarSet.spec;
  const typed = (list: unknown[] | undefined) => (list === undefined ? null : JSON.parse(marshalSidecarContainers(list)) as unknown);
  return goJsonValue({
    spec: {
      $patch: 'replace',
      containers: typed(spec?.containers),
      imagePullSecrets: spec?.imagePullSecrets ?? null,
      initContainers: typed(spec?.initContainers),
      patchPodMetadata: spec?.patchPodMetadata ?? null,
      volumes: spec?.volumes ?? null,
    },
  });
}

/** The same data read back from a stored revision, in the same form (for comparing revisions). */
export function storedRevisionData(revision: ControllerRevision): string {
  return goJsonValue(revision.data ?? null);
}

/** kube's HashControllerRevision: FNV-1 (32-bit) of the data, then of the collision count in decimal. */
export function hashRevision(data: string, collisionCount: number | undefined): string {
  let hash = fnv1Update(0x811c9dc5, Buffer.from(data, 'utf8'));
  if (collisionCount !== undefined) hash = fnv1Update(hash, Buffer.from(String(collisionCount), 'utf8'));
  return safeEncode(String(hash));
}

function fnv1Update(hash: number, bytes: Uint8Array): number {
  let h = hash;
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h;
}

/** kube's ControllerRevisionName: the prefix cut to 223 characters, a dash, the hash. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/**
 * The ControllerRevision that records the SidecarSet as it is now: in
 * `namespace` (the operator's, as Kruise keeps them in its own), owned by the
 * SidecarSet, labelled with its labels, its name and its custom version, and
 * annotated with its annotations (the two hashes among them).
 */
export function newRevision(sidecarSet: SidecarSet, namespace: string, revision: number, collisionCount: number): ControllerRevision {
  const name = sidecarSet.metadata?.name ?? '';
  const data = revisionData(sidecarSet);
  const hash = hashRevision(data, collisionCount);
  const labels: Record<string, string> = { ...sidecarSet.metadata?.labels, [ControllerRevisionHashLabel]: hash, [SidecarSetKindName]: name };
  const customVersion = sidecarSet.metadata?.labels?.[SidecarSetCustomVersionLabel];
  if (customVersion) labels[SidecarSetCustomVersionLabel] = customVersion;
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(name, hash),
      namespace,
      labels,
      annotations: { ...sidecarSet.metadata?.annotations },
      ownerReferences: [
        { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'SidecarSet', name, uid: sidecarSet.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true },
      ],
    },
    data: JSON.parse(data) as object,
    revision,
  };
}

/** kube's SortControllerRevisions order: by revision number, then creation time, then name. */
export function compareRevisions(a: ControllerRevision, b: ControllerRevision): number {
  if (a.revision !== b.revision) return a.revision - b.revision;
  const ta = a.metadata?.creationTimestamp ?? '';
  const tb = b.metadata?.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}
