/**
 * matchLabelKeys and mismatchLabelKeys of pod (anti-)affinity terms, as kube
 * 1.32 serves them (feature MatchLabelKeysInPodAffinity, beta and on by
 * default since 1.31):
 *
 * - at a pod's create, each term with a labelSelector gets one requirement per
 *   key the pod has a label for: `key In (value)` for matchLabelKeys,
 *   `key NotIn (value)` for mismatchLabelKeys, appended to its
 *   matchExpressions (pkg/registry/core/pod/strategy.go's mutatePodAffinity),
 *   so that the scheduler and everyone else read a plain selector;
 * - validation (validateMatchLabelKeysAndMismatchLabelKeys) in kube's words and
 *   paths. It runs on the merged selector, so a key of matchLabelKeys is
 *   refused only when the selector names it besides the requirement merged
 *   for it; kube reports that at the term's path with the key's index
 *   appended (`...[0][0]`, not `...matchLabelKeys[0]`), and so does this.
 */
import { fieldErrors, isQualifiedName, type FieldError, type KubeObject } from '@operant/apimachinery';
import { asObj, asObject, objectsAt, type Json } from './defaults/json-fields.js';

const kinds = ['podAffinity', 'podAntiAffinity'] as const;

/** Each (anti-)affinity term of a pod spec, required and preferred. */
function* affinityTerms(spec: Json): Generator<Json> {
  const affinity = asObj(spec.affinity);
  for (const kind of kinds) {
    const terms = asObj(affinity[kind]);
    for (const required of objectsAt(terms, 'requiredDuringSchedulingIgnoredDuringExecution')) yield required;
    for (const preferred of objectsAt(terms, 'preferredDuringSchedulingIgnoredDuringExecution')) {
      const term = asObject(preferred.podAffinityTerm);
      if (term) yield term;
    }
  }
}

const keysOf = (v: unknown): string[] => (Array.isArray(v) ? v.map((k) => String(k)) : []);

/** Merges each affinity term's matchLabelKeys and mismatchLabelKeys into its labelSelector, from the pod's labels (a new pod only). */
export function mergeAffinityLabelKeys(pod: KubeObject): void {
  const spec = asObject(pod.spec);
  if (!spec || !asObject(spec.affinity)) return;
  const labels = asObj(pod.metadata.labels) as Record<string, unknown>;
  for (const term of affinityTerms(spec)) {
    const match = keysOf(term.matchLabelKeys);
    const mismatch = keysOf(term.mismatchLabelKeys);
    // A term without a selector selects nothing; it is left as it is (and validation refuses the keys).
    const selector = asObject(term.labelSelector);
    if ((match.length === 0 && mismatch.length === 0) || !selector) continue;
    const added: Json[] = [];
    for (const [keys, operator] of [[match, 'In'], [mismatch, 'NotIn']] as const) {
      for (const key of keys) {
        if (Object.hasOwn(labels, key)) added.push({ key, operator, values: [String(labels[key])] });
      }
    }
    if (added.length > 0) selector.matchExpressions = [...(Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []), ...added];
  }
}

/** Every label key valid, and the keys given a selector to merge into. */
function validateLabelKeys(keys: string[], selector: Json | undefined, path: string): FieldError[] {
  if (keys.length === 0) return [];
  if (!selector) return [fieldErrors.forbidden(path, 'must not be specified when labelSelector is not set')];
  const errs: FieldError[] = [];
  keys.forEach((key, i) => {
    for (const msg of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${path}[${i}]`, key, msg));
  });
  return errs;
}

/** kube's validateMatchLabelKeysAndMismatchLabelKeys for one affinity term found at `at`. */
export function validateTermLabelKeys(term: Json, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const match = keysOf(term.matchLabelKeys);
  const mismatch = keysOf(term.mismatchLabelKeys);
  const selector = asObject(term.labelSelector);
  errs.push(...validateLabelKeys(match, selector, `${at}.matchLabelKeys`));
  errs.push(...validateLabelKeys(mismatch, selector, `${at}.mismatchLabelKeys`));
  if (selector) {
    // The last index of each key, as kube's map of them keeps it.
    const indexOf = new Map(match.map((key, i) => [key, i]));
    const seen = new Set(Object.keys(asObj(selector.matchLabels)));
    for (const expression of objectsAt(selector, 'matchExpressions')) {
      const key = String(expression.key ?? '');
      const i = indexOf.get(key);
      if (i !== undefined && seen.has(key)) errs.push(fieldErrors.invalid(`${at}[${i}]`, key, 'exists in both matchLabelKeys and labelSelector'));
      seen.add(key);
    }
  }
  const mismatched = new Set(mismatch);
  match.forEach((key, i) => {
    if (mismatched.has(key)) errs.push(fieldErrors.invalid(`${at}.matchLabelKeys[${i}]`, key, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}
