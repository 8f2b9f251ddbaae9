/**
 * JSON Patch (RFC 6902, `application/json-patch+json`) as kube-apiserver applies it.
 *
 * kube uses gopkg.in/evanphx/json-patch.v4, whose behaviour differs from the RFC in ways
 * clients rely on, so this follows that library rather than a generic implementation:
 * `replace` of a missing object member adds it; negative array indices count from the
 * end; `add` without `value` sets null; `test` treats a missing member and null alike.
 * Errors carry that library's wording on `cause`; the Status itself is kube's.
 */
import { badRequest, StatusError } from '../status.js';
import { patchRejected } from './errors.js';
import { cloneJson, hasKey, isJsonObject, jsonEqual, jsonTypeWord, setKey, type JsonObject } from './json-values.js';

/** kube-apiserver's limit on the operations in one JSON patch (`maxJSONPatchOperations`). */
export const maxJsonPatchOperations = 10000;

/**
 * kube-apiserver's limit on the bytes `copy` operations may add to a document
 * (`JSONPatchMaxCopyBytes`, 3 MiB), against patches that double a document repeatedly.
 */
export const maxJsonPatchCopyBytes = 3 * 1024 * 1024;

/** One RFC 6902 operation as sent on the wire. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

/**
 * Applies a JSON patch body (the decoded request body) to `doc` and returns the patched
 * copy; `doc` and `patchBody` are left untouched.
 *
 * @throws StatusError 400 when the body is not a list of operation objects, 413 past
 *   {@link maxJsonPatchOperations} operations, and 422 (`the server rejected our request
 *   due to an error in our request`) when an operation does not apply or a `test` fails.
 */
export function applyJsonPatch(doc: unknown, patchBody: unknown): unknown {
  const ops = decodePatch(patchBody);
  if (ops.length > maxJsonPatchOperations) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${ops.length}`,
    );
  }
  const root: Root = { doc: cloneJson(doc), copiedBytes: 0 };
  if (!isContainer(root.doc)) throw patchRejected(`json: cannot unmarshal ${jsonTypeWord(root.doc)} into Go value of type jsonpatch.partialDoc`);
  for (const op of ops) {
    try {
      applyOperation(root, op);
    } catch (e) {
      if (e instanceof OpError) throw patchRejected(e.message);
      throw e;
    }
  }
  return root.doc;
}

type Container = JsonObject | unknown[];
interface Root {
  doc: unknown;
  /** Bytes added so far by `copy` operations, counted as their JSON encoding. */
  copiedBytes: number;
}
interface Location {
  con: Container;
  key: string;
}

/** An error in json-patch's own words; becomes the Status `cause`. */
class OpError extends Error {}

function decodePatch(body: unknown): JsonObject[] {
  // `null` decodes to an empty patch in Go.
  if (body === null || body === undefined) return [];
  if (!Array.isArray(body)) throw badRequest(`json: cannot unmarshal ${jsonTypeWord(body)} into Go value of type jsonpatch.Patch`);
  return body.map((op: unknown) => {
    if (op === null) return {};
    if (!isJsonObject(op)) throw badRequest(`json: cannot unmarshal ${jsonTypeWord(op)} into Go value of type jsonpatch.Operation`);
    return op;
  });
}

function isContainer(v: unknown): v is Container {
  return Array.isArray(v) || isJsonObject(v);
}

function applyOperation(root: Root, op: JsonObject): void {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add':
      return add(root, op);
    case 'remove':
      return remove(root, op);
    case 'replace':
      return replace(root, op);
    case 'move':
      return move(root, op);
    case 'test':
      return test(root, op);
    case 'copy':
      return copy(root, op);
    default:
      throw new OpError(`Unexpected kind: ${kind}`);
  }
}

function add(root: Root, op: JsonObject): void {
  const path = readField(op, 'path', () => 'add operation failed to decode path: missing value');
  const loc = findObject(root, path);
  if (!loc) throw new OpError(`add operation does not apply: doc is missing path: "${path}": missing value`);
  wrap(() => containerAdd(loc.con, loc.key, valueOf(op)), (m) => `error in add for path: '${path}': ${m}`);
}

function remove(root: Root, op: JsonObject): void {
  const path = readField(op, 'path', () => 'remove operation failed to decode path: missing value');
  const loc = findObject(root, path);
  if (!loc) throw new OpError(`remove operation does not apply: doc is missing path: "${path}": missing value`);
  wrap(() => containerRemove(loc.con, loc.key), (m) => `error in remove for path: '${path}': ${m}`);
}

function replace(root: Root, op: JsonObject): void {
  const path = readField(op, 'path', (m) => `replace operation failed to decode path: ${m}`);
  if (path === '') {
    // Go formats a nil error with %w here, hence the odd tail.
    if (!isContainer(op.value)) throw new OpError('replace operation value must be object or array: %!w(<nil>)');
    root.doc = cloneJson(op.value);
    return;
  }
  const loc = findObject(root, path);
  if (!loc) throw new OpError(`replace operation does not apply: doc is missing path: ${path}: missing value`);
  // An object has every key as far as this check goes, so replacing a missing member adds it.
  wrap(() => containerGet(loc.con, loc.key), () => `replace operation does not apply: doc is missing key: ${path}: missing value`);
  containerSet(loc.con, loc.key, valueOf(op));
}

function move(root: Root, op: JsonObject): void {
  const from = readField(op, 'from', (m) => `move operation failed to decode from: ${m}`);
  const src = findObject(root, from);
  if (!src) throw new OpError(`move operation does not apply: doc is missing from path: ${from}: missing value`);
  const val = wrap(() => containerGet(src.con, src.key), (m) => `error in move for path: '${src.key}': ${m}`);
  wrap(() => containerRemove(src.con, src.key), (m) => `error in move for path: '${src.key}': ${m}`);
  const path = readField(op, 'path', (m) => `move operation failed to decode path: ${m}`);
  const dst = findObject(root, path);
  if (!dst) throw new OpError(`move operation does not apply: doc is missing destination path: ${path}: missing value`);
  wrap(() => containerAdd(dst.con, dst.key, val ?? null), (m) => `error in move for path: '${path}': ${m}`);
}

function test(root: Root, op: JsonObject): void {
  const path = readField(op, 'path', (m) => `test operation failed to decode path: ${m}`);
  const failed = new OpError(`testing value ${path} failed: test failed`);
  if (path === '') {
    if (!hasKey(op, 'value') || !jsonEqual(root.doc, op.value)) throw failed;
    return;
  }
  const loc = findObject(root, path);
  if (!loc) throw new OpError(`test operation does not apply: is missing path: ${path}: missing value`);
  const val = wrap(() => containerGet(loc.con, loc.key), (m) => `error in test for path: '${path}': ${m}`);
  const want = hasKey(op, 'value') ? op.value : undefined;
  // A missing member, a null member, an absent `value` and `value: null` are all Go's nil.
  const valIsNil = val === undefined || val === null;
  const wantIsNil = want === undefined || want === null;
  if (valIsNil && wantIsNil) return;
  if (valIsNil || wantIsNil || !jsonEqual(val, want)) throw failed;
}

function copy(root: Root, op: JsonObject): void {
  const from = readField(op, 'from', (m) => `copy operation failed to decode from: ${m}`);
  const src = findObject(root, from);
  if (!src) throw new OpError(`copy operation does not apply: doc is missing from path: ${from}: missing value`);
  const val = wrap(() => containerGet(src.con, src.key), (m) => `error in copy for from: '${from}': ${m}`);
  const path = readField(op, 'path', () => 'copy operation failed to decode path: missing value');
  const dst = findObject(root, path);
  if (!dst) throw new OpError(`copy operation does not apply: doc is missing destination path: ${path}: missing value`);
  const copied = val ?? null;
  root.copiedBytes += Buffer.byteLength(JSON.stringify(copied));
  if (root.copiedBytes > maxJsonPatchCopyBytes) {
    throw new OpError(
      `Unable to complete the copy, the accumulated size increase of copy is ${root.copiedBytes}, exceeding the limit ${maxJsonPatchCopyBytes}`,
    );
  }
  wrap(() => containerAdd(dst.con, dst.key, cloneJson(copied)), (m) => `error while adding value during copy: ${m}`);
}

/** Reads `path` or `from`; `describe` turns the decoding error into the operation's message. */
function readField(op: JsonObject, field: 'path' | 'from', describe: (m: string) => string): string {
  const v = op[field];
  if (v === undefined || v === null) {
    throw new OpError(describe(field === 'path' ? 'operation missing path field: missing value' : 'operation, missing from field: missing value'));
  }
  if (typeof v !== 'string') throw new OpError(describe(`json: cannot unmarshal ${jsonTypeWord(v)} into Go value of type string`));
  return v;
}

function valueOf(op: JsonObject): unknown {
  return op.value === undefined ? null : cloneJson(op.value);
}

/** Runs `fn`, rewording an OpError the way the calling operation wraps it. */
function wrap<T>(fn: () => T, describe: (m: string) => string): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof OpError) throw new OpError(describe(e.message));
    throw e;
  }
}

/**
 * Walks every path segment but the last. Like the Go library, the part before the first
 * `/` is ignored and a path without any `/` finds nothing.
 */
function findObject(root: Root, path: string): Location | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let doc = root.doc as Container;
  for (const part of split.slice(1, -1)) {
    let next: unknown;
    try {
      next = containerGet(doc, decodeKey(part));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    doc = next;
  }
  return { con: doc, key: decodeKey(split[split.length - 1]) };
}

/** RFC 6901 unescaping: `~1` is `/`, `~0` is `~`. */
function decodeKey(k: string): string {
  return k.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

function containerGet(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return hasKey(con, key) ? con[key] : undefined;
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -con.length) throw invalidIndex(idx);
    idx += con.length;
  }
  if (idx >= con.length) throw invalidIndex(idx);
  return con[idx];
}

function containerSet(con: Container, key: string, val: unknown): void {
  if (!Array.isArray(con)) {
    setKey(con, key, val);
    return;
  }
  let idx = atoi(key);
  if (idx < 0) idx += con.length;
  con[idx] = val;
}

function containerAdd(con: Container, key: string, val: unknown): void {
  if (!Array.isArray(con)) {
    setKey(con, key, val);
    return;
  }
  if (key === '-') {
    con.push(val);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (e) {
    throw new OpError(`value was not a proper array index: '${key}': ${(e as Error).message}`);
  }
  const size = con.length + 1;
  if (idx >= size) throw invalidIndex(idx);
  if (idx < 0) {
    if (idx < -size) throw invalidIndex(idx);
    idx += size;
  }
  con.splice(idx, 0, val);
}

function containerRemove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!hasKey(con, key)) throw new OpError(`Unable to remove nonexistent key: ${key}: missing value`);
    delete con[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= con.length) throw invalidIndex(idx);
  if (idx < 0) {
    if (idx < -con.length) throw invalidIndex(idx);
    idx += con.length;
  }
  con.splice(idx, 1);
}

function invalidIndex(idx: number): OpError {
  return new OpError(`Unable to access invalid index: ${idx}: invalid index referenced`);
}

/** Go's `strconv.Atoi`, with its error wording. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new OpError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n > 2n ** 63n - 1n || n < -(2n ** 63n)) throw new OpError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(n);
}
