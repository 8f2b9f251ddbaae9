/**
 * kube's Service allocators (the Allocators of pkg/registry/core/service/storage/alloc.go):
 * cluster IPs from the service CIDR (kube-apiserver's default --service-cluster-ip-range
 * is ours, 10.96.0.0/12) and node ports from 30000-32767. What stored Services hold is read
 * from storage when needed, so a restart on a data dir finds every address in use, as kube's
 * repair loops rebuild its bitmaps from the stored Services. What a write in flight took is
 * held here, from the registry's beginCreate/beginUpdate until the write is stored (the
 * stored Service holds it from then on) or has failed (it is free again): kube's allocator
 * transaction, committed or reverted.
 */
import type { EndHold } from './strategy.js';

/** kube-apiserver's default --service-node-port-range. */
export const nodePortRange = { min: 30000, max: 32767 } as const;

/** The service CIDR the embedded server allocates from: the `kubernetes` Service has its first address. */
export const defaultServiceCidr = '10.96.0.0/12';

/** What the stored Services hold. */
export interface AllocatedInStorage {
  ips: Set<string>;
  nodePorts: Set<number>;
}

/** What one write took. */
export interface Taken {
  ips?: readonly string[];
  nodePorts?: readonly number[];
}

/**
 * An IPv4 service CIDR as kube's bitmap allocator (ipallocator.Range) sees it:
 * every address but the network and broadcast ones, numbered from 0; dynamic
 * allocation prefers the addresses above an offset (KEP-3070: the lower
 * band is left to Services that ask for an address, such as a DNS Service's 10.96.0.10).
 */
export class ServiceCidr {
  /** The network address, as a number. */
  private readonly network: number;
  /** How many addresses may be allocated. */
  readonly size: number;
  /** The first offset of the band dynamic allocation takes from first (kube's calculateRangeOffset). */
  readonly dynamicFrom: number;

  constructor(readonly cidr: string) {
    const [address, bits] = cidr.split('/');
    const base = parseIpv4(address);
    const prefix = Number(bits);
    if (base === undefined || !Number.isInteger(prefix) || prefix < 1 || prefix > 30) throw new Error(`invalid service CIDR ${cidr}`);
    const total = 2 ** (32 - prefix);
    this.network = base - (base % total);
    this.size = total - 2;
    this.dynamicFrom = total <= 16 ? 0 : Math.min(Math.max(16, total / 16), 256);
  }

  /** The range's network address, which kube's dry-run allocator answers instead of looking for a free one. */
  get networkAddress(): string {
    return formatIpv4(this.network);
  }

  /** The offset of `ip` in the range; undefined when it is not an allocatable address of it. */
  offsetOf(ip: string): number | undefined {
    const n = parseIpv4(ip);
    if (n === undefined) return undefined;
    const offset = n - this.network - 1;
    return offset >= 0 && offset < this.size ? offset : undefined;
  }

  addressAt(offset: number): string {
    return formatIpv4(this.network + 1 + offset);
  }
}

/** A dotted-quad IPv4 address as a number; undefined for anything else. */
export function parseIpv4(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    n = n * 256 + Number(part);
  }
  return n;
}

function formatIpv4(n: number): string {
  return `${Math.floor(n / 2 ** 24) % 256}.${Math.floor(n / 2 ** 16) % 256}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

export class ClusterIpAllocator {
  readonly serviceCidr: ServiceCidr;
  private nextIpOffset: number;
  private nextPort: number = nodePortRange.min;
  /** What writes not yet stored took: kube's allocators hold a value from the moment it is taken. */
  private readonly heldIps = new Set<string>();
  private readonly heldNodePorts = new Set<number>();

  /** `inStorage` lists what the stored Services hold (read from storage when needed). */
  constructor(
    private readonly inStorage: () => AllocatedInStorage,
    serviceCidr = defaultServiceCidr,
  ) {
    this.serviceCidr = new ServiceCidr(serviceCidr);
    this.nextIpOffset = this.serviceCidr.dynamicFrom;
  }

  /** The address kube-apiserver gives its own `kubernetes` Service: the range's first. */
  get kubernetesServiceIp(): string {
    return this.serviceCidr.addressAt(0);
  }

  /**
   * The cluster IPs and node ports the stored Services hold, those writes in
   * flight hold, and the `kubernetes` Service's address, which stays reserved
   * for it even while it is not stored.
   */
  inUse(): AllocatedInStorage {
    const used = this.inStorage();
    used.ips.add(this.kubernetesServiceIp);
    for (const ip of this.heldIps) used.ips.add(ip);
    for (const port of this.heldNodePorts) used.nodePorts.add(port);
    return used;
  }

  /**
   * Holds what a write has taken (none of it in use) until the returned
   * function is called: once the Service that names it is stored, which holds
   * it from then on, or the write failed, which frees it.
   */
  hold({ ips = [], nodePorts = [] }: Taken): EndHold {
    for (const ip of ips) this.heldIps.add(ip);
    for (const port of nodePorts) this.heldNodePorts.add(port);
    return () => {
      for (const ip of ips) this.heldIps.delete(ip);
      for (const port of nodePorts) this.heldNodePorts.delete(port);
    };
  }

  /**
   * The next cluster IP not in `taken`: from the dynamic band, going round it
   * from where the last one was found (an address given back is not given again
   * at once), then from the lower band; undefined when every address is taken.
   */
  nextIp(taken: ReadonlySet<string>): string | undefined {
    const { size, dynamicFrom } = this.serviceCidr;
    const band = size - dynamicFrom;
    for (let tries = 0; tries < band; tries++) {
      const offset = this.nextIpOffset++;
      if (this.nextIpOffset >= size) this.nextIpOffset = dynamicFrom;
      const ip = this.serviceCidr.addressAt(offset);
      if (!taken.has(ip)) return ip;
    }
    for (let offset = 0; offset < dynamicFrom; offset++) {
      const ip = this.serviceCidr.addressAt(offset);
      if (!taken.has(ip)) return ip;
    }
    return undefined;
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
