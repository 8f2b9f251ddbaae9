/**
 * The faults the proxy can inject, what each does, and which requests it
 * touches. A fault acts while it is active (injected by hand, or during its
 * window of a schedule) on the requests its scope matches:
 *
 * | kind             | on a matching request                                                               |
 * |------------------|-------------------------------------------------------------------------------------|
 * | `latency`        | waits `ms` before forwarding                                                         |
 * | `error`          | answers `code` (500, 503, 504, 429 + Retry-After) as a Status, with Retry-After when asked; `applied`: after the server did it |
 * | `reset`          | destroys the connection; `applied`: after the server did it                           |
 * | `cut-watch`      | a watch stream ends in the middle of its next event (half a line, then a reset)       |
 * | `expire`         | a watch resuming from a resourceVersion gets HTTP 200 with one ERROR event, 410 Expired |
 * | `drop-bookmarks` | BOOKMARK events of watch streams are not delivered                                    |
 * | `partition`      | requests hang and watch streams stall until the fault ends                            |
 * | `delete-pod`     | a cluster fault: at its start, one running pod in scope (and `labelSelector`) is deleted, as Chaos Monkey does |
 * | `node-not-ready` | a cluster fault: one simulated node's kubelet stops (no heartbeats, no pod status) for the window; past 40 s of cluster time the node goes NotReady and, past its pods' tolerations, they are evicted |
 * | `image-pull-failure` | a cluster fault: image pulls on one simulated node fail for the window (ErrImagePull, ImagePullBackOff) |
 * | `kill-leader`    | an operator fault: the leading replica of the operator is killed with SIGKILL (no lease release); done by the test's `operator` handler |
 * | `terminate-leader` | an operator fault: the leading replica gets SIGTERM while a reconcile is in flight; done by the test's `operator` handler |
 * | `restart-server` | a server fault: the API server stops for the window and starts again with its data; done by the environment's handler (a durable TestEnv's `faultProxy()`) |
 * | `compact`        | a server fault: at its start the server's history is compacted through the current revision (etcd's compaction): watches resuming, and lists continuing, from before it get the server's own 410 Expired; done by the environment's handler |
 * | `crash-container` | a cluster fault: the containers of one running pod in scope (and `labelSelector`) crash, and crash again after each restart (CrashLoopBackOff) for the window |
 *
 * `applied` faults are the nasty ones: the write happened, the client hears
 * it failed, and whatever it does next (retry, create again) is what breaks
 * operators that are not idempotent.
 */
import { StatusError, type Status } from '@operant/apimachinery';
import type { RequestInfo, Verb } from './request-info.js';

/**
 * The kinds of fault, in the order of the table above.
 *
 * @example
 * ```ts
 * import { chaos, faultKinds } from '@operant/testing';
 *
 * // Everything but partitions, e.g. for an operator whose leader election a partition would (rightly) stop.
 * const schedule = chaos({ seed: 9, duration: 20_000, faults: faultKinds.filter((k) => k !== 'partition') });
 * ```
 */
export const faultKinds = ['latency', 'error', 'reset', 'cut-watch', 'expire', 'drop-bookmarks', 'partition'] as const;

/**
 * The kinds of fault that act on the cluster rather than on requests: the
 * proxy does them through its upstream credentials when they start. A
 * schedule has them only when asked (they change the cluster, not just what
 * a client sees).
 *
 * @example
 * ```ts
 * import { chaos, clusterFaultKinds, faultKinds } from '@operant/testing';
 *
 * const schedule = chaos({ seed: 5, duration: 30_000, faults: [...faultKinds, ...clusterFaultKinds], scope: { namespaces: ['team-a'] } });
 * ```
 */
export const clusterFaultKinds = ['delete-pod', 'node-not-ready', 'image-pull-failure', 'crash-container'] as const;

/**
 * The kinds of fault that act on the operator's own processes. The proxy
 * cannot do them (it does not run the operator): when a schedule plays one,
 * the test's `operator` handler ({@link PlayOptions}) carries it out, and the
 * timeline records what it struck. A schedule has them only when asked.
 *
 * @example
 * ```ts
 * import { chaos, faultKinds, operatorFaultKinds } from '@operant/testing';
 *
 * const schedule = chaos({ seed: 5, duration: 30_000, faults: [...faultKinds, ...operatorFaultKinds] });
 * ```
 */
export const operatorFaultKinds = ['kill-leader', 'terminate-leader'] as const;

/**
 * The kinds of fault that act on the API server itself: the proxy hands them
 * to whoever runs the server (a TestEnv's `faultProxy()` compacts its history,
 * and restarts it when the environment is durable). A schedule has them only
 * when asked.
 *
 * @example
 * ```ts
 * import { chaos, faultKinds, serverFaultKinds } from '@operant/testing';
 *
 * const schedule = chaos({ seed: 5, duration: 30_000, faults: [...faultKinds, ...serverFaultKinds] });
 * ```
 */
export const serverFaultKinds = ['restart-server', 'compact'] as const;

/** The cluster faults that act on a node rather than on a pod. */
export type NodeFaultKind = 'node-not-ready' | 'image-pull-failure';

/**
 * A fault's kind.
 *
 * @example
 * ```ts
 * import { faultKinds, type FaultKind } from '@operant/testing';
 *
 * const watchFaults: FaultKind[] = faultKinds.filter((k) => k === 'cut-watch' || k === 'expire');
 * ```
 */
export type FaultKind =
  | (typeof faultKinds)[number]
  | (typeof clusterFaultKinds)[number]
  | (typeof operatorFaultKinds)[number]
  | (typeof serverFaultKinds)[number];

/** Every kind of fault: request faults, then cluster, operator and server faults. */
export const allFaultKinds: readonly FaultKind[] = [...faultKinds, ...clusterFaultKinds, ...operatorFaultKinds, ...serverFaultKinds];

/**
 * Which requests a fault touches; every given list must match (a missing one
 * matches everything). Resources are plurals, optionally with their group as
 * kubectl writes them (`deployments`, `deployments.apps`, `foos.samplecontroller.k8s.io`).
 *
 * @example
 * ```ts
 * import type { FaultScope } from '@operant/testing';
 *
 * const writesToDeployments: FaultScope = { verbs: ['create', 'update', 'patch'], resources: ['deployments.apps'], namespaces: ['team-a'] };
 * ```
 */
export interface FaultScope {
  verbs?: readonly Verb[];
  resources?: readonly string[];
  namespaces?: readonly string[];
}

/**
 * The HTTP codes an `error` fault answers with (a schedule picks among them when its template names none).
 *
 * @example
 * ```ts
 * import { errorCodes } from '@operant/testing';
 *
 * const retriable = errorCodes.filter((code) => code !== 500); // 503, 504, 429
 * ```
 */
export const errorCodes = [500, 503, 504, 429] as const;

/** One of {@link errorCodes}. */
export type ErrorCode = (typeof errorCodes)[number];

/**
 * One fault: its kind, its parameters and its scope.
 *
 * @example
 * ```ts
 * import type { Fault } from '@operant/testing';
 *
 * const lostCreate: Fault = { kind: 'error', code: 504, applied: true, verbs: ['create'], resources: ['deployments'] };
 * const slow: Fault = { kind: 'latency', ms: 200 };
 * const throttled: Fault = { kind: 'error', code: 429, retryAfterSeconds: 2, probability: 0.5 };
 * ```
 */
export type Fault = FaultScope &
  (
    | { kind: 'latency'; /** Added before forwarding. */ ms: number }
    | {
        kind: 'error';
        code: ErrorCode;
        /**
         * The Retry-After header and `details.retryAfterSeconds`: clients (client-go, the
         * runtime's) send the request again after that many seconds. Default 1 for 429, none otherwise.
         */
        retryAfterSeconds?: number;
        /** Forward first, then answer the error: the server did it, the client hears it failed. Default false. */
        applied?: boolean;
        /** The share of matching requests hit; default 1. */
        probability?: number;
      }
    | {
        kind: 'reset';
        /** Forward first, then reset: the server did it, the client never hears. Default false. */
        applied?: boolean;
        /** The share of matching requests hit; default 1. */
        probability?: number;
      }
    | { kind: 'cut-watch' }
    | { kind: 'expire' }
    | { kind: 'drop-bookmarks' }
    | { kind: 'partition' }
    | {
        kind: 'delete-pod' | 'crash-container';
        /** Only pods matching this label selector (`app=web`); default any pod in the fault's namespaces (or in all). */
        labelSelector?: string;
      }
    | {
        kind: NodeFaultKind;
        /** Only nodes matching this label selector; default the simulated nodes (`operant.dev/simulated=true`). */
        labelSelector?: string;
      }
    | { kind: (typeof operatorFaultKinds)[number] }
    | { kind: (typeof serverFaultKinds)[number] }
  );

/** A fault that the test's operator handler carries out. */
export type OperatorFault = Extract<Fault, { kind: (typeof operatorFaultKinds)[number] }>;

/** A fault that whoever runs the API server carries out. */
export type ServerFault = Extract<Fault, { kind: (typeof serverFaultKinds)[number] }>;

/** Whether a fault acts on the cluster (through the proxy's credentials) rather than on requests. */
export function isClusterFault(fault: Fault): fault is Extract<Fault, { kind: (typeof clusterFaultKinds)[number] }> {
  return (clusterFaultKinds as readonly string[]).includes(fault.kind);
}

/** Whether the fault acts on the operator's processes (done by the test's handler, not by the proxy). */
export function isOperatorFault(fault: Fault): fault is OperatorFault {
  return (operatorFaultKinds as readonly string[]).includes(fault.kind);
}

/** Whether the fault acts on the API server itself (done by whoever runs it, not by the proxy). */
export function isServerFault(fault: Fault): fault is ServerFault {
  return (serverFaultKinds as readonly string[]).includes(fault.kind);
}

/** Whether `fault`'s scope covers the request. Non-resource requests (discovery) match only unscoped faults. */
export function inScope(fault: FaultScope, info: RequestInfo): boolean {
  if (fault.verbs && !fault.verbs.includes(info.verb)) return false;
  if (fault.resources && !(info.isResourceRequest && fault.resources.some((r) => resourceMatches(r, info)))) return false;
  if (fault.namespaces && !(info.namespace !== undefined && fault.namespaces.includes(info.namespace))) return false;
  return true;
}

function resourceMatches(pattern: string, info: RequestInfo): boolean {
  const dot = pattern.indexOf('.');
  const plural = dot < 0 ? pattern : pattern.slice(0, dot);
  const [resource, subresource] = plural.split('/');
  if (resource !== info.resource) return false;
  if (subresource !== undefined && subresource !== info.subresource) return false;
  return dot < 0 || pattern.slice(dot + 1) === info.group;
}

/**
 * The Status an `error` fault answers with, in kube-apiserver's words, with
 * `details.retryAfterSeconds` when the client is told to come back (always for 429).
 */
export function errorStatus(code: ErrorCode, retryAfterSeconds?: number): Status {
  const why = 'injected by the operant chaos proxy';
  const retry = retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined;
  switch (code) {
    case 500:
      return new StatusError(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }], ...retry }).status;
    case 503:
      return new StatusError(503, 'ServiceUnavailable', `the server is currently unable to handle the request (${why})`, retry).status;
    case 504:
      return new StatusError(504, 'Timeout', `Timeout: request did not complete within requested timeout - context deadline exceeded (${why})`, retry).status;
    case 429:
      return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: retryAfterSeconds ?? 1 }).status;
  }
}

/** The one event of an expired watch: kube answers 200 and sends this, then ends the stream. */
export function expiredWatchEvent(resourceVersion: string): string {
  const status = new StatusError(410, 'Expired', `too old resource version: ${resourceVersion} (${Number(resourceVersion) + 1 || resourceVersion})`).status;
  return `${JSON.stringify({ type: 'ERROR', object: status })}\n`;
}

/** `error 503 on create deployments`, for timelines. */
export function describeFault(fault: Fault): string {
  const scope = [
    fault.verbs ? fault.verbs.join('/') : '',
    fault.resources ? fault.resources.join(',') : '',
    fault.namespaces ? `in ${fault.namespaces.join(',')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  let what: string;
  switch (fault.kind) {
    case 'latency':
      what = `latency ${fault.ms} ms`;
      break;
    case 'error':
      what = `error ${fault.code}${fault.code === 429 || fault.retryAfterSeconds !== undefined ? ` (Retry-After ${fault.retryAfterSeconds ?? 1})` : ''}${fault.applied ? ' after applying' : ''}`;
      break;
    case 'reset':
      what = `reset${fault.applied ? ' after applying' : ''}`;
      break;
    case 'delete-pod':
      what = `delete a pod${fault.labelSelector ? ` (${fault.labelSelector})` : ''}`;
      break;
    case 'crash-container':
      what = `crash a pod's containers${fault.labelSelector ? ` (${fault.labelSelector})` : ''}`;
      break;
    case 'node-not-ready':
      what = `stop a node's kubelet${fault.labelSelector ? ` (${fault.labelSelector})` : ''}`;
      break;
    case 'image-pull-failure':
      what = `fail image pulls on a node${fault.labelSelector ? ` (${fault.labelSelector})` : ''}`;
      break;
    case 'kill-leader':
      return 'SIGKILL the leading operator replica';
    case 'terminate-leader':
      return 'SIGTERM the leading operator replica during a reconcile';
    case 'restart-server':
      return 'stop the API server, start it again when the window closes';
    case 'compact':
      return "compact the API server's history";
    default:
      what = fault.kind;
  }
  const p = 'probability' in fault && fault.probability !== undefined && fault.probability < 1 ? ` p=${fault.probability}` : '';
  // A cluster fault acts on objects, not on requests: only its namespaces scope it.
  if (isClusterFault(fault)) return `${what}${fault.namespaces ? ` in ${fault.namespaces.join(',')}` : ''}`;
  return `${what}${p}${scope ? ` on ${scope}` : ''}`;
}
