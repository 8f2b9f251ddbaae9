/**
 * Fields a JSON body names twice in one object. JSON.parse keeps the last
 * without a word; kube (1.27+) reports each, as sigs.k8s.io/json's strict
 * decoding does: a `duplicate field "spec.replicas"` warning with the default
 * fieldValidation=Warn, an error with Strict. The decoded body is tagged here,
 * and the registry reads the tag when it decodes the object for its kind.
 * apimachinery's scanner finds them.
 */
import { duplicateKeys, formatFieldPath } from '@operant/apimachinery/json';

/** The decoded bodies that named a field twice, and the paths of those fields. */
const duplicates = new WeakMap<object, string[]>();

/** The duplicate field paths recorded for a decoded body (none: an empty list). */
export function duplicateFieldsOf(body: object): string[] {
  return duplicates.get(body) ?? [];
}

/** Records the duplicate fields of `text` for `decoded`, its parse; cheap when the text has none. */
export function tagDuplicateFields(decoded: unknown, text: string): void {
  if (decoded === null || typeof decoded !== 'object') return;
  const found = duplicateFields(text);
  if (found.length > 0) duplicates.set(decoded, found);
}

/**
 * The paths (`metadata.name`, `spec.containers[0].image`) of the keys `text`
 * repeats within one object, in order of appearance. `text` must be valid JSON.
 */
export function duplicateFields(text: string): string[] {
  return duplicateKeys(text).map((path) => formatFieldPath(path));
}
