/**
 * The Kubernetes CEL libraries that CRD validation rules use, registered on a
 * cel-js environment: the cel-go strings extension (v2: charAt, replace, format,
 * strings.quote; indexOf, lastIndexOf, lowerAscii, upperAscii, split, substring,
 * trim and join are cel-js built-ins), the sets extension, and Kubernetes' lists,
 * regex, URL, quantity, IP/CIDR and format libraries.
 */
import { Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { CelLibraryError } from './issues.js';
import { chargeCost, chargeTraversal, instrumentEvaluator } from './meter.js';
import { namedFormats, NamedFormat } from './named-formats.js';
import { CidrPrefix, IpAddress, NetError, parseCidr, parseIp } from './net.js';
import { Quantity, quantityFromInt } from './quantity.js';
import { re2Find, re2FindAll, re2Matches } from './regex.js';
import { charAt, formatWith, quoteString, replaceN } from './string-functions.js';
import { GoUrl, parseGoUrl, UrlError } from './url.js';
import { celCompare, celEqual, celListItems } from './values.js';

const sync = { async: false };
const maxInt64 = 2n ** 63n - 1n;
const minInt64 = -(2n ** 63n);

class FormatNamespace {}
class SetsNamespace {}
class StringsNamespace {}
class IpNamespace {}

function checkedInt(v: bigint): bigint {
  if (v > maxInt64 || v < minInt64) throw new CelLibraryError('integer overflow');
  return v;
}

function toUrl(s: string): GoUrl {
  chargeTraversal(s.length);
  try {
    parseGoUrl(s, true);
    return parseGoUrl(s, false);
  } catch (e) {
    if (e instanceof UrlError) throw new CelLibraryError(`URL parse error during conversion from string: ${e.message}`);
    throw e;
  }
}

function toQuantity(s: string): Quantity {
  chargeTraversal(s.length);
  try {
    return Quantity.parse(s);
  } catch (e) {
    throw new CelLibraryError((e as Error).message);
  }
}

function sumList(list: unknown, zero: unknown): unknown {
  const items = celListItems(list);
  chargeCost(items.length);
  let acc = zero;
  for (const x of items) {
    if (typeof acc === 'bigint' && typeof x === 'bigint') acc = checkedInt(acc + x);
    else if (typeof acc === 'number' && typeof x === 'number') acc = acc + x;
    else if (acc instanceof UnsignedInt && x instanceof UnsignedInt) acc = new UnsignedInt(acc.valueOf() + x.valueOf());
    else if (acc instanceof Duration && x instanceof Duration) acc = acc.addDuration(x);
    else if (typeof acc === 'bigint' && acc === 0n && (typeof x === 'number' || x instanceof Duration || x instanceof UnsignedInt)) acc = x;
    else throw new CelLibraryError('no such overload');
  }
  return acc;
}

function extreme(list: unknown, name: 'min' | 'max'): unknown {
  const items = celListItems(list);
  chargeCost(items.length);
  if (items.length === 0) throw new CelLibraryError(`${name} called on empty list`);
  let best = items[0];
  for (const x of items.slice(1)) {
    const c = celCompare(best, x);
    if (c === undefined) throw new CelLibraryError('no such overload');
    if ((name === 'min' && c > 0) || (name === 'max' && c < 0)) best = x;
  }
  return best;
}

function isSorted(list: unknown): boolean {
  const items = celListItems(list);
  chargeCost(items.length);
  for (let i = 1; i < items.length; i++) {
    const c = celCompare(items[i - 1], items[i]);
    if (c === undefined) throw new CelLibraryError('no such overload');
    if (c > 0) return false;
  }
  return true;
}

function indexOfItem(list: unknown, v: unknown, last: boolean): bigint {
  const items = celListItems(list);
  chargeCost(items.length);
  if (last) {
    for (let i = items.length - 1; i >= 0; i--) if (celEqual(items[i], v)) return BigInt(i);
  } else {
    for (let i = 0; i < items.length; i++) if (celEqual(items[i], v)) return BigInt(i);
  }
  return -1n;
}

function setsContains(a: unknown, b: unknown): boolean {
  const la = celListItems(a);
  const lb = celListItems(b);
  chargeCost(la.length * lb.length);
  return lb.every((y) => la.some((x) => celEqual(x, y)));
}

const comparable = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];
const summable: Array<[string, unknown]> = [
  ['int', 0n],
  ['uint', new UnsignedInt(0n)],
  ['double', 0],
  ['google.protobuf.Duration', new Duration(0n, 0)],
];

let probed: unknown;

function registerLibraries(env: Environment): void {
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown, sync);
  };

  fn('__operantProbe(): bool', function probe(this: unknown) {
    probed = this;
    return true;
  });

  // strings extension (version 2)
  fn('string.charAt(int): string', (s: string, i: bigint) => charAt(s, i));
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => replaceN(s, a, b, -1n));
  fn('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => replaceN(s, a, b, n));
  fn('string.format(list): string', (s: string, args: unknown) => formatWith(s, celListItems(args)));
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  fn('StringsNamespace.quote(string): string', (_ns: StringsNamespace, s: string) => {
    chargeTraversal(s.length);
    return quoteString(s);
  });

  // sets extension
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  fn('SetsNamespace.contains(list, list): bool', (_ns: SetsNamespace, a: unknown, b: unknown) => setsContains(a, b));
  fn('SetsNamespace.equivalent(list, list): bool', (_ns: SetsNamespace, a: unknown, b: unknown) => setsContains(a, b) && setsContains(b, a));
  fn('SetsNamespace.intersects(list, list): bool', (_ns: SetsNamespace, a: unknown, b: unknown) => {
    const la = celListItems(a);
    const lb = celListItems(b);
    chargeCost(la.length * lb.length);
    return la.some((x) => lb.some((y) => celEqual(x, y)));
  });

  // Kubernetes lists library
  for (const t of comparable) {
    fn(`list<${t}>.isSorted(): bool`, (l: unknown) => isSorted(l));
    fn(`list<${t}>.min(): ${t}`, (l: unknown) => extreme(l, 'min'));
    fn(`list<${t}>.max(): ${t}`, (l: unknown) => extreme(l, 'max'));
  }
  for (const [t, zero] of summable) fn(`list<${t}>.sum(): ${t}`, (l: unknown) => sumList(l, zero));
  fn('list<A>.indexOf(A): int', (l: unknown, v: unknown) => indexOfItem(l, v, false));
  fn('list<A>.lastIndexOf(A): int', (l: unknown, v: unknown) => indexOfItem(l, v, true));

  // Kubernetes regex library (RE2 syntax translated to JavaScript)
  const regexCall = <T>(s: string, re: string, f: () => T): T => {
    chargeCost(Math.ceil((s.length + 1) * 0.1) * Math.ceil(re.length * 0.25));
    try {
      return f();
    } catch (e) {
      throw new CelLibraryError((e as Error).message);
    }
  };
  fn('string.find(string): string', (s: string, re: string) => regexCall(s, re, () => re2Find(s, re)));
  fn('string.findAll(string): list<string>', (s: string, re: string) => regexCall(s, re, () => re2FindAll(s, re, -1)));
  fn('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => regexCall(s, re, () => re2FindAll(s, re, Number(n))));
  fn('matches(string, string): bool', (s: string, re: string) => regexCall(s, re, () => re2Matches(s, re)));

  // Kubernetes URL library
  env.registerType('kubernetes.URL', GoUrl);
  fn('url(string): kubernetes.URL', (s: string) => toUrl(s));
  fn('isURL(string): bool', (s: string) => {
    chargeTraversal(s.length);
    try {
      parseGoUrl(s, true);
      return true;
    } catch {
      return false;
    }
  });
  fn('kubernetes.URL.getScheme(): string', (u: GoUrl) => u.scheme);
  fn('kubernetes.URL.getHost(): string', (u: GoUrl) => u.host);
  fn('kubernetes.URL.getHostname(): string', (u: GoUrl) => u.hostname());
  fn('kubernetes.URL.getPort(): string', (u: GoUrl) => u.port());
  fn('kubernetes.URL.getEscapedPath(): string', (u: GoUrl) => u.escapedPath());
  fn('kubernetes.URL.getQuery(): map<string, list<string>>', (u: GoUrl) => u.query());
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: unknown, b: unknown) => celEqual(a, b));

  // Kubernetes quantity library
  env.registerType('kubernetes.Quantity', Quantity);
  const Q = 'kubernetes.Quantity';
  fn(`quantity(string): ${Q}`, (s: string) => toQuantity(s));
  fn('isQuantity(string): bool', (s: string) => {
    chargeTraversal(s.length);
    return Quantity.isValid(s);
  });
  fn(`sign(${Q}): int`, (q: Quantity) => BigInt(q.sign()));
  fn(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.sign()));
  fn(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) === 1);
  fn(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) === -1);
  fn(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compare(b)));
  fn(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
  fn(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
  fn(`${Q}.asInteger(): int`, (q: Quantity) => {
    const v = q.asInt64();
    if (v === undefined) throw new CelLibraryError('cannot convert value to integer');
    return v;
  });
  fn(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
  fn(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(quantityFromInt(b)));
  fn(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.sub(b));
  fn(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.sub(quantityFromInt(b)));
  env.registerOperator(`${Q} == ${Q}`, (a: unknown, b: unknown) => celEqual(a, b));

  // Kubernetes IP and CIDR libraries
  const net = <T>(s: string, f: () => T): T => {
    chargeTraversal(s.length);
    try {
      return f();
    } catch (e) {
      if (e instanceof NetError) throw new CelLibraryError(e.message);
      throw e;
    }
  };
  const valid = (f: () => unknown): boolean => {
    try {
      f();
      return true;
    } catch {
      return false;
    }
  };
  env.registerType('net.IP', IpAddress);
  env.registerType('net.CIDR', CidrPrefix);
  env.registerType('IpNamespace', IpNamespace);
  env.registerConstant('ip', 'IpNamespace', new IpNamespace());
  fn('ip(string): net.IP', (s: string) => net(s, () => parseIp(s)));
  fn('isIP(string): bool', (s: string) => net(s, () => valid(() => parseIp(s))));
  fn('IpNamespace.isCanonical(string): bool', (_ns: IpNamespace, s: string) => net(s, () => parseIp(s).toString() === s));
  fn('string(net.IP): string', (a: IpAddress) => a.toString());
  fn('net.IP.family(): int', (a: IpAddress) => BigInt(a.family));
  fn('net.IP.isUnspecified(): bool', (a: IpAddress) => a.isUnspecified());
  fn('net.IP.isLoopback(): bool', (a: IpAddress) => a.isLoopback());
  fn('net.IP.isLinkLocalMulticast(): bool', (a: IpAddress) => a.isLinkLocalMulticast());
  fn('net.IP.isLinkLocalUnicast(): bool', (a: IpAddress) => a.isLinkLocalUnicast());
  fn('net.IP.isGlobalUnicast(): bool', (a: IpAddress) => a.isGlobalUnicast());
  env.registerOperator('net.IP == net.IP', (a: unknown, b: unknown) => celEqual(a, b));
  fn('cidr(string): net.CIDR', (s: string) => net(s, () => parseCidr(s)));
  fn('isCIDR(string): bool', (s: string) => net(s, () => valid(() => parseCidr(s))));
  fn('string(net.CIDR): string', (c: CidrPrefix) => c.toString());
  fn('net.CIDR.containsIP(net.IP): bool', (c: CidrPrefix, a: IpAddress) => c.containsIp(a));
  fn('net.CIDR.containsIP(string): bool', (c: CidrPrefix, s: string) => net(s, () => c.containsIp(parseIp(s))));
  fn('net.CIDR.containsCIDR(net.CIDR): bool', (c: CidrPrefix, o: CidrPrefix) => c.containsCidr(o));
  fn('net.CIDR.containsCIDR(string): bool', (c: CidrPrefix, s: string) => net(s, () => c.containsCidr(parseCidr(s))));
  fn('net.CIDR.ip(): net.IP', (c: CidrPrefix) => c.address);
  fn('net.CIDR.masked(): net.CIDR', (c: CidrPrefix) => c.masked());
  fn('net.CIDR.prefixLength(): int', (c: CidrPrefix) => BigInt(c.bits));
  env.registerOperator('net.CIDR == net.CIDR', (a: unknown, b: unknown) => celEqual(a, b));

  // Kubernetes format library
  env.registerType('kubernetes.NamedFormat', NamedFormat);
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, f] of namedFormats) fn(`FormatNamespace.${name}(): kubernetes.NamedFormat`, () => f);
  fn('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_ns: FormatNamespace, name: string) => {
    const f = namedFormats.get(name);
    return f ? Optional.of(f) : Optional.none();
  });
  fn('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    chargeTraversal(s.length);
    const errs = f.check(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });
}

let library: Environment | undefined;

/** The shared environment with every library registered (frozen once cloned). */
export function libraryEnvironment(): Environment {
  if (!library) {
    library = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: true });
    registerLibraries(library);
  }
  return library;
}

/** Instruments `env`'s evaluator so that evaluation charges the active cost meter. */
export function instrumentEnvironment(env: Environment): void {
  probed = undefined;
  env.evaluate('__operantProbe()');
  if (probed && typeof probed === 'object' && 'run' in probed) instrumentEvaluator(probed as { run(a: unknown, c: unknown): unknown });
}
