/**
 * The JSON bytes of stored objects, made once per revision. A stored object is
 * frozen and never changes, so the encoding the store makes when it writes a
 * revision (to size it, and for persistence) is kept with it and reused for
 * every GET, LIST and watch event that sends that object as it is stored.
 *
 * The bytes are kept as UTF-8 in a Buffer of their own size: outside the
 * JavaScript heap, ready for the socket with no further conversion, and with
 * no pool slack. Objects that are not stored (a dry run's result, a converted
 * version) are encoded each time and not kept.
 */
import type { KubeObject } from '@operant/apimachinery';
import { allocBytes } from './large-buffers.js';
import type { Versioned } from './types.js';

const encodings = new WeakMap<object, Buffer>();

/**
 * UTF-8 bytes of `json` (`size` of them, when the caller has counted), in a
 * buffer of exactly that size (Buffer.from would slice a shared 8 KiB pool); a
 * large one in pages of its own, which leave with it (see large-buffers.ts).
 */
export function utf8Bytes(json: string, size = Buffer.byteLength(json, 'utf8')): Buffer {
  const bytes = allocBytes(size);
  bytes.write(json, 0, 'utf8');
  return bytes;
}

/** Bytes of the slab that objects read back from disk share (see slabBytes). */
const slabSize = 1024 * 1024;
let slab: Buffer | undefined;
let slabUsed = 0;

/**
 * UTF-8 bytes of `json` in a 1 MiB slab shared with the texts encoded before
 * it, for objects read back from disk (a restart reads 100,000 at once): one
 * backing store per slab rather than per object, which costs V8 little to
 * track, where 100,000 of them made each collection of a large heap wait on
 * sweeping them all. A slab is freed once the last object using it is; until
 * then it holds at most the texts a restart read. A text of over a quarter of
 * a slab gets bytes of its own.
 */
export function slabBytes(json: string): Buffer {
  const size = Buffer.byteLength(json, 'utf8');
  if (size > slabSize / 4) return utf8Bytes(json);
  if (!slab || slabUsed + size > slab.length) {
    slab = Buffer.allocUnsafeSlow(slabSize);
    slabUsed = 0;
  }
  const bytes = slab.subarray(slabUsed, slabUsed + size);
  bytes.write(json, 0, 'utf8');
  slabUsed += size;
  return bytes;
}

/** Remembers `bytes` as the encoding of the stored (frozen) object `value`. */
export function keepEncoding(value: KubeObject, bytes: Buffer): void {
  encodings.set(value, bytes);
}

/**
 * The object's JSON as UTF-8: the kept encoding of a stored object, else a
 * fresh one (kept when the object is frozen, as stored objects are: one loaded
 * from disk is encoded when first read).
 */
export function encodedJson(obj: KubeObject): Buffer {
  let bytes = encodings.get(obj);
  if (bytes !== undefined) return bytes;
  if (!Object.isFrozen(obj)) return Buffer.from(JSON.stringify(obj), 'utf8');
  bytes = utf8Bytes(JSON.stringify(obj));
  encodings.set(obj, bytes);
  return bytes;
}

/**
 * A stored object's JSON as UTF-8: the bytes it was stored with while it has
 * not been parsed (a value read back from disk; the same bytes its parsing
 * would keep as its encoding), else its kept encoding.
 */
export function versionedJson(v: Versioned): Buffer {
  return v.unparsed?.jsonBytes() ?? encodedJson(v.value);
}
