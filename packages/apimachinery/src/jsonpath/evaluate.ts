/**
 * Runs a parsed JSONPath template against JSON data and prints the results
 * the way client-go's `JSONPath.FindResults` and `PrintResults` do (and so
 * `kubectl -o jsonpath`): results of one node joined by spaces, objects and
 * arrays as compact JSON with sorted keys, `null` for JSON null.
 */
import {
  JsonPathError,
  type JsonPathArrayNode,
  type JsonPathFieldNode,
  type JsonPathFilterNode,
  type JsonPathListNode,
  type JsonPathNode,
  type JsonPathTemplate,
} from './parser.js';
import {
  compareGoStrings,
  formatGoFloat,
  formatGoNumber,
  goJsonMarshal,
  goSprintV,
  goTypeName,
  GoFloat,
  isGoInt,
  isJsonMap,
  plainValue,
} from './values.js';

/** Options for {@link executeJsonPath} and {@link formatJsonPath}. */
export interface JsonPathOptions {
  /**
   * A missing key gives no result instead of the error `<key> is not found`
   * (client-go's `AllowMissingKeys`; kubectl turns it on by default, and so do
   * CRD printer columns).
   */
  allowMissingKeys?: boolean;
}

/**
 * The "no value" of Go's reflection (an invalid `reflect.Value`): the data of
 * a range body run for an empty range. Distinct from JSON null.
 */
const NO_VALUE: unique symbol = Symbol('no value');

type Value = unknown;

class Evaluator {
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEndNode: JsonPathNode | undefined;

  constructor(private readonly allowMissingKeys: boolean) {}

  /** client-go's `FindResults` over `nodes` (a suffix of the template's top level). */
  findResults(nodes: readonly JsonPathNode[], data: Value): Value[][] {
    const cur: Value[] = [data];
    const full: Value[][] = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      const results = this.walk(cur, node);

      // An end node closes the current range body.
      if (this.endRange > 0 && this.endRange <= this.inRange) {
        this.endRange--;
        this.lastEndNode = node;
        break;
      }
      // A range node runs the rest of the template once per result.
      if (this.beginRange > 0) {
        this.beginRange--;
        this.inRange++;
        const body = nodes.slice(i + 1);
        if (results.length > 0) {
          for (const value of results) full.push(...this.findResults(body, value));
        } else {
          // Still walk the body, so that its end node is found.
          this.findResults(body, NO_VALUE);
        }
        this.inRange--;
        // Resume after the end node that closed this range.
        for (let k = i + 1; k < nodes.length; k++) {
          if (nodes[k] === this.lastEndNode) {
            i = k;
            break;
          }
        }
        continue;
      }
      full.push(results);
    }
    return full;
  }

  private walk(input: Value[], node: JsonPathNode): Value[] {
    switch (node.type) {
      case 'list':
        return this.evalList(input, node);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node);
      case 'array':
        return this.evalArray(input, node);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new GoFloat(node.value));
      case 'bool':
        return input.map(() => node.value);
      case 'wildcard':
        return this.evalWildcard(input);
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return this.evalUnion(input, node.nodes);
      case 'identifier':
        return this.evalIdentifier(input, node.name);
    }
  }

  private evalList(input: Value[], node: JsonPathListNode): Value[] {
    let cur = input;
    for (const child of node.nodes) cur = this.walk(cur, child);
    return cur;
  }

  private evalIdentifier(input: Value[], name: string): Value[] {
    switch (name) {
      case 'range':
        this.beginRange++;
        return input;
      case 'end':
        if (this.inRange > 0) {
          this.endRange++;
          return [];
        }
        throw new JsonPathError('not in range, nothing to end');
      default:
        throw new JsonPathError(`unrecognized identifier ${name}`, input);
    }
  }

  private evalField(input: Value[], node: JsonPathFieldNode): Value[] {
    const results: Value[] = [];
    if (input.length === 0) return results;
    for (const value of input) {
      if (isJsonMap(value) && Object.prototype.hasOwnProperty.call(value, node.name)) {
        const found = value[node.name];
        if (found !== undefined) results.push(found);
      }
    }
    if (results.length === 0 && !this.allowMissingKeys) {
      throw new JsonPathError(`${node.name} is not found`);
    }
    return results;
  }

  private evalArray(input: Value[], node: JsonPathArrayNode): Value[] {
    const result: Value[] = [];
    for (const value of input) {
      if (value === null || value === NO_VALUE) continue;
      if (!Array.isArray(value)) throw new JsonPathError(`${goTypeName(value)} is not array or slice`, input);
      const length = value.length;
      const [p0, p1, p2] = node.params;
      let start = p0.known ? p0.value : 0;
      if (start < 0) start += length;
      let end = p1.known ? p1.value : length;
      if (end < 0 || (end === 0 && p1.derived)) end += length;

      if (end === start) return result; // zero elements requested
      if (start >= length || start < 0) {
        throw new JsonPathError(`array index out of bounds: index ${start}, length ${length}`, input);
      }
      if (end > length || end < 0) {
        throw new JsonPathError(`array index out of bounds: index ${end - 1}, length ${length}`, input);
      }
      if (start > end) {
        throw new JsonPathError(`starting index ${start} is greater than ending index ${end}`, input);
      }
      let step = 1;
      if (p2.known) {
        if (p2.value <= 0) throw new JsonPathError('step must be > 0', input);
        step = p2.value;
      }
      for (let i = start; i < end; i += step) result.push(value[i]);
    }
    return result;
  }

  private evalUnion(input: Value[], alternatives: readonly JsonPathListNode[]): Value[] {
    const result: Value[] = [];
    for (const alt of alternatives) {
      try {
        result.push(...this.evalList(input, alt));
      } catch (err) {
        if (err instanceof JsonPathError) throw new JsonPathError(err.message, input);
        throw err;
      }
    }
    return result;
  }

  private evalWildcard(input: Value[]): Value[] {
    const results: Value[] = [];
    for (const value of input) results.push(...children(value));
    return results;
  }

  private evalRecursive(input: Value[]): Value[] {
    const result: Value[] = [];
    for (const value of input) {
      const kids = children(value);
      if (kids.length === 0) continue;
      result.push(value);
      result.push(...this.evalRecursive(kids));
    }
    return result;
  }

  private evalFilter(input: Value[], node: JsonPathFilterNode): Value[] {
    const results: Value[] = [];
    for (const value of input) {
      if (!Array.isArray(value)) {
        const shown = value === NO_VALUE ? '<invalid reflect.Value>' : goSprintV(value);
        throw new JsonPathError(`${shown} is not array or slice and cannot be filtered`, input);
      }
      for (const item of value) {
        let lefts: Value[];
        let leftError: JsonPathError | undefined;
        try {
          lefts = this.evalList([item], node.left);
        } catch (err) {
          if (!(err instanceof JsonPathError)) throw err;
          leftError = err;
          lefts = [...err.partial];
        }

        if (node.operator === 'exists') {
          if (lefts.length > 0) results.push(item);
          continue;
        }
        if (leftError) throw new JsonPathError(leftError.message, input);
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new JsonPathError('can only compare one element at a time', input);

        let rights: Value[];
        try {
          rights = this.evalList([item], node.right);
        } catch (err) {
          if (err instanceof JsonPathError) throw new JsonPathError(err.message, input);
          throw err;
        }
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new JsonPathError('can only compare one element at a time', input);

        let pass: boolean;
        try {
          pass = compare(node.operator, lefts[0], rights[0]);
        } catch (err) {
          if (err instanceof JsonPathError) throw new JsonPathError(err.message, results);
          throw err;
        }
        if (pass) results.push(item);
      }
    }
    return results;
  }
}

/**
 * The members of a value as client-go's wildcard and recursive descent see
 * them: an object's values, an array's elements, a string's UTF-8 bytes.
 */
function children(value: Value): Value[] {
  if (Array.isArray(value)) return value.slice();
  if (isJsonMap(value)) return Object.values(value).filter((v) => v !== undefined);
  if (typeof value === 'string') return Array.from(new TextEncoder().encode(value));
  return [];
}

// ---------------------------------------------------------------------------
// Comparisons (client-go's forked text/template eq, lt, ...)
// ---------------------------------------------------------------------------

type Kind = 'bool' | 'int' | 'float' | 'string';

function basicKind(v: Value): Kind {
  if (v instanceof GoFloat) return 'float';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return isGoInt(v) ? 'int' : 'float';
  }
  throw new JsonPathError('invalid type for comparison');
}

function numberOf(v: Value): number {
  return v instanceof GoFloat ? v.value : (v as number);
}

function equal(a: Value, b: Value): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka !== kb) throw new JsonPathError('incompatible types for comparison');
  if (ka === 'int' || ka === 'float') return numberOf(a) === numberOf(b);
  return a === b;
}

function less(a: Value, b: Value): boolean {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka !== kb) throw new JsonPathError('incompatible types for comparison');
  switch (ka) {
    case 'bool':
      throw new JsonPathError('invalid type for comparison');
    case 'string':
      return compareGoStrings(a as string, b as string) < 0;
    default:
      return numberOf(a) < numberOf(b);
  }
}

function compare(operator: string, a: Value, b: Value): boolean {
  switch (operator) {
    case '<':
      return less(a, b);
    case '>':
      return !(less(a, b) || equal(a, b));
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case '<=':
      return less(a, b) || equal(a, b);
    case '>=':
      return !less(a, b);
    default:
      throw new JsonPathError(`unrecognized filter operator ${operator}`);
  }
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/**
 * Evaluates a parsed template against `data` (decoded JSON), as client-go's
 * `FindResults`: one array of values per top-level node that prints (text
 * nodes give their text; a range body gives one entry per node per
 * iteration). Throws a {@link JsonPathError} worded as kube's
 * (`status is not found`, `array index out of bounds: index 3, length 2`, ...).
 */
export function executeJsonPath(parsed: JsonPathTemplate, data: unknown, opts: JsonPathOptions = {}): unknown[][] {
  return run(parsed, data, opts).map((values) => values.map(plainValue));
}

function run(parsed: JsonPathTemplate, data: unknown, opts: JsonPathOptions): Value[][] {
  return new Evaluator(opts.allowMissingKeys ?? false).findResults(parsed.root.nodes, data);
}

/**
 * Prints the values of one node as client-go's `PrintResults`: objects and
 * arrays as Go's `json.Marshal` (sorted keys), strings as they are, numbers as
 * Go prints an int64 or float64 (`1e+06`), booleans, `null`; separated by
 * single spaces.
 */
export function formatJsonPathResults(values: readonly unknown[]): string {
  return values.map(printValue).join(' ');
}

function printValue(v: unknown): string {
  if (v === NO_VALUE || v === undefined) return '<no value>';
  if (v instanceof GoFloat) return formatGoFloat(v.value);
  if (v === null) return 'null';
  if (typeof v === 'object') return goJsonMarshal(v);
  if (typeof v === 'number') return formatGoNumber(v);
  return String(v);
}

/**
 * Runs a template and prints its output as `kubectl -o jsonpath=...` does
 * (without kubectl's trailing newline handling): each node's results printed
 * by {@link formatJsonPathResults}, concatenated.
 *
 * @example formatJsonPath(parseJsonPath('{.items[*].metadata.name}'), list, { allowMissingKeys: true })
 */
export function formatJsonPath(parsed: JsonPathTemplate, data: unknown, opts: JsonPathOptions = {}): string {
  return run(parsed, data, opts).map(formatJsonPathResults).join('');
}
