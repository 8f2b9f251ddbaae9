/**
 * Each node's pod CIDR, as kube-controller-manager's node IPAM allocates
 * them (`--allocate-node-cidrs`, `--cluster-cidr`, `--node-cidr-mask-size`
 * 24): /24s cut from the cluster CIDR in order. The simulation's cluster
 * CIDR is 10.244.0.0/14, 1,024 /24s: kind's and flannel's 10.244.0.0/16
 * holds only 256 nodes, and a /14 keeps their addresses for the first 256
 * (node-N gets 10.244.N.0/24, then 10.245.0.0/24 for node-256, and so on up
 * to node-1023 in 10.247.255.0/24). The allocation follows the node's number
 * instead of a shared allocator, so that nodes run by other processes
 * (`operant nodes --first-index`) never take the same range. A node whose
 * number falls past the cluster CIDR gets none, as kube leaves a node
 * without spec.podCIDR (with a CIDRNotAvailable event) once the range is
 * exhausted.
 */

/** The cluster CIDR pod ranges are cut from. */
export const clusterCidr = '10.244.0.0/14';
/** kube's default --node-cidr-mask-size for IPv4. */
const nodeMaskSize = 24;

const [base, prefix] = ((): [number, number] => {
  const [address, bits] = clusterCidr.split('/') as [string, string];
  const value = address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  return [value, Number(bits)];
})();

/** How many nodes the cluster CIDR has ranges for. */
export const nodeCidrCount = 2 ** (nodeMaskSize - prefix);

const dotted = (n: number): string => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');

/** The pod CIDR of the node numbered `index` (`10.244.3.0/24` for node-3); undefined past the cluster CIDR. */
export function podCidrOf(index: number): string | undefined {
  if (!Number.isInteger(index) || index < 0 || index >= nodeCidrCount) return undefined;
  return `${dotted(base + index * 2 ** (32 - nodeMaskSize))}/${nodeMaskSize}`;
}

/**
 * kube's node IPAM event when the cluster CIDR has no range left for a node
 * (RecordNodeStatusChange: "Node <name> status is now: CIDRNotAvailable").
 */
export function cidrNotAvailableMessage(node: string): string {
  return `Node ${node} status is now: CIDRNotAvailable`;
}
