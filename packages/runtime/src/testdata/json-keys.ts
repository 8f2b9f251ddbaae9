/**
 * For tests: the keys a JSON text repeats within one object. `JSON.parse`
 * keeps the last of them without a word, while many log pipelines reject the
 * line (pino writes a child's bindings after its parent's, so a child that
 * repeats a key writes it twice). So the text is walked token by token.
 */

interface ObjectFrame {
  keys: Set<string>;
  path: string;
  /** The next string is a key (after `{` or `,`), not a value. */
  expectKey: boolean;
  lastKey: string;
}
interface ArrayFrame {
  path: string;
}

/**
 * The repeated keys of `json`, each as a dotted path from the top (`component`,
 * `err.code`, `items[].name`), in order of appearance. Throws on invalid JSON.
 *
 * @example
 * ```ts
 * repeatedKeys('{"component":"webhook","component":"webhook-server"}'); // ['component']
 * ```
 */
export function repeatedKeys(json: string): string[] {
  JSON.parse(json);
  const repeated: string[] = [];
  const stack: Array<ObjectFrame | ArrayFrame> = [];
  const childPath = (): string => {
    const top = stack.at(-1);
    if (!top) return '';
    const prefix = 'keys' in top ? top.lastKey : '[]';
    return top.path ? (prefix === '[]' ? `${top.path}[]` : `${top.path}.${prefix}`) : prefix;
  };
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      const end = stringEnd(json, i);
      const top = stack.at(-1);
      if (top && 'keys' in top && top.expectKey) {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (top.keys.has(key)) repeated.push(top.path ? `${top.path}.${key}` : key);
        top.keys.add(key);
        top.expectKey = false;
        top.lastKey = key;
      }
      i = end;
    } else if (c === '{') {
      stack.push({ keys: new Set(), path: childPath(), expectKey: true, lastKey: '' });
    } else if (c === '[') {
      stack.push({ path: childPath() });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top && 'keys' in top) top.expectKey = true;
    }
  }
  return repeated;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i++) {
    if (json[i] === '\\') i++;
    else if (json[i] === '"') return i;
  }
  throw new SyntaxError('unterminated string');
}
