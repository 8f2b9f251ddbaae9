/** kube-apiserver's default --service-node-port-range. */
export const nodePortRange = { min: 30000, max: 32767 } as const;

/**
 * Allocates Service cluster IPs from 10.96.0.0/12 and node ports from
 * 30000-32767, as kube's allocators do, skipping addresses in use.
 */
export class ClusterIpAllocator {
  private next = 10;
  private nextPort: number = nodePortRange.min;
  /** Node ports taken by writes not yet stored: kube's allocator holds a port from the moment it is taken. */
  private readonly heldNodePorts = new Set<number>();

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

  /** The node ports the stored Services hold, and those writes in flight hold. */
  nodePortsInUse(): Set<number> {
    const used = this.inUse().nodePorts;
    for (const port of this.heldNodePorts) used.add(port);
    return used;
  }

  /**
   * Holds node ports a write has taken (none of them in use) until the returned
   * function is called: once the Service that names them is stored, which holds
   * them from then on, or the write failed, which frees them.
   */
  holdNodePorts(ports: readonly number[]): () => void {
    for (const port of ports) this.heldNodePorts.add(port);
    return () => {
      for (const port of ports) this.heldNodePorts.delete(port);
    };
  }

  /**
   * The next node port not in `taken`, going round the range from where the
   * last one was found (a port given back is not given again at once);
   * undefined when every port is taken.
   */
  nextNodePort(taken: ReadonlySet<number>): number | undefined {
    for (let tries = 0; tries <= nodePortRange.max - nodePortRange.min; tries++) {
      const port = this.nextPort++;
      if (this.nextPort > nodePortRange.max) this.nextPort = nodePortRange.min;
      if (!taken.has(port)) return port;
    }
    return undefined;
  }
}
