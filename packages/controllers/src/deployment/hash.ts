/**
 * The pod-template-hash: the label that tells a Deployment's ReplicaSets (and
 * their pods) apart, and the suffix of each ReplicaSet's name. kube's
 * controller.ComputeHash takes FNV-32a over the pod template, then over
 * collisionCount (as 8 little-endian bytes) when set, and writes the decimal
 * sum through rand.SafeEncodeString's alphabet (no vowels, no look-alikes).
 * kube hashes a spew dump of the Go struct; we hash the template's canonical
 * JSON (keys sorted), so the values differ from a real cluster's, while the
 * properties that matter hold: stable for a template, different when it
 * changes, and moved by collisionCount.
 */
import { canonicalJson } from '../json.js';

/** kube's rand.SafeEncodeString alphabet. */
const alphanums = 'bcdfghjklmnpqrstvwxz2456789';

/** kube's rand.SafeEncodeString: each character mapped into {@link alphanums} by its code. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += alphanums[ch.codePointAt(0)! % alphanums.length];
  return out;
}

/** FNV-1a, 32 bits, continuing from `hash` (the offset basis by default). */
export function fnv32a(bytes: Uint8Array, hash = 0x811c9dc5): number {
  let h = hash;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The pod-template-hash of a template, moved by `collisionCount` when it is set. */
export function computeHash(template: unknown, collisionCount?: number): string {
  let hash = fnv32a(Buffer.from(canonicalJson(template ?? {}), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) {
    const bytes = Buffer.alloc(8);
    bytes.writeUInt32LE(collisionCount >>> 0, 0);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}
