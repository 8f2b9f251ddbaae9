/**
 * YAML request bodies, parsed safely. The yaml package is loaded on first use
 * (loading it costs ~40 ms of server start-up, and almost every request is
 * JSON), and never sees input it cannot take:
 *
 * - nesting: the parser recurses once per level and overflows the stack from
 *   about 800 levels (and, building its error message for a few thousand
 *   levels of `[`, can exhaust memory and kill the process). A linear scan
 *   first bounds the depth a document could reach: flow brackets outside
 *   quotes and comments, plus what its indentation and `- ` markers allow,
 *   and refuses anything deeper than {@link maxYamlDepth}, as go-yaml refuses
 *   its own limit ("exceeded max depth of ...");
 * - aliases: at most 100, and the document they expand to must fit the
 *   request body limit, checked by a walk that stops at the limit (99
 *   aliases of a 0.5 MB node would otherwise store 50 MB).
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { requestEntityTooLarge } from '@operant/apimachinery';
import { yamlDuplicateKeys } from './yaml-duplicate-keys.js';

type ParseOptions = Yaml.ParseOptions & Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.ToJSOptions;

/** How deep a YAML body may nest here (go-yaml allows 10000; see the module comment). */
export const maxYamlDepth = 500;
/** kube-apiserver's MaxRequestBodyBytes, which a document's expansion must fit too. */
const maxExpandedBytes = 3 * 1024 * 1024;

let yaml: typeof Yaml | undefined;

/**
 * `parse` of the yaml package, for request bodies: throws `exceeded max depth
 * of 500` for a document nested deeper, and a 413 StatusError for one whose
 * aliases expand past the body limit.
 */
export function parseYaml(src: string, options?: ParseOptions): unknown {
  return parseChecked(src, options, false).value;
}

/**
 * As {@link parseYaml}, but a key named twice in one mapping is read as
 * sigs.k8s.io/yaml reads it (the last value is kept), and each repeat is
 * reported as go-yaml's strict mode words it (see yaml-duplicate-keys.ts).
 */
export function parseYamlKeepingLastKey(src: string, options?: ParseOptions): { value: unknown; duplicates: string[] } {
  return parseChecked(src, options, true);
}

function parseChecked(src: string, options: ParseOptions | undefined, keepLastKey: boolean): { value: unknown; duplicates: string[] } {
  if (yamlDepthBound(src, maxYamlDepth) > maxYamlDepth) throw new Error(`exceeded max depth of ${maxYamlDepth}`);
  yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  let value: unknown;
  let doc: Yaml.Document | undefined;
  const lines = new yaml.LineCounter();
  try {
    if (keepLastKey) {
      doc = yaml.parseDocument(src, { ...options, uniqueKeys: false, lineCounter: lines });
      if (doc.errors.length > 0) throw doc.errors[0];
      value = doc.toJS(options) as unknown;
    } else value = yaml.parse(src, options) as unknown;
  } catch (err) {
    // The scan bounds the depth; should the parser still run out of stack, say why.
    if (err instanceof RangeError || /Maximum call stack/.test(String((err as Error).message))) throw new Error(`exceeded max depth of ${maxYamlDepth}`);
    throw err;
  }
  if (expandedSizeExceeds(value, maxExpandedBytes)) throw requestEntityTooLarge(maxExpandedBytes);
  // After the size check: the walk reads aliases again, so it is bounded by the expanded size.
  return { value, duplicates: doc ? yamlDuplicateKeys(yaml, doc, lines) : [] };
}

/**
 * An upper bound of how deep the document nests, in one pass. In block
 * context a line can nest two levels per column of indentation (a block map
 * nests one level per indented key, and a sequence under a key may share its
 * column) plus one per `- ` or `? ` that opens a compact nested collection;
 * inside flow collections, each open bracket (outside quotes and comments)
 * adds one to the block depth where the outermost opened. The lines of a
 * block scalar (`|`, `>`) are text and are skipped. Stops as soon as the
 * bound passes `stopAbove`.
 */
export function yamlDepthBound(src: string, stopAbove = Infinity): number {
  let max = 0;
  let flow = 0;
  let blockAtFlowStart = 0;
  let quote: '"' | "'" | undefined;
  let lineStart = true;
  let indent = 0;
  let markers = 0;
  /** Inside a block scalar: the indentation its text must exceed. */
  let scalarParentIndent = -1;
  const blockDepth = () => 2 * indent + markers;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\n') {
      if (flow === 0 && !quote && endsWithBlockScalarHeader(src, i)) scalarParentIndent = indent;
      lineStart = true;
      indent = 0;
      markers = 0;
      continue;
    }
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) {
        // '' is an escaped quote inside a single-quoted scalar.
        if (quote === "'" && src[i + 1] === "'") i++;
        else quote = undefined;
      }
      continue;
    }
    if (lineStart) {
      if (c === ' ') {
        indent++;
        continue;
      }
      if (scalarParentIndent >= 0) {
        if (indent > scalarParentIndent) {
          // Text of the block scalar: skip the rest of the line.
          const end = src.indexOf('\n', i);
          i = end < 0 ? src.length : end - 1;
          continue;
        }
        scalarParentIndent = -1;
      }
      if ((c === '-' || c === '?') && (src[i + 1] === ' ' || src[i + 1] === '\n')) {
        markers++;
        continue;
      }
      lineStart = false;
    }
    if (c === '#' && (i === 0 || src[i - 1] === ' ' || src[i - 1] === '\t')) {
      // A comment runs to the end of the line.
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end - 1;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') {
      if (flow === 0) blockAtFlowStart = blockDepth();
      flow++;
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
    const depth = flow > 0 ? blockAtFlowStart + flow : blockDepth();
    if (depth > max) {
      max = depth;
      // Deep enough to refuse: the rest need not be read.
      if (max > stopAbove) return max;
    }
  }
  return Math.max(max, blockDepth());
}

/** Whether the line that ends at `newline` ends with a block scalar header (`|`, `>-`, `|2+`...). */
function endsWithBlockScalarHeader(src: string, newline: number): boolean {
  let j = newline - 1;
  if (src[j] === '\r') j--;
  while (j >= 0 && (src[j] === '+' || src[j] === '-' || (src[j]! >= '0' && src[j]! <= '9'))) j--;
  if (src[j] !== '|' && src[j] !== '>') return false;
  const before = src[j - 1];
  return before === ' ' || before === undefined || before === '\n';
}

/** Whether `value`, written as JSON, would exceed `limit` bytes (counted roughly, stopping at the limit). */
function expandedSizeExceeds(value: unknown, limit: number): boolean {
  let size = 0;
  const visit = (v: unknown): boolean => {
    if (typeof v === 'string') size += v.length + 2;
    else if (Array.isArray(v)) {
      size += 2;
      for (const item of v) if (visit(item)) return true;
    } else if (v !== null && typeof v === 'object') {
      size += 2;
      for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
        size += k.length + 3;
        if (visit(item)) return true;
      }
    } else size += 5;
    return size > limit;
  };
  return visit(value);
}
