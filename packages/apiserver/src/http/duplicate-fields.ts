/**
 * Fields a JSON body names twice in one object. JSON.parse keeps the last
 * without a word; kube (1.27+) reports each, as sigs.k8s.io/json's strict
 * decoding does: a `duplicate field "spec.replicas"` warning with the default
 * fieldValidation=Warn, an error with Strict. The decoded body is tagged here,
 * and the registry reads the tag when it decodes the object for its kind.
 */

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

interface Frame {
  /** The path of this object or array. */
  path: string;
  /** Object: the keys seen so far; array: undefined. */
  keys?: Set<string>;
  /** Object: the last key read; array: the index of the current element. */
  last: string;
  index: number;
  expectKey: boolean;
}

/**
 * The paths (`metadata.name`, `spec.containers[0].image`) of the keys `text`
 * repeats within one object, in order of appearance. `text` must be valid JSON.
 */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  const childPath = (): string => {
    const top = stack.at(-1);
    if (!top) return '';
    if (!top.keys) return `${top.path}[${top.index}]`;
    return top.path ? `${top.path}.${top.last}` : top.last;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) out.push(top.path ? `${top.path}.${key}` : key);
        top.keys.add(key);
        top.last = key;
        top.expectKey = false;
      }
      i = j;
    } else if (c === '{' || c === '[') {
      stack.push({ path: childPath(), keys: c === '{' ? new Set() : undefined, last: '', index: 0, expectKey: c === '{' });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return out;
}
