/**
 * IP addresses and CIDR prefixes for the Kubernetes CEL `ip` and `cidr` libraries,
 * parsed as Go's `net/netip` does (no leading zeros in IPv4 octets, no zones, no
 * IPv4-mapped IPv6) and printed in canonical form (RFC 5952 for IPv6).
 */

/** Thrown for unparseable addresses; the message is kube's. */
export class NetError extends Error {}

/** An IPv4 or IPv6 address. */
export class IpAddress {
  constructor(readonly bytes: Uint8Array) {}

  /** 4 or 6. */
  get family(): number {
    return this.bytes.length === 4 ? 4 : 6;
  }

  /** The canonical text form. */
  toString(): string {
    const b = this.bytes;
    if (b.length === 4) return b.join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((b[i] << 8) | b[i + 1]);
    let bestStart = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (bestStart < 0) return hex.join(':');
    return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
  }

  /** `0.0.0.0` or `::`. */
  isUnspecified(): boolean {
    return this.bytes.every((x) => x === 0);
  }

  /** `127.x.x.x` or `::1`. */
  isLoopback(): boolean {
    const b = this.bytes;
    return b.length === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  }

  /** `224.0.0.x` or `ff02::/16`. */
  isLinkLocalMulticast(): boolean {
    const b = this.bytes;
    return b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02;
  }

  /** `169.254.x.x` or `fe80::/10`. */
  isLinkLocalUnicast(): boolean {
    const b = this.bytes;
    return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80;
  }

  /** `224.0.0.0/4` or `ff00::/8`. */
  isMulticast(): boolean {
    const b = this.bytes;
    return b.length === 4 ? (b[0] & 0xf0) === 0xe0 : b[0] === 0xff;
  }

  /** Go's `IsGlobalUnicast`. */
  isGlobalUnicast(): boolean {
    const b = this.bytes;
    if (b.length === 4 && b.every((x) => x === 255)) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }

  /** Same family and bytes. */
  equals(other: IpAddress): boolean {
    return this.bytes.length === other.bytes.length && this.bytes.every((x, i) => x === other.bytes[i]);
  }
}

/** A CIDR prefix: an address and a prefix length. */
export class CidrPrefix {
  constructor(
    readonly address: IpAddress,
    readonly bits: number,
  ) {}

  /** The prefix with the host bits cleared. */
  masked(): CidrPrefix {
    const bytes = new Uint8Array(this.address.bytes);
    for (let i = 0; i < bytes.length; i++) {
      const keep = Math.max(0, Math.min(8, this.bits - i * 8));
      bytes[i] &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    }
    return new CidrPrefix(new IpAddress(bytes), this.bits);
  }

  /** Whether `ip` is in this prefix. */
  containsIp(ip: IpAddress): boolean {
    if (ip.bytes.length !== this.address.bytes.length) return false;
    return new CidrPrefix(ip, this.bits).masked().address.equals(this.masked().address);
  }

  /** Whether `other` lies entirely within this prefix. */
  containsCidr(other: CidrPrefix): boolean {
    return other.bits >= this.bits && this.containsIp(other.address);
  }

  /** `address/bits`, the address in canonical form. */
  toString(): string {
    return `${this.address.toString()}/${this.bits}`;
  }

  /** Same address and prefix length. */
  equals(other: CidrPrefix): boolean {
    return this.bits === other.bits && this.address.equals(other.address);
  }
}

function parseIpv4(s: string): Uint8Array | string {
  const parts = s.split('.');
  if (parts.length !== 4) return 'IPv4 address too short';
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^[0-9]{1,3}$/.test(p)) return p === '' ? 'IPv4 field must have at least one digit' : 'unexpected character';
    if (p.length > 1 && p[0] === '0') return 'IPv4 field has octet with leading zero';
    const v = Number(p);
    if (v > 255) return 'IPv4 field has value >255';
    out[i] = v;
  }
  return out;
}

function parseIpv6(s: string): Uint8Array | string {
  let text = s;
  let tail: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (typeof v4 === 'string') return v4;
    tail = v4;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return 'multiple :: in address';
  const parse = (h: string): number[] | string => {
    if (h === '') return [];
    const groups: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return g.length > 4 ? 'IPv6 field has value >=2^16' : 'each colon-separated field must have at least one digit';
      groups.push(parseInt(g, 16));
    }
    return groups;
  };
  const head = parse(halves[0]);
  if (typeof head === 'string') return head;
  let groups: number[];
  if (halves.length === 2) {
    const rest = parse(halves[1]);
    if (typeof rest === 'string') return rest;
    if (head.length + rest.length > 7) return 'address string too long';
    groups = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  } else {
    if (head.length !== 8) return 'address string too short';
    groups = head;
  }
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (tail) out.set(tail, 12);
  return out;
}

/** Parses an address as kube's `ip()` does, throwing kube's message. */
export function parseIp(raw: string): IpAddress {
  if (raw.includes('%')) throw new NetError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  const bytes = raw.includes(':') ? parseIpv6(raw) : parseIpv4(raw);
  if (typeof bytes === 'string') {
    throw new NetError(`IP Address ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): ${bytes}`);
  }
  if (bytes.length === 16 && bytes.slice(0, 10).every((x) => x === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    throw new NetError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  }
  return new IpAddress(bytes);
}

/** Parses a prefix as kube's `cidr()` does, throwing kube's message. */
export function parseCidr(raw: string): CidrPrefix {
  const slash = raw.indexOf('/');
  const fail = (why: string): never => {
    throw new NetError(`network address ${JSON.stringify(raw)} parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ${why}`);
  };
  if (slash < 0) fail('no \'/\'');
  const addrText = raw.slice(0, slash);
  const bitsText = raw.slice(slash + 1);
  if (addrText.includes('%')) throw new NetError(`CIDR ${JSON.stringify(raw)} with zone value is not allowed`);
  let ip: IpAddress;
  try {
    ip = parseIp(addrText);
  } catch (e) {
    if (/IPv4-mapped/.test((e as Error).message)) throw new NetError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
    return fail(`ParseAddr(${JSON.stringify(addrText)}): invalid address`);
  }
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > ip.bytes.length * 8) fail(`prefix length out of range`);
  return new CidrPrefix(ip, bits);
}
