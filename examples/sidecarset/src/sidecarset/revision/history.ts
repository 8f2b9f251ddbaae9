/**
 * The ControllerRevisions of a SidecarSet (Kruise's registerLatestRevision and
 * truncateHistory, pkg/controller/sidecarset/sidecarset_processor.go): each
 * distinct set of injected parts gets a revision, numbered in order; the
 * latest is named in status.latestRevision and in the records of the pods it
 * injects. Going back to an earlier spec renumbers that revision instead of
 * making a new one. Old revisions are deleted beyond revisionHistoryLimit,
 * except those a pod or `injectionStrategy.revision` still names.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { ControllerRevision as ControllerRevisionKind, isAlreadyExists, isNotFound, type Client } from '@operant/runtime';
import { SidecarSetCustomVersionLabel, type SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import { readPodHashes, SidecarSetHashAnnotation, SidecarSetKindName } from '../annotations.js';
import { compareRevisions, newRevision, storedRevisionData, type ControllerRevision } from './revision-data.js';

/** The latest revision and the collision count to record in the status. */
export interface LatestRevision {
  revision: ControllerRevision;
  collisionCount: number;
}

/** The default of spec.revisionHistoryLimit. */
const defaultHistoryLimit = 10;

/**
 * Makes sure the SidecarSet's current state has a revision, and that it is
 * the latest; trims the history. `pods` are the SidecarSet's matched pods
 * (the revisions they name are kept). Returns what the status records, and
 * the error of trimming, if any, which does not stop the reconcile (as in Kruise).
 */
export async function registerLatestRevision(
  client: Client,
  sidecarSet: SidecarSet,
  pods: readonly Pod[],
  namespace: string,
  signal?: AbortSignal,
): Promise<LatestRevision & { trimError?: Error }> {
  const name = sidecarSet.metadata?.name ?? '';
  const listed = await client.list(ControllerRevisionKind, { namespace, labelSelector: { [SidecarSetKindName]: name }, signal });
  // Those this SidecarSet controls, and orphans (kube's history.ListControllerRevisions):
  // a SidecarSet deleted and made again does not take over its predecessor's.
  const revisions = listed.items
    .filter((r) => {
      const controller = r.metadata?.ownerReferences?.find((o) => o.controller);
      return !controller || controller.uid === sidecarSet.metadata?.uid;
    })
    .sort(compareRevisions);
  let collisionCount = sidecarSet.status?.collisionCount ?? 0;
  const next = (revisions.at(-1)?.revision ?? 0) + 1;
  const candidate = newRevision(sidecarSet, namespace, next, collisionCount);
  const data = storedRevisionData(candidate);
  const equal = revisions.filter((r) => storedRevisionData(r) === data);

  let latest: ControllerRevision;
  if (equal.length > 0 && equal.at(-1) === revisions.at(-1)) {
    // Nothing changed since the last revision.
    latest = revisions.at(-1)!;
  } else if (equal.length > 0) {
    // Back to an earlier state: that revision becomes the latest, renumbered.
    const earlier = equal.at(-1)!;
    latest = await client.patch(ControllerRevisionKind, earlier.metadata!.name!, { revision: next }, { namespace, patchType: 'merge', signal });
    revisions.splice(revisions.indexOf(earlier), 1);
    revisions.push(latest);
  } else {
    ({ revision: latest, collisionCount } = await createRevision(client, sidecarSet, candidate, collisionCount, signal));
    revisions.push(latest);
  }
  latest = await labelCustomVersion(client, latest, sidecarSet.metadata?.labels?.[SidecarSetCustomVersionLabel], signal);
  const trimError = await trimHistory(client, sidecarSet, revisions, pods, signal).catch((err: Error) => err);
  return { revision: latest, collisionCount, ...(trimError ? { trimError } : {}) };
}

/** Creates the revision; a name taken by different data is a hash collision, and the count moves on. */
async function createRevision(client: Client, sidecarSet: SidecarSet, candidate: ControllerRevision, collisionCount: number, signal?: AbortSignal): Promise<LatestRevision> {
  const namespace = candidate.metadata!.namespace!;
  const data = storedRevisionData(candidate);
  let count = collisionCount;
  for (;;) {
    const attempt = count === collisionCount ? candidate : newRevision(sidecarSet, namespace, candidate.revision, count);
    try {
      return { revision: await client.create(ControllerRevisionKind, attempt, { signal }), collisionCount: count };
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = await client.get(ControllerRevisionKind, attempt.metadata!.name!, { namespace, live: true, signal });
      if (storedRevisionData(existing) === data) return { revision: existing, collisionCount: count };
      count++;
    }
  }
}

/** Puts the SidecarSet's custom version label on its latest revision (Kruise's updateCustomVersionLabel). */
async function labelCustomVersion(client: Client, revision: ControllerRevision, customVersion: string | undefined, signal?: AbortSignal): Promise<ControllerRevision> {
  if (!customVersion || revision.metadata?.labels?.[SidecarSetCustomVersionLabel] === customVersion) return revision;
  const patch = { metadata: { labels: { [SidecarSetCustomVersionLabel]: customVersion } } };
  return client.patch(ControllerRevisionKind, revision.metadata!.name!, patch, { namespace: revision.metadata!.namespace!, patchType: 'merge', signal });
}

/**
 * Deletes the oldest revisions beyond the limit (at least 1: the latest
 * stays), skipping those still in use. Fails when the ones in use keep the
 * history over the limit, as Kruise reports it.
 */
export async function trimHistory(client: Client, sidecarSet: SidecarSet, revisions: readonly ControllerRevision[], pods: readonly Pod[], signal?: AbortSignal): Promise<void> {
  const limit = Math.max(1, sidecarSet.spec?.revisionHistoryLimit ?? defaultHistoryLimit);
  let excess = revisions.length - limit;
  if (excess <= 0) return;
  const active = revisionsInUse(sidecarSet, pods, revisions);
  for (const revision of revisions.slice(0, -1)) {
    if (excess === 0) break;
    if (active.has(revision.metadata?.name ?? '')) continue;
    await client.delete(ControllerRevisionKind, revision.metadata!.name!, { namespace: revision.metadata!.namespace!, signal }).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    excess--;
  }
  if (excess > 0) {
    throw new Error(`failed to limit the number of stored revisions, limited: ${limit}, actual: ${limit + excess}, name: ${sidecarSet.metadata?.name}`);
  }
}

/** The revisions a pod records, and the one `injectionStrategy.revision` names (Kruise's filterActiveRevisions). */
export function revisionsInUse(sidecarSet: SidecarSet, pods: readonly Pod[], revisions: readonly ControllerRevision[]): Set<string> {
  const name = sidecarSet.metadata?.name ?? '';
  const active = new Set<string>();
  for (const pod of pods) {
    let revision: string | undefined;
    try {
      revision = readPodHashes(pod.metadata?.annotations, SidecarSetHashAnnotation)[name]?.controllerRevision;
    } catch {
      // An unreadable record names no revision.
    }
    if (revision) active.add(revision);
  }
  const wanted = sidecarSet.spec?.injectionStrategy?.revision;
  if (wanted?.revisionName) active.add(wanted.revisionName);
  if (wanted?.customVersion) {
    const labelled = revisions.filter((r) => r.metadata?.labels?.[SidecarSetCustomVersionLabel] === wanted.customVersion).sort(compareRevisions);
    const newest = labelled.at(-1)?.metadata?.name;
    if (newest) active.add(newest);
  }
  return active;
}
