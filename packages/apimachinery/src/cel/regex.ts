/**
 * RE2 patterns (what CEL's `matches`, `find` and `findAll` take) run on JavaScript's
 * RegExp, translated by the schema engine's Go-regexp translator. Semantics that
 * differ (backtracking instead of linear time) are not emulated.
 */
import { compileGoRegexp } from '../schema/go-regexp.js';

/** Thrown when a pattern is not valid RE2 (or uses syntax JavaScript cannot express). */
export class RegexError extends Error {}

/**
 * Compiles (and caches) an RE2 pattern with the same translator CRD `pattern`s use;
 * throws `RegexError` with Go's message when invalid.
 */
export function compileRe2(pattern: string): RegExp {
  const re = compileGoRegexp(pattern);
  if (typeof re === 'string') throw new RegexError(re);
  return re;
}

/** `re.test(s)` with a fresh lastIndex (compiled patterns are shared). */
export function re2Matches(s: string, pattern: string): boolean {
  const re = compileRe2(pattern);
  re.lastIndex = 0;
  return re.test(s);
}

/** The first match, or `''` (the CEL `find` function). */
export function re2Find(s: string, pattern: string): string {
  const re = compileRe2(pattern);
  re.lastIndex = 0;
  const m = re.exec(s);
  return m ? m[0] : '';
}

/** Up to `limit` matches (all when negative), as the CEL `findAll` function. */
export function re2FindAll(s: string, pattern: string, limit: number): string[] {
  if (limit === 0) return [];
  const base = compileRe2(pattern);
  const re = new RegExp(base.source, base.flags.includes('g') ? base.flags : base.flags + 'g');
  const out: string[] = [];
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    out.push(m[0]);
    if (m[0] === '') re.lastIndex++;
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}
