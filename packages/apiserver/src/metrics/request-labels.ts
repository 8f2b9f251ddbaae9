/**
 * The labels kube-apiserver 1.32 puts on a request's metrics
 * (k8s.io/apiserver pkg/endpoints/metrics/metrics.go: MonitorRequest,
 * CleanScope, CanonicalVerb, cleanVerb, cleanDryRun): verbs are upper case,
 * a GET of a collection is LIST, a watch is WATCH, a server-side apply is
 * APPLY; the scope is `resource` for one named object or a create,
 * `namespace` or `cluster` for collections, empty for non-resource paths,
 * whose path goes into `subresource`.
 */
import type { ResourceRequest } from '../http/request-info.js';

/** The label names of `apiserver_request_duration_seconds` (and of `apiserver_request_total`, with `code`). */
export type RequestLabel = 'verb' | 'dry_run' | 'group' | 'version' | 'resource' | 'subresource' | 'scope' | 'component';

export type RequestLabels = Record<RequestLabel, string>;

const applyPatchType = 'application/apply-patch+yaml';

/** kube's cleanDryRun: the distinct dryRun values, sorted, joined by commas. */
function dryRunLabel(query: URLSearchParams): string {
  return [...new Set(query.getAll('dryRun'))].sort().join(',');
}

function scopeOf(rr: ResourceRequest): string {
  if (rr.name !== '' || rr.verb === 'create') return 'resource';
  return rr.namespace !== '' ? 'namespace' : 'cluster';
}

function verbOf(method: string, rr: ResourceRequest, contentType: string): string {
  if (rr.verb === 'watch') return 'WATCH';
  if ((method === 'GET' || method === 'HEAD') && scopeOf(rr) !== 'resource') return 'LIST';
  if (method === 'PATCH' && contentType.split(';')[0].trim() === applyPatchType) return 'APPLY';
  return method;
}

/** The labels of a resource request. */
export function resourceRequestLabels(method: string, rr: ResourceRequest, query: URLSearchParams, contentType: string): RequestLabels {
  return {
    verb: verbOf(method, rr, contentType),
    dry_run: dryRunLabel(query),
    group: rr.group,
    version: rr.version,
    resource: rr.resource,
    subresource: rr.subresource,
    scope: scopeOf(rr),
    component: 'apiserver',
  };
}

/** The labels of a request for a non-resource path (`/healthz`, `/metrics`, `/apis`, ...). */
export function nonResourceRequestLabels(method: string, path: string, query: URLSearchParams): RequestLabels {
  return { verb: method, dry_run: dryRunLabel(query), group: '', version: '', resource: '', subresource: path, scope: '', component: 'apiserver' };
}
