/**
 * RE2 patterns (what CEL's `matches`, `find` and `findAll` take) run on JavaScript's
 * RegExp. The common RE2-only syntax is translated: leading flag groups such as
 * `(?i)`, `(?P<name>...)`, `\A`, `\z`, `\Q...\E`, POSIX classes like `[[:alpha:]]` and
 * `\pL`. Semantics that differ (backtracking instead of linear time, Unicode `\s`)
 * are not emulated; patterns are length-limited and compiled once.
 */

const cache = new Map<string, RegExp>();
const maxCached = 512;

const posixClasses: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Thrown when a pattern is not valid RE2 (or uses syntax JavaScript cannot express). */
export class RegexError extends Error {}

function escapeLiteral(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Translates an RE2 pattern into a JavaScript RegExp source and flags. */
export function translateRe2(pattern: string): { source: string; flags: string } {
  let flags = '';
  let rest = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(rest);
  if (lead) {
    for (const f of lead[1]) {
      if (f === 'U') throw new RegexError(`error parsing regexp: unsupported flag U in ${JSON.stringify(pattern)}`);
      if (!flags.includes(f)) flags += f;
    }
    rest = rest.slice(lead[0].length);
  }
  let out = '';
  let inClass = false;
  let unicode = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (c === '\\') {
      const n = rest[i + 1];
      if (n === undefined) throw new RegexError(`error parsing regexp: trailing backslash at end of expression: \`\``);
      if (n === 'Q') {
        const end = rest.indexOf('\\E', i + 2);
        const literal = end < 0 ? rest.slice(i + 2) : rest.slice(i + 2, end);
        out += escapeLiteral(literal);
        i = end < 0 ? rest.length : end + 1;
        continue;
      }
      if (!inClass && n === 'A') {
        out += '(?<![\\s\\S])';
        i++;
        continue;
      }
      if (!inClass && n === 'z') {
        out += '(?![\\s\\S])';
        i++;
        continue;
      }
      if (n === 'p' || n === 'P') {
        unicode = true;
        if (rest[i + 2] === '{') {
          const end = rest.indexOf('}', i + 3);
          if (end < 0) throw new RegexError(`error parsing regexp: invalid character class range: \`${rest.slice(i)}\``);
          const name = rest.slice(i + 3, end);
          out += `\\${n}{${/^(L|Lu|Ll|Lt|Lm|Lo|M|Mn|Mc|Me|N|Nd|Nl|No|P|Pc|Pd|Ps|Pe|Pi|Pf|Po|S|Sm|Sc|Sk|So|Z|Zs|Zl|Zp|C|Cc|Cf|Cs|Co|Cn)$/.test(name) ? name : `Script=${name}`}}`;
          i = end;
        } else {
          out += `\\${n}{${rest[i + 2]}}`;
          i += 2;
        }
        continue;
      }
      if (n === 'C') throw new RegexError('error parsing regexp: invalid escape sequence: `\\C`');
      out += c + n;
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && rest[i + 1] === ':') {
        const end = rest.indexOf(':]', i + 2);
        if (end > 0) {
          const name = rest.slice(i + 2, end);
          const negated = name.startsWith('^');
          const cls = posixClasses[negated ? name.slice(1) : name];
          if (!cls) throw new RegexError(`error parsing regexp: invalid character class range: \`[:${name}:]\``);
          if (negated) throw new RegexError(`error parsing regexp: negated POSIX classes are not supported: \`[:${name}:]\``);
          out += cls;
          i = end + 1;
          continue;
        }
      }
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (rest[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (rest[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && rest.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    if (c === '(' && /^\(\?[imsU-]+[:)]/.test(rest.slice(i))) {
      throw new RegexError(`error parsing regexp: inline flag groups are not supported here: ${JSON.stringify(pattern)}`);
    }
    out += c;
  }
  if (unicode) flags += 'u';
  return { source: out, flags };
}

/** Compiles (and caches) an RE2 pattern; throws `RegexError` with an RE2-like message when invalid. */
export function compileRe2(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const { source, flags } = translateRe2(pattern);
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    throw new RegexError(`error parsing regexp: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`);
  }
  if (cache.size >= maxCached) cache.clear();
  cache.set(pattern, re);
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
