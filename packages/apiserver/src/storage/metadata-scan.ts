/**
 * A few fields of an object's metadata read straight from its stored JSON
 * text, without parsing the rest: the garbage collector's graph needs only
 * each object's uid, owner references, finalizers and deletion timestamp, and
 * after a restart on 100,000 objects, parsing every one of them for that
 * (their managedFields trees above all) cost seconds of CPU and a heap several
 * times the size of the texts.
 *
 * The scan walks the top-level object and its `metadata` by the JSON grammar
 * (strings skipped whole, so nothing inside a string or at another depth is
 * taken for a key); only the values wanted are parsed, each on its own. A
 * text it does not expect (not an object, or whitespace between tokens, which
 * the store's own encoding never writes) is parsed whole instead, so the
 * answer is the same either way.
 */
import type { ObjectMeta } from '@operant/apimachinery';
import type { Versioned } from './types.js';

/** The metadata fields the scan reads. */
export type OwnershipMeta = Pick<ObjectMeta, 'uid' | 'ownerReferences' | 'finalizers' | 'deletionTimestamp'>;

const wanted = new Set(['"uid"', '"ownerReferences"', '"finalizers"', '"deletionTimestamp"']);

/** The ownership fields of a stored object's metadata: scanned from its JSON while it is not parsed, else read from it. */
export function ownershipOf(v: Versioned): OwnershipMeta {
  const raw = v.unparsed;
  if (!raw) return v.value.metadata;
  try {
    return scanOwnershipMeta(raw.jsonText());
  } catch {
    // Text that is not JSON (a damaged data dir): parsing the value says so, naming the object.
    return v.value.metadata;
  }
}

/** The uid, ownerReferences, finalizers and deletionTimestamp of the object `json` encodes (each absent when the object has none). */
export function scanOwnershipMeta(json: string): OwnershipMeta {
  return scan(json) ?? pick((JSON.parse(json) as { metadata?: ObjectMeta }).metadata);
}

function pick(meta: ObjectMeta | undefined): OwnershipMeta {
  const out: OwnershipMeta = {};
  if (!meta) return out;
  if (meta.uid !== undefined) out.uid = meta.uid;
  if (meta.ownerReferences !== undefined) out.ownerReferences = meta.ownerReferences;
  if (meta.finalizers !== undefined) out.finalizers = meta.finalizers;
  if (meta.deletionTimestamp !== undefined) out.deletionTimestamp = meta.deletionTimestamp;
  return out;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** The scan's answer, or undefined when the text is not laid out as expected. */
function scan(s: string): OwnershipMeta | undefined {
  if (s.charCodeAt(0) !== OPEN_BRACE) return undefined;
  let i = 1;
  if (s.charCodeAt(i) === CLOSE_BRACE) return {};
  for (;;) {
    // A top-level member: "key":value
    if (s.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(s, i);
    if (keyEnd < 0 || s.charCodeAt(keyEnd) !== COLON) return undefined;
    const isMetadata = keyEnd - i === 10 && s.startsWith('"metadata"', i);
    i = keyEnd + 1;
    if (isMetadata) return s.charCodeAt(i) === OPEN_BRACE ? scanMetadata(s, i) : undefined;
    i = skipValue(s, i);
    if (i < 0) return undefined;
    const c = s.charCodeAt(i);
    if (c === CLOSE_BRACE) return {};
    if (c !== COMMA) return undefined;
    i++;
  }
}

/** Reads the wanted members of the metadata object that starts at `i`. */
function scanMetadata(s: string, i: number): OwnershipMeta | undefined {
  const out: Record<string, unknown> = {};
  i++;
  if (s.charCodeAt(i) === CLOSE_BRACE) return out;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(s, i);
    if (keyEnd < 0 || s.charCodeAt(keyEnd) !== COLON) return undefined;
    const key = keyEnd - i <= 19 ? s.slice(i, keyEnd) : '';
    const valueStart = keyEnd + 1;
    i = skipValue(s, valueStart);
    if (i < 0) return undefined;
    if (wanted.has(key)) out[key.slice(1, -1)] = JSON.parse(s.slice(valueStart, i));
    const c = s.charCodeAt(i);
    if (c === CLOSE_BRACE) return out as OwnershipMeta;
    if (c !== COMMA) return undefined;
    i++;
  }
}

/** The fields to read: a tree of keys, `true` where the value is taken whole. */
export type PathTree = Map<string, PathTree | true>;

/** The tree of dotted `paths` (`metadata.labels`, `spec.nodeName`), for scanPaths. */
export function pathTree(paths: readonly string[]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    let node = root;
    const keys = path.split('.').map((key) => JSON.stringify(key));
    for (let i = 0; i < keys.length; i++) {
      if (i === keys.length - 1) {
        node.set(keys[i], true);
        break;
      }
      let next = node.get(keys[i]);
      // A value taken whole holds this path too.
      if (next === true) break;
      if (!next) node.set(keys[i], (next = new Map()));
      node = next;
    }
  }
  return root;
}

/**
 * The object `json` encodes, with only the fields of `tree` (those it has):
 * what a selector reads, without parsing the rest. Undefined when the text is
 * not laid out as the store writes it (the caller parses it then).
 */
export function scanPaths(json: string, tree: PathTree): Record<string, unknown> | undefined {
  return json.charCodeAt(0) === OPEN_BRACE ? scanObject(json, 0, tree, true)?.[0] : undefined;
}

/** scanObject's end index when it stopped once it had every wanted member (the rest of the text unread). */
const stoppedEarly = -2;

/**
 * The members of the object at `i` that `tree` names, and the index past the
 * object; when `mayStop`, it stops as soon as it has them all (index
 * stoppedEarly): the fields a selector reads come early in an object, and the
 * rest of it (a pod's spec and status) is not walked.
 */
function scanObject(s: string, i: number, tree: PathTree, mayStop: boolean): [Record<string, unknown>, number] | undefined {
  const out: Record<string, unknown> = {};
  let found = 0;
  i++;
  if (s.charCodeAt(i) === CLOSE_BRACE) return [out, i + 1];
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return undefined;
    const keyStart = i;
    const keyEnd = skipString(s, i);
    if (keyEnd < 0 || s.charCodeAt(keyEnd) !== COLON) return undefined;
    const want = tree.get(s.slice(keyStart, keyEnd));
    const valueStart = keyEnd + 1;
    if (want !== undefined) found++;
    // The last member wanted here: past it nothing more is needed, if the caller needs nothing after this object either.
    const last = mayStop && found === tree.size;
    if (want !== undefined && want !== true && s.charCodeAt(valueStart) === OPEN_BRACE) {
      // Only the wanted members of an object on the way.
      const inner = scanObject(s, valueStart, want, last);
      if (!inner) return undefined;
      out[JSON.parse(s.slice(keyStart, keyEnd)) as string] = inner[0];
      if (inner[1] === stoppedEarly) return [out, stoppedEarly];
      i = inner[1];
    } else {
      i = skipValue(s, valueStart);
      if (i < 0) return undefined;
      // A wanted value, or one on the way that is not an object (which a path then reads as absent, as in the whole object).
      if (want !== undefined) out[JSON.parse(s.slice(keyStart, keyEnd)) as string] = JSON.parse(s.slice(valueStart, i));
    }
    const c = s.charCodeAt(i);
    if (c === CLOSE_BRACE) return [out, i + 1];
    if (c !== COMMA) return undefined;
    if (last) return [out, stoppedEarly];
    i++;
  }
}

/** The index just past the string that opens at `i`, or -1. */
function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return -1;
    // The quote ends the string unless an odd number of backslashes escapes it.
    if (s.charCodeAt(q - 1) !== BACKSLASH) return q + 1;
    let b = q - 2;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** The index just past the JSON value that starts at `i`, or -1. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    // A number, true, false or null: up to the next delimiter.
    let j = i;
    for (;;) {
      const d = s.charCodeAt(j);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || Number.isNaN(d)) break;
      j++;
    }
    return j > i ? j : -1;
  }
  let depth = 0;
  const n = s.length;
  while (i < n) {
    const d = s.charCodeAt(i);
    if (d === QUOTE) {
      i = skipString(s, i);
      if (i < 0) return -1;
      continue;
    }
    if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1;
    }
    i++;
  }
  return -1;
}
