/**
 * A node's pod IPs, from its pod CIDR (a /24): the lowest free address from
 * .2 up, held by pod key until the pod is gone. Addresses already in pod
 * statuses (after a restart with --data-dir) are taken back as they are seen.
 *
 * An address is held by one pod at a time, as kube's host-local IPAM records
 * one container per address. Statuses written before that held (a data dir
 * from an older version) can record one address for two pods: the first to
 * take it back keeps it, and the other is given a new one at its sync, as a
 * pod whose sandbox is made anew gets a new address.
 */
export class IpPool {
  private readonly byKey = new Map<string, string>();
  /** Each address handed out, and the pod key holding it. */
  private readonly holders = new Map<string, string>();
  /** Every host number below this one is used: a search for the lowest free one starts here, not at .2 each time. */
  private lowestFree = 2;

  /** `prefix` is the CIDR's first three octets with a dot: `10.244.1.`. */
  constructor(private readonly prefix: string) {}

  /** The pod's address: the one it has (kept, unless another pod holds it), or the one it was given, or a new one. */
  ensure(key: string, current: string | undefined): string {
    const held = this.byKey.get(key);
    if (held && (!current || current === held)) return held;
    if (current && this.adopt(key, current, true)) return current;
    if (held) return held;
    for (let host = this.lowestFree; host < 255; host++) {
      const ip = `${this.prefix}${host}`;
      if (this.holders.has(ip)) continue;
      this.hold(key, ip);
      this.lowestFree = host + 1;
      return ip;
    }
    throw new Error(`no pod IP left in ${this.prefix}0/24`);
  }

  /**
   * Takes `ip` back as `key`'s when it is from this pool and no other pod holds
   * it: an address a pod's status records, seen before the pod's own sync
   * (after a restart), so that no new pod is handed it meanwhile. A key that
   * holds one keeps it unless `replace`. Whether `key` now holds `ip`.
   */
  adopt(key: string, ip: string | undefined, replace = false): boolean {
    if (ip === undefined || !ip.startsWith(this.prefix)) return false;
    const holder = this.holders.get(ip);
    if (holder !== undefined) return holder === key;
    if (this.byKey.has(key)) {
      if (!replace) return false;
      this.release(key);
    }
    this.hold(key, ip);
    return true;
  }

  release(key: string): void {
    const ip = this.byKey.get(key);
    if (ip === undefined) return;
    this.byKey.delete(key);
    this.holders.delete(ip);
    const host = Number(ip.slice(this.prefix.length));
    if (ip.startsWith(this.prefix) && Number.isInteger(host) && host >= 2) this.lowestFree = Math.min(this.lowestFree, host);
  }

  private hold(key: string, ip: string): void {
    this.byKey.set(key, ip);
    this.holders.set(ip, key);
  }
}
