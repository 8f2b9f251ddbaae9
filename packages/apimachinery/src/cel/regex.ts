/**
 * RE2 patterns for CEL's `matches`, `find` and `findAll`, on the same
 * linear-time Go regexp engine as CRD `pattern`s.
 */
import { compileGoRegexp, type GoRegexp } from '../schema/go-regexp.js';

/** Thrown when a pattern is not valid RE2. */
export class RegexError extends Error {}

/** Compiles (and caches) an RE2 pattern; throws `RegexError` with Go's message when invalid. */
export function compileRe2(pattern: string): GoRegexp {
  const re = compileGoRegexp(pattern);
  if (typeof re === 'string') throw new RegexError(re);
  return re;
}

/** Whether `pattern` matches anywhere in `s` (the CEL `matches` function). */
export function re2Matches(s: string, pattern: string): boolean {
  return compileRe2(pattern).test(s);
}

/** The first match, or `''` (the CEL `find` function). */
export function re2Find(s: string, pattern: string): string {
  return compileRe2(pattern).find(s) ?? '';
}

/** Up to `limit` matches (all when negative), as the CEL `findAll` function. */
export function re2FindAll(s: string, pattern: string, limit: number): string[] {
  return compileRe2(pattern).findAll(s, limit);
}
