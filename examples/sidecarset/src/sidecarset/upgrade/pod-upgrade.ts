/**
 * Upgrading one pod's sidecars in place (Kruise's updatePodSidecarContainer
 * and UpdatePodAnnotationsInUpgrade, pkg/controller/sidecarset/sidecarset_processor.go
 * and pkg/control/sidecarcontrol/sidecarset_control.go). A running pod can
 * take a new image and nothing else, so only images change; the kubelet then
 * restarts those containers. The pod records:
 *
 * - in `kruise.io/sidecarset-hash`, the SidecarSet's new hash and revision;
 * - in `kruise.io/sidecarset-inplace-update-state`, per SidecarSet, the
 *   revision and time of the upgrade, and the imageID each changed container
 *   ran before, so that a changed imageID shows the restart happened:
 *
 *   {"log":{"revision":"<hash>","updateTimestamp":"2024-05-01T10:00:00Z",
 *    "lastContainerStatuses":{"log-agent":{"imageID":"docker.io/...@sha256:..."}}}}
 *
 * As in Kruise, a SidecarSet's state is made at its first upgrade and only its
 * container statuses change afterwards.
 */
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { SidecarSet } from '../../api/v1alpha1/sidecarset-types.js';
import { goTime, readPodHashes, SidecarSetHashAnnotation, writePodHashes } from '../annotations.js';
import { goJsonValue, goString } from '../hash/go-json.js';
import { isNativeSidecar } from '../hash/hash.js';
import { patchPodMetadata } from '../injection/pod-metadata.js';

/** On a pod: per SidecarSet, the last in-place upgrade (Kruise's InPlaceUpdateState). */
export const SidecarSetInplaceUpdateStateAnnotation = 'kruise.io/sidecarset-inplace-update-state';
/** The pod condition that says whether the pod's SidecarSets can upgrade it in place. */
export const SidecarSetUpgradableCondition = 'SidecarSetUpgradable';

/** One SidecarSet's record in the in-place update state of a pod. */
interface InPlaceUpdateState {
  revision: string;
  updateTimestamp: string;
  lastContainerStatuses: Record<string, { imageID?: string }>;
  /** Fields Kruise's other workloads write; kept as they are. */
  rest: Record<string, unknown>;
}

/**
 * The pod with the SidecarSet's sidecar images, hash record and update state,
 * and its patchPodMetadata applied. Pure.
 */
export function upgradePodSidecars(sidecarSet: SidecarSet, pod: Pod, now: Date): Pod {
  const out = structuredClone(pod);
  const annotations = (out.metadata ??= {}).annotations ?? {};
  const changed: string[] = [];
  for (const sidecar of sidecarSet.spec?.containers ?? []) {
    const container = out.spec?.containers.find((c) => c.name === sidecar.name);
    if (!container || container.image === sidecar.image) continue;
    container.image = sidecar.image;
    changed.push(sidecar.name);
  }
  recordHash(annotations, sidecarSet, now);
  recordUpdateState(annotations, sidecarSet, pod, changed, now);
  patchPodMetadata(annotations, sidecarSet.spec?.patchPodMetadata);
  out.metadata.annotations = annotations;
  return out;
}

/** Kruise's UpdatePodSidecarSetHash: this SidecarSet's record becomes current; the others are kept. */
function recordHash(annotations: Record<string, string>, sidecarSet: SidecarSet, now: Date): void {
  const name = sidecarSet.metadata?.name ?? '';
  let records: ReturnType<typeof readPodHashes>;
  try {
    records = readPodHashes(annotations, SidecarSetHashAnnotation);
  } catch {
    records = {};
  }
  const sidecars = new Set<string>();
  for (const init of sidecarSet.spec?.initContainers ?? []) if (isNativeSidecar(init)) sidecars.add(init.name);
  for (const c of sidecarSet.spec?.containers ?? []) sidecars.add(c.name);
  const revision = sidecarSet.status?.latestRevision;
  records[name] = {
    updateTimestamp: goTime(now),
    hash: sidecarSet.metadata?.annotations?.[SidecarSetHashAnnotation] ?? '',
    sidecarSetName: name,
    sidecarList: [...sidecars].sort(),
    ...(revision ? { controllerRevision: revision } : {}),
  };
  annotations[SidecarSetHashAnnotation] = writePodHashes(records);
}

/** Records the imageIDs the changed containers ran before this upgrade. */
function recordUpdateState(annotations: Record<string, string>, sidecarSet: SidecarSet, before: Pod, changed: readonly string[], now: Date): void {
  const name = sidecarSet.metadata?.name ?? '';
  const states = readUpdateStates(annotations[SidecarSetInplaceUpdateStateAnnotation]);
  const state = (states[name] ??= {
    revision: sidecarSet.metadata?.annotations?.[SidecarSetHashAnnotation] ?? '',
    updateTimestamp: goTime(now),
    lastContainerStatuses: {},
    rest: {},
  });
  for (const container of changed) {
    const imageID = before.status?.containerStatuses?.find((s) => s.name === container)?.imageID;
    state.lastContainerStatuses[container] = imageID ? { imageID } : {};
  }
  annotations[SidecarSetInplaceUpdateStateAnnotation] = writeUpdateStates(states);
}

/** The states by SidecarSet; an unreadable value counts as none (Kruise logs it and starts over). */
export function readUpdateStates(text: string | undefined): Record<string, InPlaceUpdateState> {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isRecord(parsed)) return {};
  const out: Record<string, InPlaceUpdateState> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!isRecord(value)) continue;
    const { revision, updateTimestamp, lastContainerStatuses, ...rest } = value;
    const statuses: Record<string, { imageID?: string }> = {};
    if (isRecord(lastContainerStatuses)) {
      for (const [c, s] of Object.entries(lastContainerStatuses)) statuses[c] = isRecord(s) && typeof s.imageID === 'string' ? { imageID: s.imageID } : {};
    }
    out[name] = {
      revision: typeof revision === 'string' ? revision : '',
      updateTimestamp: typeof updateTimestamp === 'string' ? updateTimestamp : '',
      lastContainerStatuses: statuses,
      rest,
    };
  }
  return out;
}

/** As Go marshals map[string]*InPlaceUpdateState: names sorted, the struct's fields in order. */
function writeUpdateStates(states: Record<string, InPlaceUpdateState>): string {
  const sorted = (keys: string[]) => keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries = sorted(Object.keys(states)).map((name) => {
    const s = states[name]!;
    const statuses = sorted(Object.keys(s.lastContainerStatuses))
      .map((c) => {
        const imageID = s.lastContainerStatuses[c]!.imageID;
        return `${goString(c)}:{${imageID ? `"imageID":${goString(imageID)}` : ''}}`;
      })
      .join(',');
    const rest = Object.entries(s.rest).map(([k, v]) => `,${goString(k)}:${goJsonValue(v)}`).join('');
    return `${goString(name)}:{"revision":${goString(s.revision)},"updateTimestamp":${s.updateTimestamp ? goString(s.updateTimestamp) : 'null'},"lastContainerStatuses":{${statuses}}${rest}}`;
  });
  return `{${entries.join(',')}}`;
}

/**
 * The pod's SidecarSetUpgradable condition once this SidecarSet says whether
 * it can upgrade the pod, or undefined when that changes nothing. The
 * message keeps each SidecarSet's answer as JSON (`{"log":true,"mesh":false}`);
 * the condition is True only when all say yes (Kruise's
 * updatePodSidecarSetUpgradableCondition, with kube's UpdatePodCondition
 * rule for lastTransitionTime).
 */
export function upgradableCondition(sidecarSet: SidecarSet, pod: Pod, upgradable: boolean, now: Date): PodCondition | undefined {
  const old = pod.status?.conditions?.find((c) => c.type === SidecarSetUpgradableCondition);
  let answers: Record<string, unknown> = {};
  if (old?.message) {
    try {
      const parsed: unknown = JSON.parse(old.message);
      if (isRecord(parsed)) answers = parsed;
    } catch {
      // Kruise gives up on an unreadable message; starting over loses nothing it could use.
    }
  }
  answers[sidecarSet.metadata?.name ?? ''] = upgradable;
  const all = Object.values(answers).every((v) => v !== false);
  const message = goJsonValue(answers);
  const status = all ? 'True' : 'False';
  const reason = all ? 'AllSidecarsetUpgradable' : 'UpdateImmutableField';
  if (old && old.status === status && old.reason === reason && old.message === message) return undefined;
  return {
    type: SidecarSetUpgradableCondition,
    status,
    reason,
    message,
    lastTransitionTime: old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : goTime(now),
    ...(old?.lastProbeTime ? { lastProbeTime: old.lastProbeTime } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
