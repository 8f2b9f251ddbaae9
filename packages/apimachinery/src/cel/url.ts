/**
 * URL parsing as Go's `net/url` does it (`Parse` and `ParseRequestURI`), for the
 * Kubernetes CEL `url()` / `isURL()` library and the `uri` format. Error texts
 * follow Go's (`parse "x": invalid URI for request`).
 */

/** The parts of a parsed URL the CEL library exposes. */
export class GoUrl {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly rawPath: string,
    readonly rawQuery: string,
    readonly opaque: string,
  ) {}

  /** The host without port and without IPv6 brackets. */
  hostname(): string {
    const [host] = splitHostPort(this.host);
    return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  }

  /** The port, or `''`. */
  port(): string {
    return splitHostPort(this.host)[1];
  }

  /** The path, percent-escaped. */
  escapedPath(): string {
    if (this.rawPath !== '' && validEncoded(this.rawPath) && safeUnescape(this.rawPath) === this.path) return this.rawPath;
    if (this.path === '*') return '*';
    return escape(this.path, 'path');
  }

  /** The query in "matrix" form, unescaped; malformed pairs are skipped as Go does. */
  query(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const part of this.rawQuery.split('&')) {
      if (part === '' || part.includes(';')) continue;
      const eq = part.indexOf('=');
      const rawKey = eq < 0 ? part : part.slice(0, eq);
      const rawValue = eq < 0 ? '' : part.slice(eq + 1);
      const key = safeUnescape(rawKey.replaceAll('+', ' '));
      const value = safeUnescape(rawValue.replaceAll('+', ' '));
      if (key === undefined || value === undefined) continue;
      const list = out.get(key);
      if (list) list.push(value);
      else out.set(key, [value]);
    }
    return out;
  }
}

/** Thrown for unparseable URLs; the message is Go's `*url.Error` text. */
export class UrlError extends Error {}

function splitHostPort(hostport: string): [string, string] {
  const colon = hostport.lastIndexOf(':');
  if (colon < 0 || hostport.slice(colon).includes(']')) return [hostport, ''];
  const port = hostport.slice(colon + 1);
  return /^[0-9]*$/.test(port) ? [hostport.slice(0, colon), port] : [hostport, ''];
}

function fail(raw: string, detail: string): never {
  throw new UrlError(`parse ${JSON.stringify(raw)}: ${detail}`);
}

const unreserved = /[A-Za-z0-9\-_.~]/;

function shouldEscape(c: string, mode: 'path' | 'host'): boolean {
  if (unreserved.test(c)) return false;
  if (mode === 'host') return !"!$&'()*+,;=:[]<>\"".includes(c);
  return !'$&+,/:;=@'.includes(c);
}

function escape(s: string, mode: 'path' | 'host'): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && !shouldEscape(c, mode) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (shouldEscape(c, 'path')) return false;
  }
  return true;
}

/** Percent-decodes; `undefined` when an escape is malformed. */
function safeUnescape(s: string): string | undefined {
  if (!s.includes('%')) return s;
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...enc.encode(s[i]));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function unescapeOrFail(raw: string, s: string): string {
  const v = safeUnescape(s);
  if (v === undefined) {
    const bad = /%.{0,2}/.exec(s.slice(s.search(/%(?![0-9a-fA-F]{2})/)))?.[0] ?? '%';
    fail(raw, `invalid URL escape ${JSON.stringify(bad)}`);
  }
  return v;
}

function parseHost(raw: string, host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) fail(raw, "missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!/^(:[0-9]*)?$/.test(colonPort)) fail(raw, `invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) {
      const colonPort = host.slice(colon);
      if (!/^:[0-9]*$/.test(colonPort)) fail(raw, `invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  for (const c of host) {
    if (c === '%') continue;
    if (c.charCodeAt(0) < 0x80 && shouldEscape(c, 'host')) fail(raw, `invalid character ${JSON.stringify(c)} in host name`);
  }
  return unescapeOrFail(raw, host);
}

/**
 * Parses like Go: `viaRequest` selects `ParseRequestURI` (absolute URI or absolute path,
 * no fragment handling) over `Parse`.
 */
export function parseGoUrl(raw: string, viaRequest: boolean): GoUrl {
  if (/[\x00-\x1f\x7f]/.test(raw)) fail(raw, 'net/url: invalid control character in URL');
  let rest = raw;
  if (!viaRequest) {
    const hash = rest.indexOf('#');
    if (hash >= 0) rest = rest.slice(0, hash);
  }
  if (rest === '' && viaRequest) fail(raw, 'empty url');
  if (rest === '*') return new GoUrl('', '', '*', '', '', '');

  let scheme = '';
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) fail(raw, 'missing protocol scheme');
      scheme = rest.slice(0, i).toLowerCase();
      rest = rest.slice(i + 1);
    }
    break;
  }

  let rawQuery = '';
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }

  if (!rest.startsWith('/')) {
    if (scheme !== '') return new GoUrl(scheme, '', '', '', rawQuery, rest);
    if (viaRequest) fail(raw, 'invalid URI for request');
    const slash = rest.indexOf('/');
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(':')) fail(raw, 'first path segment in URL cannot contain colon');
  }

  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const afterSlashes = rest.slice(2);
    const slash = afterSlashes.indexOf('/');
    const authority = slash < 0 ? afterSlashes : afterSlashes.slice(0, slash);
    rest = slash < 0 ? '' : afterSlashes.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0 && !/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, at))) fail(raw, 'net/url: invalid userinfo');
    host = parseHost(raw, at < 0 ? authority : authority.slice(at + 1));
  }
  const path = unescapeOrFail(raw, rest);
  const rawPath = escape(path, 'path') === rest ? '' : rest;
  return new GoUrl(scheme, host, path, rawPath, rawQuery, '');
}
