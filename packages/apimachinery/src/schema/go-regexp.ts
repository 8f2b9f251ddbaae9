/**
 * CRD `pattern`s are Go (RE2) regular expressions. This translates the RE2 syntax that
 * JavaScript spells differently, rejects what RE2 rejects (lookaround, backreferences),
 * and words compile errors the way Go's regexp/syntax does.
 */

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

/** Characters a JS `u` regexp accepts escaped outside a class. */
const jsSyntax = new Set([...'^$\\.*+?()[]{}|/']);
const repetition = new Set(['*', '+', '?']);

class GoSyntaxError extends Error {}

function fail(code: string, expr: string): never {
  throw new GoSyntaxError(`error parsing regexp: ${code}: \`${expr}\``);
}

/** Reads `{n}`, `{n,}` or `{n,m}` at `i`; returns its length, or 0 when `{` is a literal (as in RE2). */
function repeatLength(p: string, i: number): number {
  const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
  return m ? m[0].length : 0;
}

interface Translation {
  source: string;
  flags: string;
}

function translate(pattern: string): Translation {
  let flags = '';
  let p = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(p);
  if (lead) {
    for (const f of lead[1]!) if ('ims'.includes(f) && !flags.includes(f)) flags += f;
    p = p.slice(lead[0].length);
  }
  let out = '';
  let depth = 0;
  // What the previous token was, to find repetitions without an argument.
  let prev: 'start' | 'atom' | 'repeat' = 'start';
  let prevRepeat = '';
  for (let i = 0; i < p.length; ) {
    const ch = p[i]!;
    if (ch === '\\') {
      const next = p[i + 1];
      if (next === undefined) fail('trailing backslash at end of expression', '');
      if (next === 'A') out += '^';
      else if (next === 'z') out += '(?![\\s\\S])';
      else if (next === 'a') out += '\\x07';
      else if (/[1-9]/.test(next)) fail('invalid escape sequence', `\\${next}`);
      else if ((next === 'p' || next === 'P') && p[i + 2] !== '{' && p[i + 2] !== undefined) {
        out += `\\${next}{${p[i + 2]}}`;
        i += 3;
        prev = 'atom';
        continue;
      } else if (next === 'Q') {
        const end = p.indexOf('\\E', i + 2);
        const lit = end < 0 ? p.slice(i + 2) : p.slice(i + 2, end);
        out += lit.replace(/[\^$\\.*+?()[\]{}|/-]/g, '\\$&');
        i = end < 0 ? p.length : end + 2;
        prev = 'atom';
        continue;
      } else if (/[A-Za-z0-9]/.test(next) || jsSyntax.has(next)) out += `\\${next}`;
      else out += next === '-' ? '\\x2d' : next;
      i += 2;
      prev = 'atom';
      continue;
    }
    if (ch === '[') {
      const start = i;
      let j = i + 1;
      let cls = '[';
      if (p[j] === '^') {
        cls += '^';
        j++;
      }
      // A `]` first in the class is a literal.
      if (p[j] === ']') {
        cls += '\\]';
        j++;
      }
      let closed = false;
      while (j < p.length) {
        const c = p[j]!;
        if (c === ']') {
          closed = true;
          j++;
          break;
        }
        if (c === '[' && p[j + 1] === ':') {
          const m = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(j));
          if (m && posixClasses[m[2]!] !== undefined && m[1] === '') {
            cls += posixClasses[m[2]!];
            j += m[0].length;
            continue;
          }
        }
        if (c === '\\') {
          const n = p[j + 1];
          if (n === undefined) break;
          if ((n === 'p' || n === 'P') && p[j + 2] !== '{') {
            cls += `\\${n}{${p[j + 2] ?? ''}}`;
            j += 3;
          } else if (/[A-Za-z0-9]/.test(n) || jsSyntax.has(n) || n === '-') {
            cls += n === 'a' ? '\\x07' : `\\${n}`;
            j += 2;
          } else {
            cls += n;
            j += 2;
          }
          continue;
        }
        if (c === '-' && cls.length > 1 && p[j + 1] === '\\' && (p[j + 2] === 'p' || p[j + 2] === 'P')) {
          // RE2 reads `9-\p{L}` as `9`, `-`, `\p{L}`; JS would see a bad range.
          cls += '\\-';
          j++;
          continue;
        }
        if (c === '[' || c === '/') {
          cls += `\\${c}`;
          j++;
          continue;
        }
        cls += c;
        j++;
      }
      if (!closed) fail('missing closing ]', p.slice(start));
      out += `${cls}]`;
      i = j;
      prev = 'atom';
      continue;
    }
    if (ch === '(') {
      if (p[i + 1] === '?') {
        const rest = p.slice(i);
        const named = /^\(\?P?<([A-Za-z0-9_]+)>/.exec(rest);
        if (named) {
          out += `(?<${named[1]}>`;
          i += named[0].length;
        } else if (rest.startsWith('(?:')) {
          out += '(?:';
          i += 3;
        } else {
          const fl = /^\(\?([imsU-]*)(:|\))/.exec(rest);
          if (!fl) {
            if (rest.startsWith('(?<') || rest.startsWith('(?P<')) {
              const end = rest.indexOf('>');
              fail('invalid named capture', end < 0 ? rest : rest.slice(0, end + 1));
            }
            fail('invalid or unsupported Perl syntax', rest.slice(0, 3));
          }
          // Flag groups inside the pattern: JS (Node 20) has no modifiers, so the
          // case-insensitive flag applies to the whole pattern, an approximation.
          if (fl[1]!.includes('i') && !fl[1]!.startsWith('-') && !flags.includes('i')) flags += 'i';
          if (fl[2] === ')') {
            i += fl[0].length;
            continue;
          }
          out += '(?:';
          i += fl[0].length;
        }
      } else {
        out += '(';
        i++;
      }
      depth++;
      prev = 'start';
      continue;
    }
    if (ch === ')') {
      if (depth === 0) fail('unexpected )', pattern);
      depth--;
      out += ')';
      i++;
      prev = 'atom';
      continue;
    }
    if (ch === '|') {
      out += '|';
      i++;
      prev = 'start';
      continue;
    }
    const repLen = repetition.has(ch) ? 1 : ch === '{' ? repeatLength(p, i) : 0;
    if (repLen > 0) {
      let op = p.slice(i, i + repLen);
      if (p[i + repLen] === '?') op += '?';
      if (prev === 'start') fail('missing argument to repetition operator', op);
      if (prev === 'repeat') fail('invalid nested repetition operator', prevRepeat + op);
      out += op;
      i += op.length;
      prev = 'repeat';
      prevRepeat = op;
      continue;
    }
    if (ch === '{') {
      out += '\\{';
      i++;
      prev = 'atom';
      continue;
    }
    if (ch === '}' || ch === '/') {
      out += `\\${ch}`;
      i++;
      prev = 'atom';
      continue;
    }
    out += ch;
    i++;
    prev = 'atom';
  }
  if (depth > 0) fail('missing closing )', pattern);
  return { source: out, flags };
}

const cache = new Map<string, RegExp | string>();
const cacheLimit = 2048;

/**
 * Compiles a Go regular expression. Returns the RegExp, or Go's error text, e.g.
 * ``error parsing regexp: missing argument to repetition operator: `+` ``.
 */
export function compileGoRegexp(pattern: string): RegExp | string {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let result: RegExp | string;
  try {
    const { source, flags } = translate(pattern);
    try {
      result = new RegExp(source, `${flags}u`);
    } catch {
      result = new RegExp(source, flags);
    }
  } catch (e) {
    result = e instanceof GoSyntaxError ? e.message : `error parsing regexp: ${(e as Error).message}`;
  }
  if (cache.size >= cacheLimit) cache.clear();
  cache.set(pattern, result);
  return result;
}
