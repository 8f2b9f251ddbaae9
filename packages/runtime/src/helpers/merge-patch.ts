/**
 * Computing an RFC 7386 JSON merge patch from two versions of a document: what
 * controller-runtime's `client.MergeFrom` sends (apimachinery only applies
 * merge patches, so the diff is made here).
 */
import { isJsonObject, jsonEqual } from '@operant/apimachinery';

/**
 * The JSON merge patch that turns `original` into `modified`: changed fields
 * with their new values, removed fields as `null`, nested objects diffed
 * field by field, arrays replaced whole. Empty when nothing changed.
 *
 * @example
 * ```ts
 * import { createMergePatch } from '@operant/runtime';
 *
 * createMergePatch({ a: 1, b: { c: 2, d: 3 } }, { a: 1, b: { c: 5 } }); // { b: { c: 5, d: null } }
 * ```
 */
export function createMergePatch(original: Readonly<Record<string, unknown>>, modified: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(original)) {
    if (original[key] !== undefined && modified[key] === undefined) patch[key] = null;
  }
  for (const key of Object.keys(modified)) {
    const after = modified[key];
    if (after === undefined) continue;
    const before = original[key];
    if (isJsonObject(before) && isJsonObject(after)) {
      const nested = createMergePatch(before, after);
      if (Object.keys(nested).length > 0) patch[key] = nested;
    } else if (before === undefined || !jsonEqual(before, after)) {
      patch[key] = after;
    }
  }
  return patch;
}
