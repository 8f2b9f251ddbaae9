/**
 * The keys a YAML document names twice in one mapping, worded as go-yaml (v2)
 * words them in strict mode: `line 5: key "k" already set in map`. kube reads
 * a YAML body twice: sigs.k8s.io/yaml's YAMLToJSON keeps the last value of a
 * repeated key without a word, and then, unless fieldValidation is Ignore,
 * YAMLToJSONStrict reports each repeat (a warning per line under Warn, a
 * strict decoding error under Strict). The line is the repeated key's value's
 * (1-based), as go-yaml gives it.
 */
import type * as Yaml from 'yaml';

/**
 * The strict-mode messages for `doc`, in go-yaml's order: depth-first, a
 * value's own repeats before its key's. An alias is read again where it is
 * used, as go-yaml decodes it again. `yaml` is the loaded yaml module.
 */
export function yamlDuplicateKeys(yaml: typeof Yaml, doc: Yaml.Document, lines: Yaml.LineCounter): string[] {
  const found: string[] = [];
  const lineOf = (node: Yaml.Node): number => lines.linePos(node.range?.[0] ?? 0).line;
  const walk = (node: unknown): void => {
    if (yaml.isAlias(node)) {
      walk(node.resolve(doc));
    } else if (yaml.isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        walk(pair.key);
        walk(pair.value);
        const key = scalarKey(yaml, pair.key);
        // A merge key (`<<`) adds the keys of the maps it names; it is no key of its own.
        if (key === undefined || key.merge) continue;
        if (seen.has(key.id)) {
          const at = yaml.isNode(pair.value) ? pair.value : (pair.key as Yaml.Node);
          found.push(`line ${lineOf(at)}: key ${key.printed} already set in map`);
        } else seen.add(key.id);
      }
    } else if (yaml.isSeq(node)) {
      for (const item of node.items) walk(item);
    }
  };
  walk(doc.contents);
  return found;
}

/** A scalar key: how it compares (its Go type and value), and how Go's `%#v` prints it. */
function scalarKey(yaml: typeof Yaml, key: unknown): { id: string; printed: string; merge: boolean } | undefined {
  if (!yaml.isScalar(key)) return undefined;
  const value = key.value;
  if (typeof value === 'string') {
    return { id: `s:${value}`, printed: JSON.stringify(value), merge: value === '<<' && key.type === 'PLAIN' };
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return { id: `${typeof value}:${String(value)}`, printed: String(value), merge: false };
  if (value === null) return { id: 'null', printed: '<nil>', merge: false };
  return undefined;
}
