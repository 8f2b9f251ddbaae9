/**
 * The keys a JSON text names twice within one object. `JSON.parse` keeps the
 * last of them without a word, while kube's strict decoder (sigs.k8s.io/json)
 * reports each (`duplicate field "spec.replicas"`), and many log pipelines
 * refuse such a line. So the text is walked token by token; a path is built
 * only for a key found twice, which keeps the walk cheap for the usual text
 * that has none.
 */

/** One step of a path: an object's key, or an array's index. */
export type JsonPathSegment = string | number;

/** An open object or array while the text is walked. */
interface Frame {
  parent: Frame | undefined;
  /** Where this value sits in its parent (unused at the top). */
  at: JsonPathSegment;
  /** Object: the keys seen so far; array: undefined. */
  keys: Set<string> | undefined;
  /** Object: the last key read. */
  lastKey: string;
  /** Array: the index of the current element. */
  index: number;
  /** Object: the next string is a key (after `{` or `,`), not a value. */
  expectKey: boolean;
}

/**
 * The paths of the keys `text` repeats within one object, in order of
 * appearance, each from the top (`['spec', 'containers', 1, 'image']`).
 * `text` is JSON its caller has parsed already (the walk does not parse it
 * again); on other text the answer means nothing, but the walk ends.
 *
 * @example
 * ```ts
 * import { duplicateKeys, formatFieldPath } from '@operant/apimachinery/json';
 *
 * duplicateKeys('{"spec":{"replicas":1,"replicas":2}}').map((path) => formatFieldPath(path)); // ['spec.replicas']
 * ```
 */
export function duplicateKeys(text: string): JsonPathSegment[][] {
  const found: JsonPathSegment[][] = [];
  let top: Frame | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === quote) {
      const end = stringEnd(text, i);
      if (top?.keys && top.expectKey) {
        // A key without escapes is its text; only one with a backslash needs JSON's reading.
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.keys.has(key)) found.push([...pathOf(top), key]);
        else top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === openBrace || c === openBracket) {
      const at = top === undefined ? '' : top.keys ? top.lastKey : top.index;
      top = { parent: top, at, keys: c === openBrace ? new Set() : undefined, lastKey: '', index: 0, expectKey: c === openBrace };
    } else if (c === closeBrace || c === closeBracket) {
      top = top?.parent;
    } else if (c === comma && top) {
      if (top.keys) top.expectKey = true;
      else top.index++;
    }
  }
  return found;
}

/**
 * A path as kube writes field paths: keys joined by dots, indexes in brackets
 * (`spec.containers[1].image`). `index` prints an index differently, for
 * example `() => '[]'` for a path that stands for every element.
 *
 * @example
 * ```ts
 * import { formatFieldPath } from '@operant/apimachinery/json';
 *
 * formatFieldPath(['items', 0, 'name']); // 'items[0].name'
 * formatFieldPath(['items', 0, 'name'], () => '[]'); // 'items[].name'
 * ```
 */
export function formatFieldPath(path: readonly JsonPathSegment[], index: (i: number) => string = (i) => `[${i}]`): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += index(segment);
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

const quote = 0x22;
const comma = 0x2c;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const openBrace = 0x7b;
const closeBrace = 0x7d;

/** The path of the object `frame` is, from the top. */
function pathOf(frame: Frame): JsonPathSegment[] {
  const path: JsonPathSegment[] = [];
  for (let f: Frame | undefined = frame; f?.parent !== undefined; f = f.parent) path.push(f.at);
  return path.reverse();
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  // Jumps from quote to quote (a native search; values can be megabytes long):
  // a quote ends the string unless an odd run of backslashes escapes it.
  for (let from = start + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new SyntaxError('Unterminated string in JSON');
    let backslashes = 0;
    while (quote - 1 - backslashes > start && text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
