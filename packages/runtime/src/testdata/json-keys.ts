/**
 * For tests: the keys a JSON text repeats within one object. `JSON.parse`
 * keeps the last of them without a word, while many log pipelines reject the
 * line (pino writes a child's bindings after its parent's, so a child that
 * repeats a key writes it twice). apimachinery's scanner finds them.
 */
import { duplicateKeys, formatFieldPath } from '@operant/apimachinery/json';

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
  return duplicateKeys(json).map((path) => formatFieldPath(path, () => '[]'));
}
