/**
 * The names Kruise writes on SidecarSets and pods, and the per-SidecarSet
 * hash annotations of a pod (Kruise's SidecarSetUpgradeSpec). A pod records,
 * for each SidecarSet that injected it, which hash it got and when:
 *
 *   kruise.io/sidecarset-hash: {"log":{"updateTimestamp":"2024-05-01T10:00:00Z",
 *     "hash":"...","sidecarSetName":"log","sidecarList":["log-agent"],"controllerRevision":"log-5d8c9"}}
 *
 * Pods injected by Kruise before the SidecarSetUpgradeSpec existed carry the
 * old form, `{"log":"<hash>"}`, which is still read. The JSON is written as
 * Go's json.Marshal writes it (keys sorted, Go's field order), so pods look
 * the same whichever operator touched them last.
 */
import { goString } from './hash/go-json.js';

/** On a SidecarSet: the hash of its containers. On a pod: the per-SidecarSet records. */
export const SidecarSetHashAnnotation = 'kruise.io/sidecarset-hash';
/** The same, for the hash computed without images. */
export const SidecarSetHashWithoutImageAnnotation = 'kruise.io/sidecarset-hash-without-image';
/** On a pod: the names of the SidecarSets that injected it, sorted, comma-separated. */
export const SidecarSetListAnnotation = 'kruise.io/sidecarset-injected-list';
/** On a ControllerRevision: the SidecarSet it records. */
export const SidecarSetKindName = 'kruise.io/sidecarset-name';
/** The environment variable that marks an injected container. */
export const SidecarEnvKey = 'IS_INJECTED';

/** What a pod records about one SidecarSet that injected it (Kruise's SidecarSetUpgradeSpec). */
export interface SidecarSetUpgradeSpec {
  /** RFC 3339, UTC, seconds; null in records converted from the old form (Go's zero metav1.Time). */
  updateTimestamp: string | null;
  hash: string;
  sidecarSetName: string;
  /** The sidecar container names, sorted; null where Kruise had none (old form). */
  sidecarList: string[] | null;
  controllerRevision?: string;
}

/**
 * Reads one of the two hash annotations of a pod: the records by SidecarSet
 * name, old-form entries converted (`{hash, sidecarSetName}`). Throws, as
 * Kruise's injection does, when the value is neither form.
 */
export function readPodHashes(annotations: Record<string, string> | undefined, key: string): Record<string, SidecarSetUpgradeSpec> {
  const text = annotations?.[key];
  if (!text) return {};
  const invalid = (why: string) => new Error(`invalid annotations[${key}] value ${text}, unmarshal failed: ${why}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('not a JSON object');
  const entries = Object.entries(parsed as Record<string, unknown>);
  // Go reads the whole value in one form or the other, never a mix.
  if (entries.every(([, v]) => typeof v === 'string')) {
    return Object.fromEntries(entries.map(([name, hash]) => [name, { updateTimestamp: null, hash: hash as string, sidecarSetName: name, sidecarList: null }]));
  }
  const out: Record<string, SidecarSetUpgradeSpec> = {};
  for (const [name, v] of entries) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`the entry of ${name} is not an object`);
    const r = v as Record<string, unknown>;
    out[name] = {
      updateTimestamp: typeof r.updateTimestamp === 'string' ? r.updateTimestamp : null,
      hash: typeof r.hash === 'string' ? r.hash : '',
      sidecarSetName: typeof r.sidecarSetName === 'string' ? r.sidecarSetName : '',
      sidecarList: Array.isArray(r.sidecarList) ? r.sidecarList.filter((s): s is string => typeof s === 'string') : null,
      ...(typeof r.controllerRevision === 'string' && r.controllerRevision ? { controllerRevision: r.controllerRevision } : {}),
    };
  }
  return out;
}

/** The hash a pod records for a SidecarSet, or '' (also when the annotation cannot be read, as Kruise). */
export function podSidecarSetHash(annotations: Record<string, string> | undefined, sidecarSetName: string, key = SidecarSetHashAnnotation): string {
  try {
    return readPodHashes(annotations, key)[sidecarSetName]?.hash ?? '';
  } catch {
    return '';
  }
}

/** The records as Go's json.Marshal writes a map[string]SidecarSetUpgradeSpec. */
export function writePodHashes(records: Record<string, SidecarSetUpgradeSpec>): string {
  const names = Object.keys(records).sort();
  const entries = names.map((name) => {
    const r = records[name]!;
    const fields = [
      `"updateTimestamp":${r.updateTimestamp === null ? 'null' : goString(goTime(r.updateTimestamp))}`,
      `"hash":${goString(r.hash)}`,
      `"sidecarSetName":${goString(r.sidecarSetName)}`,
      `"sidecarList":${r.sidecarList === null ? 'null' : `[${r.sidecarList.map(goString).join(',')}]`}`,
      ...(r.controllerRevision ? [`"controllerRevision":${goString(r.controllerRevision)}`] : []),
    ];
    return `${goString(name)}:{${fields.join(',')}}`;
  });
  return `{${entries.join(',')}}`;
}

/** metav1.Time as it marshals: RFC 3339 in UTC, whole seconds. */
export function goTime(t: string | Date): string {
  const d = typeof t === 'string' ? new Date(t) : t;
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The names in the injected-list annotation. */
export function injectedSidecarSetNames(annotations: Record<string, string> | undefined): string[] {
  const text = annotations?.[SidecarSetListAnnotation];
  return text ? text.split(',').filter((n) => n !== '') : [];
}
