/**
 * A node's pod IPs, from its pod CIDR (a /24): the lowest free address from
 * .2 up, held by pod key until the pod is gone. Addresses already in pod
 * statuses (after a restart with --data-dir) are taken back as they are seen.
 */
export class IpPool {
  private readonly byKey = new Map<string, string>();
  private readonly used = new Set<string>();
  /** Every host number below this one is used: a search for the lowest free one starts here, not at .2 each time. */
  private lowestFree = 2;

  /** `prefix` is the CIDR's first three octets with a dot: `10.244.1.`. */
  constructor(private readonly prefix: string) {}

  /** The pod's address: the one it has (kept), or the one it was given, or a new one. */
  ensure(key: string, current: string | undefined): string {
    const held = this.byKey.get(key);
    if (held && (!current || current === held)) return held;
    if (current && current.startsWith(this.prefix)) {
      if (held) this.release(key);
      this.byKey.set(key, current);
      this.used.add(current);
      return current;
    }
    for (let host = this.lowestFree; host < 255; host++) {
      const ip = `${this.prefix}${host}`;
      if (this.used.has(ip)) continue;
      this.byKey.set(key, ip);
      this.used.add(ip);
      this.lowestFree = host + 1;
      return ip;
    }
    throw new Error(`no pod IP left in ${this.prefix}0/24`);
  }

  /**
   * Takes `ip` back as `key`'s when it is from this pool and `key` holds none:
   * an address a pod's status records, seen before the pod's own sync (after
   * a restart), so that no new pod is handed it meanwhile.
   */
  adopt(key: string, ip: string | undefined): void {
    if (ip === undefined || !ip.startsWith(this.prefix) || this.byKey.has(key)) return;
    this.byKey.set(key, ip);
    this.used.add(ip);
  }

  release(key: string): void {
    const ip = this.byKey.get(key);
    if (ip === undefined) return;
    this.byKey.delete(key);
    this.used.delete(ip);
    const host = Number(ip.slice(this.prefix.length));
    if (ip.startsWith(this.prefix) && Number.isInteger(host) && host >= 2) this.lowestFree = Math.min(this.lowestFree, host);
  }
}
