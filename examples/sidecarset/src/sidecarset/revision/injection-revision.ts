/**
 * Which version of a SidecarSet a new pod gets (Kruise's
 * getSuitableRevisionSidecarSet for CREATE, pkg/webhook/pod/mutating/sidecarset.go).
 * Without `injectionStrategy.revision`, the latest. With it, the recorded
 * revision it names (by `revisionName`, or the newest labelled with
 * `customVersion`):
 *
 * - when the update is paused, or with policy `Always` (the default): that revision;
 * - with policy `Partial`: that revision for pods `updateStrategy.selector`
 *   does not select; for the others, that revision with the probability a
 *   percentage `partition` gives (an integer partition: the latest).
 *
 * A revision's SidecarSet has the injected parts the revision recorded, the
 * hashes it carried and `status.latestRevision` naming it, so pods record it.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { labelSelectorFromObject } from '@operant/apimachinery';
import { SidecarSetCustomVersionLabel, type SidecarSet, type SidecarSetSpec } from '../../api/v1alpha1/sidecarset-types.js';
import { SidecarSetHashAnnotation, SidecarSetHashWithoutImageAnnotation, SidecarSetKindName } from '../annotations.js';
import { sidecarSetHash, sidecarSetHashWithoutImage } from '../hash/hash.js';
import { compareRevisions, type ControllerRevision } from './revision-data.js';

/** The revision cannot be found: the pod is refused (Kruise answers 500). */
export class RevisionNotFoundError extends Error {}

/**
 * The SidecarSet to inject into `pod`: `sidecarSet` itself, or the revision
 * its injection strategy names. `revisions` are the ControllerRevisions of
 * the operator's namespace; `random` draws in [0, 1) for `Partial`.
 */
export function sidecarSetForNewPod(sidecarSet: SidecarSet, pod: Pod, revisions: readonly ControllerRevision[], random: () => number = Math.random): SidecarSet {
  const wanted = sidecarSet.spec?.injectionStrategy?.revision;
  if (!wanted || (wanted.revisionName === undefined && wanted.customVersion === undefined)) return sidecarSet;
  const history = sidecarSetAtRevision(sidecarSet, namedRevision(sidecarSet, revisions));
  const strategy = sidecarSet.spec?.updateStrategy;
  if (strategy?.paused || wanted.policy !== 'Partial') return history;
  if (strategy?.selector) {
    let selected = false;
    try {
      selected = labelSelectorFromObject(strategy.selector).matches(pod.metadata?.labels ?? {});
    } catch {
      throw new Error(`SidecarSet ${sidecarSet.metadata?.name}: updateStrategy.selector cannot be read`);
    }
    if (!selected) return history;
  }
  const partition = strategy?.partition;
  if (typeof partition !== 'string') return sidecarSet;
  const m = /^(\d+)%$/.exec(partition);
  if (!m) throw new Error(`invalid percentage ${JSON.stringify(partition)}`);
  return random() <= Number(m[1]) / 100 ? history : sidecarSet;
}

/** The revision `injectionStrategy.revision` names (by name, or the newest with the custom version). */
function namedRevision(sidecarSet: SidecarSet, revisions: readonly ControllerRevision[]): ControllerRevision {
  const { revisionName, customVersion } = sidecarSet.spec!.injectionStrategy!.revision!;
  const name = sidecarSet.metadata?.name ?? '';
  if (revisionName !== undefined) {
    const found = revisions.find((r) => r.metadata.name === revisionName);
    if (!found) throw new RevisionNotFoundError(`controllerrevisions.apps ${JSON.stringify(revisionName)} not found`);
    return found;
  }
  const labelled = revisions
    .filter((r) => r.metadata.labels?.[SidecarSetKindName] === name && r.metadata.labels?.[SidecarSetCustomVersionLabel] === customVersion)
    .sort(compareRevisions);
  const newest = labelled.at(-1);
  if (!newest) throw new RevisionNotFoundError(`ControllerRevision.apps ${JSON.stringify(name)} not found`);
  return newest;
}

/**
 * The SidecarSet as `revision` recorded it (Kruise's GetHistorySidecarSet):
 * the revision's data replaces the spec (`$patch: replace`), so only the
 * injected parts remain; the hashes come from the revision's annotations (or
 * are computed, for a revision without them).
 */
export function sidecarSetAtRevision(sidecarSet: SidecarSet, revision: ControllerRevision): SidecarSet {
  const recorded = ((revision.data as { spec?: Record<string, unknown> } | undefined)?.spec ?? {}) as Record<string, unknown>;
  const spec: SidecarSetSpec = {};
  for (const field of ['containers', 'initContainers', 'volumes', 'imagePullSecrets', 'patchPodMetadata'] as const) {
    const value = recorded[field];
    if (value !== null && value !== undefined) (spec as Record<string, unknown>)[field] = structuredClone(value);
  }
  const hash = revision.metadata.annotations?.[SidecarSetHashAnnotation] || sidecarSetHash(spec);
  const withoutImage = revision.metadata.annotations?.[SidecarSetHashWithoutImageAnnotation] || sidecarSetHashWithoutImage(spec);
  return {
    ...sidecarSet,
    metadata: { ...sidecarSet.metadata, annotations: { ...sidecarSet.metadata?.annotations, [SidecarSetHashAnnotation]: hash, [SidecarSetHashWithoutImageAnnotation]: withoutImage } },
    spec,
    status: { ...sidecarSet.status, latestRevision: revision.metadata.name } as SidecarSet['status'],
  };
}
