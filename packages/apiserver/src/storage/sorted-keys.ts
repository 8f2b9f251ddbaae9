/**
 * A bucket's keys in sorted order, kept in chunks of up to a thousand or so:
 * adding or removing a key costs a binary search and a splice of one chunk,
 * and a read from any key finds it by binary search, so that a page of a
 * paginated list costs its own items rather than a sort or a copy of every key
 * (as etcd's index and kube's watch cache, B-trees both, read a page).
 */

/** Keys per chunk after a split; a chunk splits once it holds twice as many. */
const chunkKeys = 512;

/** A position in the keys: chunk `c`, index `i` in it. */
export interface KeyCursor {
  c: number;
  i: number;
}

export class SortedKeys {
  private readonly chunks: string[][] = [];

  /** The index of keys already sorted (and distinct). */
  static fromSorted(keys: readonly string[]): SortedKeys {
    const s = new SortedKeys();
    for (let i = 0; i < keys.length; i += chunkKeys) s.chunks.push(keys.slice(i, i + chunkKeys));
    return s;
  }

  /** Adds a key not present. */
  add(key: string): void {
    if (this.chunks.length === 0) {
      this.chunks.push([key]);
      return;
    }
    const c = this.chunkFor(key);
    const chunk = this.chunks[c];
    chunk.splice(lowerBound(chunk, key), 0, key);
    if (chunk.length >= 2 * chunkKeys) this.chunks.splice(c + 1, 0, chunk.splice(chunkKeys));
  }

  /** Removes a key if present. */
  delete(key: string): void {
    if (this.chunks.length === 0) return;
    const c = this.chunkFor(key);
    const chunk = this.chunks[c];
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return;
    chunk.splice(i, 1);
    if (chunk.length === 0) this.chunks.splice(c, 1);
  }

  /** The position of the first key `>= target` (or `> target` when `strictly`). */
  seek(target: string, strictly = false): KeyCursor {
    if (this.chunks.length === 0) return { c: 0, i: 0 };
    let c = this.chunkFor(target);
    const chunk = this.chunks[c];
    let i = strictly ? upperBound(chunk, target) : lowerBound(chunk, target);
    if (i === chunk.length) {
      c++;
      i = 0;
    }
    return { c, i };
  }

  /** The keys from `at` on, in order. */
  *from(at: KeyCursor): IterableIterator<string> {
    let { c, i } = at;
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c];
      for (; i < chunk.length; i++) yield chunk[i];
    }
  }

  /** The keys that start with `prefix`, in order. */
  withPrefix(prefix: string): string[] {
    const out: string[] = [];
    const at = this.seek(prefix);
    for (let c = at.c, i = at.i; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c];
      for (; i < chunk.length; i++) {
        if (!chunk[i].startsWith(prefix)) return out;
        out.push(chunk[i]);
      }
    }
    return out;
  }

  /** How many keys lie from `at` on (a walk over the chunks, not the keys). */
  countFrom(at: KeyCursor): number {
    let n = -at.i;
    for (let c = at.c; c < this.chunks.length; c++) n += this.chunks[c].length;
    return Math.max(0, n);
  }

  /** The last chunk whose first key is `<= key` (the first chunk if none is). */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.chunks[mid][0] <= key) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** The first index whose key is `>= target`. */
export function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose key is `> target`. */
export function upperBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
