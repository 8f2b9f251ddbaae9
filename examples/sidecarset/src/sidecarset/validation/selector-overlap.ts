/**
 * Whether two label selectors can select the same labels (Kruise's
 * util.IsSelectorOverlapping, pkg/util/selector.go). It is a cheap, one-sided
 * proof of disjointness tried both ways: two selectors are disjoint when a key
 * one of them pins (a value, an `In` list, `Exists`) is required by the other
 * to have a value outside it (`=`, an `In` list that does not intersect, a
 * `NotIn` list that covers it), to exist where it cannot, or not to exist.
 * Anything it cannot prove disjoint overlaps: `a=b` and `c=d` overlap, since a
 * pod may carry both labels. Kept as Kruise has it, one quirk included: an
 * `Exists` on a key the other selector does not pin counts as disjoint.
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';

/** True unless the selectors are provably disjoint. */
export function isSelectorOverlapping(a: LabelSelector | undefined, b: LabelSelector | undefined): boolean {
  return !(isDisjoint(a ?? {}, b ?? {}) || isDisjoint(b ?? {}, a ?? {}));
}

/** Any value at all (the key is required to exist). */
const ALL = Symbol('all');

function isDisjoint(s1: LabelSelector, s2: LabelSelector): boolean {
  // What s1 allows for each key it constrains positively: some values, or ALL.
  const allowed = new Map<string, Array<string | typeof ALL>>();
  for (const [key, value] of Object.entries(s1.matchLabels ?? {})) allowed.set(key, [value]);
  for (const req of s1.matchExpressions ?? []) {
    if (req.operator === 'In') allowed.set(req.key, [...(allowed.get(req.key) ?? []), ...(req.values ?? [])]);
    else if (req.operator === 'Exists') allowed.set(req.key, [ALL]);
  }
  for (const [key, value] of Object.entries(s2.matchLabels ?? {})) {
    const values = allowed.get(key);
    if (values && !values.includes(ALL) && !values.includes(value)) return true;
  }
  for (const req of s2.matchExpressions ?? []) {
    const values = allowed.get(req.key);
    switch (req.operator) {
      case 'In':
        if (values && !values.includes(ALL) && !values.some((v) => (req.values ?? []).includes(v as string))) return true;
        break;
      case 'NotIn':
        if (values && values.every((v) => (req.values ?? []).includes(v as string))) return true;
        break;
      case 'Exists':
        if (!values) return true;
        break;
      case 'DoesNotExist':
        if (values) return true;
        break;
    }
  }
  return false;
}
