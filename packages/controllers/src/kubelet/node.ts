/**
 * A simulated node: its identity (name, addresses, pod CIDR), its shape
 * (capacity), and the Node object a kubelet registers and keeps reporting:
 * kubelet's labels and annotations, capacity and allocatable, the
 * MemoryPressure/DiskPressure/PIDPressure/Ready conditions with kubelet's
 * reasons, addresses, the kubelet endpoint and nodeInfo.
 */
import { createHash, randomUUID } from 'node:crypto';
import { rfc3339 } from '../clock.js';
import type { NodeObject } from '../objects.js';
import { IpPool } from './ip-pool.js';
import { podCidrOf } from './pod-cidr.js';
import { heartbeatsPausedAnnotation } from './knobs.js';
import type { PullFailures, RestartBackOff } from './pod-sync.js';

/**
 * What each simulated node offers and how it is labelled.
 *
 * @example
 * ```ts
 * import type { NodeShape } from '@operant/controllers';
 *
 * const small: Partial<NodeShape> = { cpu: '4', memory: '16Gi', labels: { 'topology.kubernetes.io/zone': 'zone-a' } };
 * ```
 */
export interface NodeShape {
  /** Node names are this prefix and 1, 2, 3...; default `node-`. */
  namePrefix: string;
  /** Default `32`. */
  cpu: string;
  /** Default `256Gi`. */
  memory: string;
  /** Default `110`, the kubelet's maxPods. */
  pods: string;
  /** Default `1Ti`. */
  ephemeralStorage: string;
  /** Labels added to kubelet's own. */
  labels: Record<string, string>;
}

export const defaultShape: NodeShape = { namePrefix: 'node-', cpu: '32', memory: '256Gi', pods: '110', ephemeralStorage: '1Ti', labels: {} };

/** The label every simulated node carries. */
export const simulatedLabel = 'operant.dev/simulated';

/** What a kubelet whose node has no pod CIDR reports (the CNI plugin has no range to hand out: containerd's words). */
export const networkNotReadyMessage =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

const arch = process.arch === 'x64' ? 'amd64' : process.arch;

export class SimulatedNode {
  readonly name: string;
  /** The node's InternalIP, in a kind-like 172.18.0.0/16 network. */
  readonly hostIP: string;
  /** The node's pod range, undefined when the cluster CIDR had none left for it (see pod-cidr.ts). */
  readonly podCIDR: string | undefined;
  /** Its pods' addresses, from the pod CIDR; undefined without one. */
  readonly ips: IpPool | undefined;
  /** Scheduled in-place restarts: pod uid, then container name, to when it is due. */
  readonly restarts = new Map<string, Map<string, number>>();
  /** Pods being deleted, by uid: when this kubelet first saw it (cluster time); the grace period runs from there. */
  readonly stopping = new Map<string, number>();
  /** Failed image pulls (the image back-off): pod uid, then container name. */
  readonly pulls = new Map<string, Map<string, PullFailures>>();
  /** The restart back-off (kube's flowcontrol.Backoff): pod uid, then container name. */
  readonly backOffs = new Map<string, Map<string, RestartBackOff>>();
  /** Pods told (once) that their sandbox cannot be made: the node has no pod CIDR. By uid. */
  readonly sandboxFailures = new Set<string>();
  /** The Node's annotations as last seen (where node-wide test knobs are set). */
  annotations: Readonly<Record<string, string>> = {};
  /** This kubelet's boot: changes with each start of the simulated cluster. */
  readonly bootID = randomUUID();

  constructor(
    readonly index: number,
    readonly shape: NodeShape,
  ) {
    this.name = `${shape.namePrefix}${index}`;
    this.hostIP = `172.18.${Math.floor((index + 1) / 256)}.${(index + 1) % 256}`;
    this.podCIDR = podCidrOf(index);
    this.ips = this.podCIDR === undefined ? undefined : new IpPool(this.podCIDR.slice(0, this.podCIDR.lastIndexOf('.') + 1));
  }

  /** The in-place restarts scheduled for a pod (created on first use). */
  restartsOf(podUid: string): Map<string, number> {
    return perPod(this.restarts, podUid);
  }

  /** The restart back-off of a pod's containers (created on first use). */
  backOffsOf(podUid: string): Map<string, RestartBackOff> {
    return perPod(this.backOffs, podUid);
  }

  /** The failed image pulls of a pod (created on first use). */
  pullsOf(podUid: string): Map<string, PullFailures> {
    return perPod(this.pulls, podUid);
  }

  /** Whether the heartbeats-paused knob stops this kubelet. */
  get paused(): boolean {
    return this.annotations[heartbeatsPausedAnnotation] === 'true';
  }

  /** Forgets a pod that is gone. */
  forget(key: string, podUid: string | undefined): void {
    this.ips?.release(key);
    if (podUid) {
      this.restarts.delete(podUid);
      this.pulls.delete(podUid);
      this.backOffs.delete(podUid);
      this.stopping.delete(podUid);
      this.sandboxFailures.delete(podUid);
    }
  }

  /** The Node a kubelet registers. */
  nodeObject(kubeletVersion: string, nowMs: number): NodeObject {
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.name,
        labels: {
          'beta.kubernetes.io/arch': arch,
          'beta.kubernetes.io/os': 'linux',
          'kubernetes.io/arch': arch,
          'kubernetes.io/hostname': this.name,
          'kubernetes.io/os': 'linux',
          [simulatedLabel]: 'true',
          ...this.shape.labels,
        },
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      },
      spec: this.podCIDR === undefined ? {} : { podCIDR: this.podCIDR, podCIDRs: [this.podCIDR] },
      status: this.nodeStatus(kubeletVersion, nowMs, undefined),
    };
  }

  /** The status a kubelet reports now, keeping the conditions' transition times from `old`. */
  nodeStatus(kubeletVersion: string, nowMs: number, old: NodeObject['status']): NonNullable<NodeObject['status']> {
    const t = rfc3339(nowMs);
    const condition = (type: string, status: 'True' | 'False', reason: string, message: string) => {
      const prev = old?.conditions?.find((c) => c.type === type);
      return { type, status, lastHeartbeatTime: t, lastTransitionTime: prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : t, reason, message };
    };
    const resources = {
      cpu: this.shape.cpu,
      'ephemeral-storage': this.shape.ephemeralStorage,
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: this.shape.memory,
      pods: this.shape.pods,
    };
    const machineID = createHash('sha256').update(this.name).digest('hex').slice(0, 32);
    return {
      capacity: resources,
      allocatable: { ...resources },
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        this.podCIDR === undefined
          ? condition('Ready', 'False', 'KubeletNotReady', networkNotReadyMessage)
          : condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: this.hostIP },
        { type: 'Hostname', address: this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID,
        systemUUID: `${machineID.slice(0, 8)}-${machineID.slice(8, 12)}-${machineID.slice(12, 16)}-${machineID.slice(16, 20)}-${machineID.slice(20, 32)}`,
        bootID: this.bootID,
        kernelVersion: '6.8.0-operant',
        osImage: 'Operant simulated node',
        containerRuntimeVersion: 'containerd://1.7.24',
        kubeletVersion,
        kubeProxyVersion: kubeletVersion,
        operatingSystem: 'linux',
        architecture: arch,
      },
    };
  }
}

/** The per-pod map of `maps` for a pod (created on first use). */
function perPod<V>(maps: Map<string, Map<string, V>>, podUid: string): Map<string, V> {
  let m = maps.get(podUid);
  if (!m) maps.set(podUid, (m = new Map()));
  return m;
}
