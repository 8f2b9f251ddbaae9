/**
 * Allocates Service cluster IPs from 10.96.0.0/12 and node ports from
 * 30000-32767, as kube's allocators do, skipping addresses in use.
 */
export class ClusterIpAllocator {
  private next = 10;
  private nextNodePort = 30000;

  /** `inUse` lists the cluster IPs and node ports already taken (read from storage when needed). */
  constructor(private readonly inUse: () => { ips: Set<string>; nodePorts: Set<number> }) {}

  allocate(): string {
    const used = this.inUse().ips;
    // 10.96.0.1 is the kubernetes Service's address; start above it.
    for (let tries = 0; tries < 1 << 20; tries++) {
      const n = this.next++;
      if (this.next >= 1 << 20) this.next = 10;
      const ip = `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
      if (!used.has(ip)) return ip;
    }
    throw new Error('range of cluster IPs is full');
  }

  allocateNodePort(): number {
    const used = this.inUse().nodePorts;
    for (let tries = 0; tries < 2768; tries++) {
      const p = this.nextNodePort++;
      if (this.nextNodePort > 32767) this.nextNodePort = 30000;
      if (!used.has(p)) return p;
    }
    throw new Error('range of node ports is full');
  }
}
