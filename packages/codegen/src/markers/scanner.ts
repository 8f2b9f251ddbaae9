/**
 * The tokenizer for marker arguments. It reads the same tokens as Go's
 * `text/scanner` in the mode controller-tools parses markers with (identifiers,
 * integers, floats, "quoted" and `raw` strings; everything else one character at
 * a time), so that a marker written for controller-gen splits the same way here.
 */

export const EOF = 'EOF';
export type TokenKind = 'ident' | 'int' | 'float' | 'string' | 'rawstring' | 'char' | typeof EOF;

export interface Token {
  kind: TokenKind;
  /** The token's source text (quotes included for strings). */
  text: string;
  /** Offset of the token's first character in the scanned text. */
  offset: number;
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isLetter = (c: string): boolean => /[A-Za-z_]/.test(c) || c > '\x7f';
const isDigit = (c: string): boolean => c >= '0' && c <= '9';

/** An error found while parsing a marker, at an offset of its argument text. */
export class MarkerSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export class Scanner {
  private pos = 0;

  constructor(readonly text: string) {}

  /** The offset of the next unread character. */
  get offset(): number {
    return this.pos;
  }

  /** The next non-space character without consuming it ('' at the end). */
  peekNoSpace(): string {
    while (this.pos < this.text.length && isSpace(this.text[this.pos])) this.pos++;
    return this.text[this.pos] ?? '';
  }

  /** Reads the next token. */
  scan(): Token {
    this.peekNoSpace();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === undefined) return { kind: EOF, text: '', offset: start };
    if (isLetter(c)) {
      while (this.pos < this.text.length && (isLetter(this.text[this.pos]) || isDigit(this.text[this.pos]))) this.pos++;
      return this.token('ident', start);
    }
    if (isDigit(c) || (c === '.' && isDigit(this.text[this.pos + 1] ?? ''))) return this.number(start);
    if (c === '"') {
      this.pos++;
      while (this.pos < this.text.length && this.text[this.pos] !== '"') {
        if (this.text[this.pos] === '\\') this.pos++;
        this.pos++;
      }
      if (this.pos >= this.text.length) throw new MarkerSyntaxError('literal not terminated', start);
      this.pos++;
      return this.token('string', start);
    }
    if (c === '`') {
      const end = this.text.indexOf('`', this.pos + 1);
      if (end < 0) throw new MarkerSyntaxError('literal not terminated', start);
      this.pos = end + 1;
      return this.token('rawstring', start);
    }
    this.pos++;
    return this.token('char', start);
  }

  /** Reads a token that must be `expected` (a character, or a token kind). */
  expect(expected: string, what: string): Token {
    const tok = this.scan();
    const ok = tok.kind === 'char' ? tok.text === expected : tok.kind === expected;
    if (!ok) throw new MarkerSyntaxError(`expected ${what}, got ${JSON.stringify(tok.text)}`, tok.offset);
    return tok;
  }

  private number(start: number): Token {
    let kind: TokenKind = 'int';
    if (this.text.startsWith('0x', this.pos) || this.text.startsWith('0X', this.pos)) {
      this.pos += 2;
      while (/[0-9a-fA-F_]/.test(this.text[this.pos] ?? '')) this.pos++;
      return this.token(kind, start);
    }
    while (isDigit(this.text[this.pos] ?? '') || this.text[this.pos] === '_') this.pos++;
    if (this.text[this.pos] === '.') {
      kind = 'float';
      this.pos++;
      while (isDigit(this.text[this.pos] ?? '')) this.pos++;
    }
    if (/[eE]/.test(this.text[this.pos] ?? '')) {
      kind = 'float';
      this.pos++;
      if (/[+-]/.test(this.text[this.pos] ?? '')) this.pos++;
      while (isDigit(this.text[this.pos] ?? '')) this.pos++;
    }
    return this.token(kind, start);
  }

  private token(kind: TokenKind, start: number): Token {
    return { kind, text: this.text.slice(start, this.pos), offset: start };
  }
}

/** Unquotes a Go string literal ("..." with escapes, or `raw`). */
export function unquoteGo(tok: Token): string {
  if (tok.kind === 'rawstring') return tok.text.slice(1, -1).replace(/\r/g, '');
  const body = tok.text.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"', "'": "'" };
    if (e in simple) out += simple[e];
    else if (e === 'x' || e === 'u' || e === 'U') {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new MarkerSyntaxError('unable to parse string: invalid syntax', tok.offset);
      out += String.fromCodePoint(parseInt(hex, 16));
      i += len;
    } else if (e !== undefined && /[0-7]/.test(e)) {
      out += String.fromCharCode(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else throw new MarkerSyntaxError('unable to parse string: invalid syntax', tok.offset);
  }
  return out;
}
