/**
 * Fields a JSON body names twice in one object. JSON.parse keeps the last
 * without a word; kube (1.27+) reports each, as sigs.k8s.io/json's strict
 * decoding does: a `duplicate field "spec.replicas"` warning with the default
 * fieldValidation=Warn, an error with Strict. A YAML body's repeats are
 * reported in go-yaml's words instead (see yaml-duplicate-keys.ts). The decoded body is tagged here,
 * and the registry reads the tag when it decodes the object for its kind.
 * apimachinery's scanner finds them.
 */
import { duplicateKeys, formatFieldPath } from '@operant/apimachinery/json';

/** What strict decoding reports of a body's repeated keys: the errors under Strict, the warnings under Warn. */
export interface DuplicateFields {
  errors: string[];
  warnings: string[];
}

/** The decoded bodies that named a field twice, and what to report of them. */
const duplicates = new WeakMap<object, DuplicateFields>();

/** The duplicate fields recorded for a decoded body; undefined when it has none. */
export function duplicateFieldsOf(body: object): DuplicateFields | undefined {
  return duplicates.get(body);
}

/** Records `found` for `decoded`, as another thread's decoding reported it. */
export function tagDuplicates(decoded: object, found: DuplicateFields): void {
  duplicates.set(decoded, found);
}

/** Records the duplicate fields of the JSON `text` for `decoded`, its parse: `duplicate field "data.k"`. */
export function tagDuplicateFields(decoded: unknown, text: string): void {
  if (decoded === null || typeof decoded !== 'object') return;
  if (printsAsItself(decoded, text)) return;
  const found = duplicateFields(text).map((path) => `duplicate field ${JSON.stringify(path)}`);
  if (found.length > 0) duplicates.set(decoded, { errors: found, warnings: found });
}

/**
 * Whether `text` is exactly what JSON.stringify makes of its parse `decoded`
 * (perhaps with one newline after it), as a client in JavaScript sends it.
 * Such a text names no key twice: a repeated key would be one member more
 * in the text than in the printed parse, so the two could not be the same
 * string. One native print is several times cheaper than the token walk,
 * which runs only for texts that print otherwise (spaces, Go's escapes,
 * numbers written another way).
 */
function printsAsItself(decoded: object, text: string): boolean {
  const printed = JSON.stringify(decoded);
  if (printed.length === text.length) return printed === text;
  return printed.length + 1 === text.length && text.charCodeAt(printed.length) === 10 && text.startsWith(printed);
}

/**
 * Records go-yaml's strict-mode messages for a YAML body's repeated keys
 * (`line 5: key "k" already set in map`): one error holding them all, as
 * go-yaml returns them, and a warning each, as kube's handlers split them.
 */
export function tagYamlDuplicateKeys(decoded: unknown, messages: string[]): void {
  if (decoded === null || typeof decoded !== 'object' || messages.length === 0) return;
  duplicates.set(decoded, { errors: [`yaml: unmarshal errors:\n  ${messages.join('\n  ')}`], warnings: messages });
}

/**
 * The paths (`metadata.name`, `spec.containers[0].image`) of the keys `text`
 * repeats within one object, in order of appearance. `text` must be valid JSON.
 */
export function duplicateFields(text: string): string[] {
  return duplicateKeys(text).map((path) => formatFieldPath(path));
}
