/**
 * The string formats kube validates in custom resources: kube-openapi's strfmt
 * registry, restricted to the formats CRDs support (apiextensions' supported
 * formats). Other formats, int32 and int64 among them, are ignored, as kube ignores them.
 */
import { isIPv6 } from 'node:net';

/** Go's netutils.ParseIPSloppy for IPv4: four decimal fields up to 255, leading zeros allowed. */
function isSloppyIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,9}$/.test(p) && Number(p) <= 255);
}

function isGoIPv6(s: string): boolean {
  return !s.includes('%') && isIPv6(s);
}

function isIPv4(s: string): boolean {
  return s.includes('.') && (isSloppyIPv4(s) || isGoIPv6(s));
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,9}$/.test(bits)) return false;
  if (isSloppyIPv4(ip)) return Number(bits) <= 32;
  return isGoIPv6(ip) && Number(bits) <= 128;
}

/** Go's net.ParseMAC: 6, 8 or 20 octets as `aa:bb:..`, `aa-bb-..` or `aabb.ccdd.eeff`. */
function isMAC(s: string): boolean {
  if (s.length < 14) return false;
  const okCount = (n: number) => n === 6 || n === 8 || n === 20;
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0) return false;
    const n = (s.length + 1) / 3;
    if (!okCount(n)) return false;
    const sep = s[2];
    for (let i = 0; i < n; i++) {
      if (!/^[0-9a-fA-F]{2}$/.test(s.slice(3 * i, 3 * i + 2))) return false;
      if (i < n - 1 && s[3 * i + 2] !== sep) return false;
    }
    return true;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0) return false;
    const n = (2 * (s.length + 1)) / 5;
    if (!okCount(n)) return false;
    for (let i = 0; i < n / 2; i++) {
      if (!/^[0-9a-fA-F]{4}$/.test(s.slice(5 * i, 5 * i + 4))) return false;
      if (i < n / 2 - 1 && s[5 * i + 4] !== '.') return false;
    }
    return true;
  }
  return false;
}

/** Made at first use: V8 parses a regular expression as it makes it, and these Unicode classes cost about a millisecond of every start. */
let hostnameRe: RegExp | undefined;
const hostname = (): RegExp =>
  (hostnameRe ??= /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u);

function isHostname(s: string): boolean {
  if (!hostname().test(s)) return false;
  const enc = new TextEncoder();
  if (enc.encode(s).length > 255) return false;
  return s.split('.').every((p) => enc.encode(p).length <= 63);
}

const atext = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uFFFF]";
const dotAtom = `${atext}+(?:\\.${atext}+)*`;
const addrSpecRe = new RegExp(`^(?:${dotAtom}|"(?:[^"\\\\]|\\\\.)*")@(?:${dotAtom}|\\[[^\\[\\]\\\\]*\\])$`, 'u');

/** Go's net/mail.ParseAddress: `user@host`, optionally as `Name <user@host>`. */
function isEmail(s: string): boolean {
  let addr = s.trim();
  const m = /^(?:[^<]*)<([^<>]*)>$/.exec(addr);
  if (m) addr = m[1]!;
  return addrSpecRe.test(addr);
}

/** Go's url.ParseRequestURI: an absolute URI or an absolute path. */
function isRequestURI(s: string): boolean {
  if (s === '' || /[\x00-\x1f\x7f]/.test(s)) return false;
  if (s === '*') return true;
  let rest = s;
  let scheme = '';
  const sm = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
  if (sm) {
    scheme = sm[1]!;
    rest = s.slice(sm[0].length);
  } else if (s.startsWith(':')) {
    return false;
  }
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) return scheme !== '';
  if (scheme && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    if (host.startsWith('[')) {
      if (!/^\[[^\]]*\](:\d*)?$/.test(host)) return false;
    } else {
      const colon = host.lastIndexOf(':');
      if (colon >= 0 && !/^\d*$/.test(host.slice(colon + 1))) return false;
      if (/[\s<>"{}|\\^`]/.test(host)) return false;
    }
    rest = slash < 0 ? '' : rest.slice(slash);
  }
  return !/%(?![0-9a-fA-F]{2})/.test(rest);
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

const timeRe = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** strfmt.IsDateTime: `<date>T<time>` with a zone, compared leniently the way kube-openapi does. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = timeRe.exec(parts[1]!);
  return m !== null && m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

/** Go's time.ParseDuration: `300ms`, `-1.5h`, `2h45m`, `0`. */
function isGoDuration(s: string): boolean {
  if (s === '0' || s === '+0' || s === '-0') return true;
  const body = s.replace(/^[-+]/, '');
  if (body === '') return false;
  return /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/.test(body);
}

const durationUnits: string[][] = [
  ['ns', 'nano'],
  ['us', '\u00b5s', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** strfmt.ParseDuration: Go's syntax, or any `<n> <unit>` found in the text (Scala style). */
function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  let ok = false;
  for (const m of s.matchAll(/(((?:-\s?)?\d+)\s*([A-Za-z\u00b5]+))/g)) {
    const digits = m[2]!.replace(/^-/, '').trim();
    if (!/^\d+$/.test(digits) || digits.length > 18) return false;
    const unit = m[3]!.trim().toLowerCase();
    for (const variants of durationUnits) {
      variants.forEach((v, i) => {
        if ((i === variants.length - 1 && unit.startsWith(v)) || v.toLowerCase() === unit) ok = true;
      });
    }
  }
  return ok;
}

function isISBN10(s: string): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
  sum += d[9] === 'X' ? 100 : 10 * Number(d[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const d = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(d[i]);
  return Number(d[12]) - ((10 - (sum % 10)) % 10) === 0;
}

const creditCardRe =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]+/g, '');
  if (!creditCardRe.test(d)) return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      sum += n >= 10 ? (n % 10) + 1 : n;
    } else {
      sum += n;
    }
    double = !double;
  }
  return sum % 10 === 0;
}

const byte255 = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rgbRe = new RegExp(
  `^rgb\\([\\t\\n\\f\\r ]*${byte255}[\\t\\n\\f\\r ]*,[\\t\\n\\f\\r ]*${byte255}[\\t\\n\\f\\r ]*,[\\t\\n\\f\\r ]*${byte255}[\\t\\n\\f\\r ]*\\)$`,
);

const checkers: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: isIPv4,
  ipv6: (s) => s.includes(':') && isGoIPv6(s),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) => rgbRe.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/**
 * Whether kube validates `format` in custom resources. Names are compared as strfmt
 * does, without dashes (`date-time` is `datetime`).
 */
export function isSupportedFormat(format: string): boolean {
  return format !== '' && Object.hasOwn(checkers, format.replaceAll('-', ''));
}

/** Whether `value` is valid for a supported `format`; true for formats kube does not check. */
export function checkFormat(format: string, value: string): boolean {
  const name = format.replaceAll('-', '');
  return Object.hasOwn(checkers, name) ? checkers[name]!(value) : true;
}
