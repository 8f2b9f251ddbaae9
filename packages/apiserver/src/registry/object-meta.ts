/** Metadata bookkeeping shared by every write: names, uids, timestamps, generation. */
import { randomFillSync, randomUUID } from 'node:crypto';
import { jsonEqual, type KubeObject } from '@operant/apimachinery';
import { managedFieldsTime } from '@operant/apimachinery/managedfields';

const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** kube's name generator: the prefix plus five characters without vowels or look-alikes. */
export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[randomByte() % nameAlphabet.length];
  return `${prefix.slice(0, 63 - 5)}${suffix}`;
}

/**
 * Random bytes drawn from a pool filled 4 KiB at a time: a call to the
 * system's generator per name cost more than the rest of naming a pod.
 */
const randomPool = Buffer.alloc(4096);
let randomPoolUsed = randomPool.length;

function randomByte(): number {
  if (randomPoolUsed === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolUsed = 0;
  }
  return randomPool[randomPoolUsed++]!;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function nowTimestamp(now = new Date()): string {
  // The same text as managedFields' times, made once per second for both.
  return managedFieldsTime(now);
}

/** Sets the fields the server owns on create (rest.BeforeCreate). */
export function fillCreateMeta(obj: KubeObject, tracksGeneration: boolean): void {
  const m = obj.metadata;
  m.uid = randomUUID();
  m.creationTimestamp = nowTimestamp();
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.selfLink;
  if (tracksGeneration) m.generation = 1;
  else delete m.generation;
}

/** The part of an object whose change bumps metadata.generation: all but metadata and status. */
export function specChanged(a: KubeObject, b: KubeObject): boolean {
  const rest = (o: KubeObject): Record<string, unknown> => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...r } = o;
    return r;
  };
  return !jsonEqual(rest(a), rest(b));
}

/** Equality of two objects ignoring resourceVersion, to skip writes that change nothing (as kube does). */
export function sameIgnoringVersion(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return jsonEqual(strip(a), strip(b));
}
