/**
 * CRD `pattern`s and CEL's `matches`, `find` and `findAll` are Go regular
 * expressions (RE2): linear-time matching, Go's syntax, and Go's compile
 * errors. JavaScript's backtracking RegExp would let one pattern such as
 * `^(a+)+$` freeze the whole server on a 31-character string, so they run on
 * re2js, a port of RE2 with Go's syntax and messages (``error parsing regexp:
 * invalid escape sequence: `\1` ``).
 */
import { RE2JS } from 're2js';

/** A compiled Go regular expression. */
export interface GoRegexp {
  /** The pattern as written. */
  readonly source: string;
  /** Whether it matches anywhere in `s` (Go's MatchString). */
  test(s: string): boolean;
  /** The leftmost match, or undefined (Go's FindString, which gives '' for none). */
  find(s: string): string | undefined;
  /** Successive non-overlapping matches, at most `limit` (all when negative), as Go's FindAllString. */
  findAll(s: string, limit: number): string[];
}

function wrap(source: string, re: RE2JS): GoRegexp {
  return {
    source,
    test: (s) => re.matcher(s).find(),
    find(s) {
      const m = re.matcher(s);
      return m.find() ? m.group() ?? '' : undefined;
    },
    findAll(s, limit) {
      const out: string[] = [];
      if (limit === 0) return out;
      const m = re.matcher(s);
      // Go skips an empty match right after the previous match.
      let lastEnd = -1;
      while (m.find()) {
        const text = m.group() ?? '';
        if (text === '' && m.start() === lastEnd) continue;
        out.push(text);
        lastEnd = m.end();
        if (limit > 0 && out.length >= limit) break;
      }
      return out;
    },
  };
}

const cache = new Map<string, GoRegexp | string>();
const cacheLimit = 2048;

/**
 * Compiles a Go regular expression. Returns it, or Go's error text, e.g.
 * ``error parsing regexp: missing argument to repetition operator: `+` ``.
 *
 * @example
 * ```ts
 * import { compileGoRegexp } from '@operant/apimachinery/schema';
 *
 * const re = compileGoRegexp('^[a-z]+$');
 * if (typeof re !== 'string') re.test('abc'); // true
 * compileGoRegexp('(a)\\1'); // 'error parsing regexp: invalid escape sequence: `\1`'
 * ```
 */
export function compileGoRegexp(pattern: string): GoRegexp | string {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let result: GoRegexp | string;
  try {
    result = wrap(pattern, RE2JS.compile(pattern));
  } catch (e) {
    const message = (e as Error).message;
    result = message.startsWith('error parsing regexp:') ? message : `error parsing regexp: ${message}`;
  }
  if (cache.size >= cacheLimit) cache.clear();
  cache.set(pattern, result);
  return result;
}
