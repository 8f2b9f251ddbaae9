/**
 * JSON Merge Patch (RFC 7386, `application/merge-patch+json`) as kube-apiserver applies it
 * with evanphx/json-patch's `MergePatch`: objects merge recursively, `null` deletes a
 * member, anything else (arrays included) replaces. Values that arrive new have their
 * null members dropped, also inside objects in arrays; null array elements stay.
 */
import { badRequest } from '../status.js';
import { cloneJson, hasKey, isJsonObject, setKey, type JsonObject } from './json-values.js';

/**
 * Applies a merge patch (the decoded request body) to `doc` and returns the patched copy;
 * neither argument is modified. A patch that is an array replaces the whole document (kube
 * then fails to decode it as an object; that check is the caller's).
 *
 * @throws StatusError 400 `Invalid JSON Patch` when the patch is null or a scalar.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (Array.isArray(patch)) return pruneArrayNulls(cloneJson(patch));
  if (!isJsonObject(patch)) throw badRequest('Invalid JSON Patch');
  const p = cloneJson(patch);
  if (!isJsonObject(doc)) return pruneObjectNulls(p);
  const out = cloneJson(doc);
  mergeObjects(out, p);
  return out;
}

function mergeObjects(doc: JsonObject, patch: JsonObject): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = hasKey(doc, k) ? doc[k] : null;
    setKey(doc, k, cur === null ? pruneNulls(v) : merge(cur, v));
  }
}

function merge(cur: unknown, patch: unknown): unknown {
  if (!isJsonObject(cur)) return pruneNulls(patch);
  // An array or scalar replaces an object as given, without pruning (as in Go).
  if (!isJsonObject(patch)) return patch;
  mergeObjects(cur, patch);
  return cur;
}

function pruneNulls(v: unknown): unknown {
  if (isJsonObject(v)) return pruneObjectNulls(v);
  if (Array.isArray(v)) return pruneArrayNulls(v);
  return v;
}

function pruneObjectNulls(o: JsonObject): JsonObject {
  for (const [k, v] of Object.entries(o)) {
    if (v === null) delete o[k];
    else pruneNulls(v);
  }
  return o;
}

function pruneArrayNulls(a: unknown[]): unknown[] {
  for (const v of a) if (v !== null) pruneNulls(v);
  return a;
}
