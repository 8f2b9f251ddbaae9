/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the server half of
 * k8s.io/apimachinery/pkg/util/strategicpatch (`StrategicMergeMapPatch`) as
 * kube-apiserver runs it for `kubectl apply` (client-side) and `kubectl patch`.
 *
 * Patch metadata comes from the OpenAPI schema: a list merges by
 * `x-kubernetes-patch-merge-key` when its `x-kubernetes-patch-strategy` contains `merge`,
 * and is replaced otherwise; a map with strategy `replace` is replaced. Fields the
 * schema does not describe (unknown, or under `x-kubernetes-preserve-unknown-fields`)
 * carry no metadata, so they behave like a JSON merge patch.
 *
 * Directives: `$patch: replace|delete` on maps and list items (`$patch: merge` is an
 * error, as in kube), `$retainKeys`, `$setElementOrder/<field>`,
 * `$deleteFromPrimitiveList/<field>`. Merged lists are ordered as strategicpatch orders
 * them: the patch's items in `$setElementOrder` order (else the patch's own), the live
 * object's other items in their live order, a live item going ahead of a patch item only
 * when both are in the live list and it comes first there (so new items land before the
 * live items that follow them).
 *
 * Where kube takes a patch value whole (a member new to the object, a replaced list),
 * kube's typed decoding later drops leftover directive keys and null members; objects
 * here are stored as they are, so that cleanup happens in this module.
 */
import type { OpenApiSchema, SchemaResolver } from '../openapi-schema.js';
import { resolveSchema } from '../openapi-schema.js';
import { badRequest, type StatusError } from '../status.js';
import { patchRejected, unconvertedError } from './errors.js';
import { cloneJson, goFormat, goString, goTypeName, hasKey, isJsonObject, jsonTypeWord, setKey, type JsonObject } from './json-values.js';

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

/**
 * Applies a strategic merge patch (the decoded request body) to `original` and returns
 * the patched copy; neither argument is modified.
 *
 * @param schema the schema of the whole object, e.g. `{ $ref: '#/components/schemas/io.k8s.api.core.v1.Pod' }`.
 * @param resolve resolves the `$ref`s found in `schema`.
 * @throws StatusError with kube's code for each failure: 400 for a malformed body or
 *   directive (`invalid patch format of retainKeys`, ...), 422 for lists of lists, and
 *   500 without a reason for the rest (`map: map[image:nginx] does not contain declared
 *   merge key: name`, `unknown patch type: ...`), which kube passes through unconverted.
 */
export function applyStrategicMergePatch(
  original: Record<string, unknown>,
  patch: unknown,
  schema: OpenApiSchema,
  resolve: SchemaResolver,
): Record<string, unknown> {
  // Go decodes `null` into an empty patch map.
  if (patch === null || patch === undefined) return cloneJson(original);
  if (!isJsonObject(patch)) {
    throw badRequest(`json: cannot unmarshal ${jsonTypeWord(patch)} into Go value of type map[string]interface {}`);
  }
  try {
    return mergeMap(cloneJson(original), cloneJson(patch), new PatchSchema(schema, resolve));
  } catch (e) {
    if (e instanceof MergeError) throw e.toStatus();
    throw e;
  }
}

// ---------------------------------------------------------------------------------------
// Errors, worded and classified as kube's interpretStrategicMergePatchError sees them.

type ErrorClass = 'badRequest' | 'rejected' | 'unconverted';

class MergeError extends Error {
  constructor(
    message: string,
    readonly errorClass: ErrorClass = 'unconverted',
  ) {
    super(message);
  }
  toStatus(): StatusError {
    if (this.errorClass === 'badRequest') return badRequest(this.message);
    if (this.errorClass === 'rejected') return patchRejected(this.message);
    return unconvertedError(this.message);
  }
}

const errNoListOfLists = () => new MergeError('lists of lists are not supported', 'rejected');
const errBadPatchFormatForPrimitiveList = () => new MergeError('invalid patch format of primitive list', 'badRequest');
const errBadPatchFormatForRetainKeys = () => new MergeError('invalid patch format of retainKeys', 'badRequest');
const errBadPatchFormatForSetElementOrderList = () => new MergeError('invalid patch format of setElementOrder list', 'badRequest');
const errNoMergeKey = (m: JsonObject, key: string) => new MergeError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
const errBadArgType = (expected: string, actual: unknown) => new MergeError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
const errBadPatchType = (t: unknown, m: JsonObject) => new MergeError(`unknown patch type: ${goString(t)} in map: ${goFormat(m)}`);

// ---------------------------------------------------------------------------------------
// Patch metadata from the OpenAPI schema (the role of strategicpatch's LookupPatchMeta).

interface PatchMeta {
  strategies: string[];
  mergeKey: string;
}

/** A position in the schema; `schema` is undefined where nothing is known. */
class PatchSchema {
  private readonly schema: OpenApiSchema | undefined;
  constructor(
    schema: OpenApiSchema | undefined,
    private readonly resolve: SchemaResolver,
  ) {
    this.schema = resolveSchema(schema, resolve);
  }

  /** The schema and metadata of member `key` whose value is a map. */
  lookupForStruct(key: string): [PatchSchema, PatchMeta] {
    const field = this.field(key);
    return [new PatchSchema(field, this.resolve), this.meta(field)];
  }

  /** The element schema and the list metadata of member `key` whose value is a list. */
  lookupForSlice(key: string): [PatchSchema, PatchMeta] {
    const field = this.field(key);
    return [new PatchSchema(resolveSchema(field, this.resolve)?.items, this.resolve), this.meta(field)];
  }

  /** strategicpatch names the element type in one error; built-in elements are structs. */
  name(): string {
    return this.schema?.additionalProperties !== undefined && !this.schema.properties ? 'map' : 'struct';
  }

  private field(key: string): OpenApiSchema | undefined {
    const s = this.schema;
    if (!s) return undefined;
    if (s.properties && hasKey(s.properties, key)) return s.properties[key];
    return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  }

  /** Reads the extensions off the member's schema, through `allOf`/`$ref` wrappers. */
  private meta(field: OpenApiSchema | undefined): PatchMeta {
    let strategy: string | undefined;
    let mergeKey: string | undefined;
    let s = field;
    for (let depth = 0; s && depth < 32; depth++) {
      strategy ??= s['x-kubernetes-patch-strategy'];
      mergeKey ??= s['x-kubernetes-patch-merge-key'];
      if (s.$ref) s = this.resolve(s.$ref);
      else if (s.allOf?.length === 1) s = s.allOf[0];
      else break;
    }
    const strategies = strategy ? strategy.split(',').map((x) => x.trim()).filter(Boolean) : [];
    return { strategies, mergeKey: mergeKey ?? '' };
  }
}

/** Splits `retainKeys` from the other strategy (`merge` or `replace`). */
function patchStrategy(strategies: string[]): string {
  if (strategies.length <= 1) return strategies[0] === 'retainKeys' ? '' : (strategies[0] ?? '');
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return strategies[1];
    if (strategies[1] === 'retainKeys') return strategies[0];
  }
  throw new MergeError(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

// ---------------------------------------------------------------------------------------
// Maps.

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (hasKey(patch, directiveMarker)) return mapDirective(patch[directiveMarker], patch);
  applyRetainKeys(original, patch);
  // Lists named by $setElementOrder are merged and ordered first, and leave the patch.
  mergeOrderedLists(original, patch, schema);

  for (const [patchKey, patchV] of Object.entries(patch)) {
    let k = patchKey;
    const isDeleteList = patchKey.startsWith(deleteFromPrimitiveListPrefix);
    if (isDeleteList) k = extractKey(patchKey, deleteFromPrimitiveListPrefix);

    if (patchV === null) {
      delete original[k];
      continue;
    }
    const originalV = hasKey(original, k) ? original[k] : undefined;
    // A deletion list never creates the list it would delete from.
    if (originalV === undefined || jsonKind(originalV) !== jsonKind(patchV)) {
      if (!isDeleteList) setWhole(original, k, patchV);
      continue;
    }
    if (isJsonObject(originalV)) {
      const [sub, meta] = schema.lookupForStruct(k);
      if (patchStrategy(meta.strategies) === 'replace') setWhole(original, k, patchV);
      else setKey(original, k, mergeMap(originalV, patchV as JsonObject, sub));
    } else if (Array.isArray(originalV)) {
      const [elem, meta] = schema.lookupForSlice(k);
      setKey(original, k, mergeSliceHandler(originalV, patchV as unknown[], elem, patchStrategy(meta.strategies), meta.mergeKey, isDeleteList));
    } else {
      setKey(original, k, patchV);
    }
  }
  return original;
}

/** `$patch` on a map: `replace` keeps just the patch, `delete` empties the map. */
function mapDirective(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === 'replace') {
    delete patch[directiveMarker];
    return whole(patch).value as JsonObject;
  }
  if (directive === 'delete') return {};
  throw errBadPatchType(directive, patch);
}

/** Clears members of `original` missing from `$retainKeys`, after checking the patch only sets listed keys. */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasKey(patch, retainKeysDirective)) return;
  const list = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(list)) throw errBadPatchFormatForRetainKeys();
  const retained = new Set<unknown>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
    if (!retained.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!retained.has(k)) delete original[k];
}

/** Handles every `$setElementOrder/<field>` with its list: merge, then order (strategicpatch's mergePatchIntoOriginal). */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const field = extractKey(key, setElementOrderPrefix);

    const foundOriginal = hasKey(original, field);
    const foundPatch = hasKey(patch, field);
    const originalList = foundOriginal ? asList(original[field]) : [];
    const patchList = foundPatch ? asList(patch[field]) : [];
    const [elem, meta] = schema.lookupForSlice(field);
    const strategy = patchStrategy(meta.strategies);
    const mergeKey = meta.mergeKey;
    validatePatchWithSetOrderList(patchList, order, mergeKey);

    let merged: unknown[];
    // A list new to the object is cleaned once ordered, as mergeSlice does with new items.
    const isNew = foundPatch && !foundOriginal;
    if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalList, patchList, elem, strategy, mergeKey, false);
    else if (isNew) merged = patchList.filter((v) => !(isJsonObject(v) && hasKey(v, directiveMarker)));
    else if (foundOriginal) merged = originalList;
    else continue;

    const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, order, mergeKey) : partitionPrimitives(merged, order);
    const kind = sliceElementKind(originalList, patchList);
    const ordered = normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, kind);
    setKey(original, field, isNew ? whole(ordered).value : ordered);
    delete patch[field];
  }
}

function asList(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw errBadArgType('[]interface {}', v);
  return v;
}

/** The field name after `<prefix>/`. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === deleteFromPrimitiveListPrefix) throw errBadPatchFormatForPrimitiveList();
    throw errBadPatchFormatForSetElementOrderList();
  }
  return s.slice(slash + 1);
}

/**
 * Checks that the patch list's items appear in `$setElementOrder` in the same relative
 * order (deletions and other directive items aside).
 */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? splitDeletions(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isJsonObject(items[p]) && hasKey(items[p] as JsonObject, directiveMarker)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(items[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw new MergeError(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(order)}\n`,
    );
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return scalarEqual(left, right);
  if (!isJsonObject(left)) throw errBadArgType('map[string]interface {}', left);
  if (!isJsonObject(right)) throw errBadArgType('map[string]interface {}', right);
  if (!hasKey(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return scalarEqual(left[mergeKey], right[mergeKey]);
}

// ---------------------------------------------------------------------------------------
// Lists.

type ElementKind = 'map' | 'string' | 'number' | 'bool' | 'nil';

function mergeSliceHandler(
  original: unknown[],
  patch: unknown[],
  elem: PatchSchema,
  strategy: string,
  mergeKey: string,
  isDeleteList: boolean,
): unknown[] {
  // A deletion list works whatever the field's strategy.
  if (strategy === 'merge' || isDeleteList) return mergeSlice(original, patch, elem, mergeKey, isDeleteList);
  return whole(patch).value as unknown[];
}

function mergeSlice(original: unknown[], patch: unknown[], elem: PatchSchema, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.some((d) => scalarEqual(d, v)));
    const merged = dedupeScalars([...original, ...patch]);
    const [patchItems, serverOnly] = partitionPrimitives(merged, patch);
    return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, kind);
  }
  if (!mergeKey) throw new MergeError(`cannot merge lists without merge key for ${elem.name()}`);

  // In Go the merged list starts as a slice over `original`'s storage: deleting an item
  // shifts the rest left inside that array and appending refills the freed slots. The
  // caller's `original` sees those writes, and mergeOrderedLists orders by it afterwards,
  // so kube's resulting order depends on them; `original` is updated the same way here.
  const n = original.length;
  let view = [...original];
  const plain: JsonObject[] = [];
  let replace = false;
  for (const v of patch as JsonObject[]) {
    if (!hasKey(v, directiveMarker)) {
      plain.push(v);
      continue;
    }
    const directive = v[directiveMarker];
    if (directive === 'delete') {
      if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
      for (let i = findByMergeKey(view, mergeKey, v[mergeKey]); i >= 0; i = findByMergeKey(view, mergeKey, v[mergeKey])) {
        original.copyWithin(i, i + 1, view.length);
        view.splice(i, 1);
      }
    } else if (directive === 'replace') {
      // Keep going: the other directive items still have to be valid.
      replace = true;
    } else if (directive === 'merge') {
      throw new MergeError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, v);
    }
  }

  // Items taken from the patch as they are, cleaned once their position is known.
  const fromPatch = new Set<unknown>();
  let items: JsonObject[] = plain;
  if (replace) {
    view = [...plain];
    items = [];
    for (const v of plain) fromPatch.add(v);
  }
  const server = [...view];
  for (const item of items) {
    if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const i = findByMergeKey(view, mergeKey, item[mergeKey]);
    if (i >= 0) {
      view[i] = mergeMap(view[i] as JsonObject, item, elem);
    } else {
      if (!replace && view.length < n) original[view.length] = item;
      view.push(item);
      fromPatch.add(item);
    }
  }

  const [patchItems, serverOnly] = partitionMaps(view, items, mergeKey);
  const ordered = normalizeElementOrder(patchItems, serverOnly, items, server, mergeKey, kind);
  if (fromPatch.size === 0) return ordered;
  return ordered.flatMap((v) => {
    if (!fromPatch.has(v)) return [v];
    const w = whole(v);
    return w.keep ? [w.value] : [];
  });
}

function findByMergeKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isJsonObject(v)) throw new MergeError(`value for key ${i} is not a map.`);
    if (hasKey(v, mergeKey) && scalarEqual(v[mergeKey], value)) return i;
  }
  return -1;
}

/** The one kind shared by every element of the lists (strategicpatch's sliceElementType). */
function sliceElementKind(...lists: unknown[][]): ElementKind {
  let kind: ElementKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      if (Array.isArray(v)) {
        if (kind === undefined) throw errNoListOfLists();
        throw new MergeError(`list element types are not identical: ${goFormat(lists)}`);
      }
      const k = jsonKind(v) as ElementKind;
      if (kind === undefined) kind = k;
      else if (kind !== k) throw new MergeError(`list element types are not identical: ${goFormat(lists)}`);
    }
  }
  if (kind === undefined) throw new MergeError('no elements in any of the given slices');
  return kind;
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isJsonObject(v)) return 'map';
  if (v === null || v === undefined) return 'nil';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

/** Go's `==` on decoded JSON scalars; maps and lists never match (they are uncomparable in Go). */
function scalarEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' && a !== null) return false;
  return a === b;
}

function dedupeScalars(list: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const v of list) if (!out.some((x) => scalarEqual(x, v))) out.push(v);
  return out;
}

// ---------------------------------------------------------------------------------------
// Ordering.

function partitionPrimitives(list: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) (by.some((b) => scalarEqual(b, v)) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

function partitionMaps(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findByMergeKey(by, mergeKey, v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * Sorts the patch items by `patchOrder` and the server-only items by `serverOrder`, then
 * interleaves them: a server-only item goes before a patch item only when both are in
 * `serverOrder` and it comes first there. So an item new to the list goes ahead of the
 * server-only items that follow it.
 */
function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    const li = indexIn(serverOrder, left[i], mergeKey, kind);
    const ri = indexIn(serverOrder, right[j], mergeKey, kind);
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
    else out.push(right[j++]);
  }
  return out.concat(left.slice(i), right.slice(j));
}

/** Stable sort of `toSort` by position in `order`; `$patch: delete` items go last. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let items = toSort;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const list of [toSort, order]) {
      for (const v of list) {
        if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
        if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
      }
    }
    [items, deletions] = splitDeletions(toSort);
  }
  const keyed = items.map((v, pos) => ({ v, pos, at: indexIn(order, v, mergeKey, kind) }));
  keyed.sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0) || a.pos - b.pos);
  return keyed.map((x) => x.v).concat(deletions);
}

/** Splits `$patch: delete` items from the rest, keeping order. */
function splitDeletions(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const deletions: unknown[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw errBadArgType('map[string]interface {}', v);
    (v[directiveMarker] === 'delete' ? deletions : keep).push(v);
  }
  return [keep, deletions];
}

/** Position of `v` in `list`, comparing merge key values for maps and the items themselves otherwise. */
function indexIn(list: unknown[], v: unknown, mergeKey: string, kind: ElementKind): number {
  const val = (x: unknown): unknown => (kind === 'map' ? (isJsonObject(x) ? x[mergeKey] : null) : x);
  const want = val(v);
  return list.findIndex((x) => scalarEqual(val(x), want));
}

// ---------------------------------------------------------------------------------------
// Values taken whole from the patch.

/**
 * Cleans a value taken whole from the patch: a map carrying `$patch` is dropped (kube's
 * removeDirectives), null members and leftover directive keys are removed.
 */
function whole(v: unknown): { keep: boolean; value: unknown } {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) {
      const w = whole(x);
      if (w.keep) out.push(w.value);
    }
    return { keep: true, value: out };
  }
  if (isJsonObject(v)) {
    if (hasKey(v, directiveMarker)) return { keep: false, value: undefined };
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null || isDirectiveKey(k)) continue;
      const w = whole(x);
      if (w.keep) setKey(out, k, w.value);
    }
    return { keep: true, value: out };
  }
  return { keep: true, value: v };
}

function setWhole(target: JsonObject, key: string, v: unknown): void {
  const w = whole(v);
  if (w.keep) setKey(target, key, w.value);
  else delete target[key];
}

function isDirectiveKey(k: string): boolean {
  return k === retainKeysDirective || k.startsWith(setElementOrderPrefix) || k.startsWith(deleteFromPrimitiveListPrefix);
}
