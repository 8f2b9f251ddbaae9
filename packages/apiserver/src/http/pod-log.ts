/**
 * `GET .../pods/<name>/log` (what `kubectl logs` reads). kube-apiserver
 * relays it to the pod's kubelet; nodes here run no containers, so the
 * server writes a short simulated log from the container's status instead:
 * one line that says it is simulated, then a line when the container
 * started and one when it stopped, for the current run or, with
 * `previous=true`, the run before the last restart. The kubelet's checks and
 * errors are kept (a container that is not valid for the pod, one that is
 * waiting to start, no previous run), as 400s with the kubelet's words, which
 * kubectl prints as `Error from server (BadRequest): ...`.
 *
 * `follow=true` ends with the log as it is (the simulated container writes
 * nothing more); `timestamps`, `tailLines` and `limitBytes` work as in kube.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceRequest } from './request-info.js';

/** The parts of a container's state the log is made from. */
interface Terminated {
  exitCode?: number;
  reason?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}
interface ContainerState {
  running?: { startedAt?: string };
  waiting?: { reason?: string };
  terminated?: Terminated;
}
interface ContainerStatus {
  name: string;
  image?: string;
  containerID?: string;
  state?: ContainerState;
  lastState?: ContainerState;
}
type Named = { name: string };
type Pod = KubeObject & {
  spec?: { nodeName?: string; containers?: Named[]; initContainers?: Named[]; ephemeralContainers?: Named[] };
  status?: { containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[]; ephemeralContainerStatuses?: ContainerStatus[] };
};

export async function servePodLog(_req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog, query: URLSearchParams): Promise<void> {
  if (rr.verb !== 'get') throw methodNotAllowed();
  const pod = (await catalog.lookup('', 'v1', 'pods')!.get(rr.namespace, rr.name)) as Pod;
  const lines = simulatedPodLog(pod, { container: query.get('container') ?? '', previous: flag(query, 'previous') });
  let text = lines.map((l) => `${flag(query, 'timestamps') ? `${l.at.replace(/Z$/, '.000000000Z')} ` : ''}${l.text}\n`);
  const tail = integer(query, 'tailLines');
  if (tail !== undefined) text = tail >= 0 ? text.slice(Math.max(0, text.length - tail)) : text;
  let body = Buffer.from(text.join(''));
  const limit = integer(query, 'limitBytes');
  if (limit !== undefined) {
    if (limit < 1) throw badRequest(`limitBytes: Invalid value: ${limit}: must be greater than 0`);
    body = body.subarray(0, limit);
  }
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length, 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

/** One line of a simulated log: when it was written, and what it says. */
export interface LogLine {
  at: string;
  text: string;
}

/** The simulated log of one of the pod's containers (the current run, or the previous one), or kube's 400. */
export function simulatedPodLog(pod: Pod, options: { container: string; previous: boolean }): LogLine[] {
  const name = pod.metadata.name ?? '';
  const specs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])];
  let container = options.container;
  if (!container) {
    const app = (pod.spec?.containers ?? []).map((c) => c.name);
    if (app.length !== 1) {
      const init = (pod.spec?.initContainers ?? []).map((c) => c.name);
      throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${app.join(' ')}]${init.length ? ` or one of the init containers: [${init.join(' ')}]` : ''}`);
    }
    container = app[0]!;
  }
  if (!specs.some((c) => c.name === container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  // Not on a node yet: kube has no kubelet to ask and answers with an empty log.
  if (!pod.spec?.nodeName) return [];
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? []), ...(pod.status?.ephemeralContainerStatuses ?? [])];
  const cs = statuses.find((s) => s.name === container);
  const where = `container ${JSON.stringify(container)} in pod ${JSON.stringify(name)}`;
  if (!cs) throw badRequest(`${where} is not available`);
  const last = cs.lastState?.terminated;
  let run: ContainerState;
  if (options.previous) {
    if (!last?.containerID) throw badRequest(`previous terminated ${where} not found`);
    run = { terminated: last };
  } else if (cs.state?.running || cs.state?.terminated?.containerID) {
    run = cs.state;
  } else if (last?.containerID) {
    // Waiting to restart (CrashLoopBackOff): the kubelet shows the run that ended.
    run = { terminated: last };
  } else if (cs.state?.terminated) {
    throw badRequest(`${where} is terminated`);
  } else if (cs.state?.waiting) {
    const reason = cs.state.waiting.reason ?? '';
    const why = reason === 'ErrImagePull' ? "image can't be pulled" : reason === 'ImagePullBackOff' ? 'trying and failing to pull image' : reason;
    throw badRequest(`${where} is waiting to start: ${why}`);
  } else {
    throw badRequest(`${where} is waiting to start - no logs yet`);
  }
  const startedAt = run.running?.startedAt ?? run.terminated?.startedAt ?? '';
  const lines: LogLine[] = [
    { at: startedAt, text: `[simulated] node ${pod.spec.nodeName} runs no real containers: this log is made up by the Operant simulated cluster` },
    { at: startedAt, text: `[simulated] container ${container} started (image ${cs.image ?? ''}, ${run.running ? cs.containerID : run.terminated?.containerID})` },
  ];
  const t = run.terminated;
  if (t) lines.push({ at: t.finishedAt ?? startedAt, text: `[simulated] container ${container} exited with code ${t.exitCode}${t.reason ? ` (${t.reason})` : ''}` });
  return lines;
}

function flag(query: URLSearchParams, key: string): boolean {
  const v = query.get(key);
  return v === 'true' || v === '1';
}

function integer(query: URLSearchParams, key: string): number | undefined {
  const v = query.get(key);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n)) throw badRequest(`${key}: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  return n;
}
