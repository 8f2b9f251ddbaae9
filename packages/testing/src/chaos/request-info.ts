/**
 * What a request to the API server asks for, read from its method and URL the
 * way kube-apiserver's RequestInfoFactory reads it: the verb (a GET of a
 * collection is `list`, with `watch=true` it is `watch`; a DELETE of a
 * collection is `deletecollection`), then group, version, resource,
 * subresource, namespace and name from the path. Paths outside `/api` and
 * `/apis` (discovery roots, `/version`, `/openapi`) are non-resource requests.
 */

/** A verb as kube's authorization sees it. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * A request, classified.
 *
 * @example
 * ```ts
 * import { requestInfo } from '@operant/testing';
 *
 * const info = requestInfo('GET', '/apis/apps/v1/namespaces/team-a/deployments?watch=1&resourceVersion=42');
 * // { verb: 'watch', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'team-a', resourceVersion: '42', ... }
 * ```
 */
export interface RequestInfo {
  verb: Verb;
  /** False for discovery, `/version`, `/openapi/...`: no resource, group or namespace. */
  isResourceRequest: boolean;
  /** `''` for the core group. */
  group: string;
  version: string;
  /** The plural, e.g. `deployments`. */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The `resourceVersion` query parameter, when set. */
  resourceVersion?: string;
  path: string;
}

const namespaceSubresources = new Set(['status', 'finalize']);

const isWatchValue = (v: string | null): boolean => v === 'true' || v === '1';

/**
 * Classifies a request from its method and target (path and query).
 *
 * @example
 * ```ts
 * import { requestInfo } from '@operant/testing';
 *
 * requestInfo('DELETE', '/api/v1/namespaces/team-a/pods').verb; // 'deletecollection'
 * requestInfo('GET', '/api/v1/watch/namespaces/team-a/pods').verb; // 'watch' (the old prefix)
 * requestInfo('PUT', '/api/v1/namespaces/team-a/finalize'); // the namespace team-a itself, subresource finalize
 * ```
 */
export function requestInfo(method: string, target: string): RequestInfo {
  const { pathname, query } = splitTarget(target);
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const resourceVersion = query.get('resourceVersion') ?? undefined;
  const base = { path: pathname, resourceVersion };
  let rest: string[];
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return { ...base, verb: method === 'GET' || method === 'HEAD' ? 'get' : verbOf(method, true), isResourceRequest: false, group: '', version: '', resource: '' };
  }
  // kube-apiserver's old `/watch/` prefix.
  let watchPrefix = false;
  if (rest[0] === 'watch') {
    watchPrefix = true;
    rest = rest.slice(1);
  }
  let namespace: string | undefined;
  // `namespaces/<ns>/<resource>...`; `namespaces/<ns>` (and its status and finalize) is the namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2]!)) rest = rest.slice(2);
  }
  const [resource = '', name, subresource] = rest;
  let verb = verbOf(method, name !== undefined);
  if (verb === 'list' && (watchPrefix || isWatchValue(query.get('watch')))) verb = 'watch';
  if (verb === 'get' && watchPrefix) verb = 'watch';
  return { ...base, verb, isResourceRequest: true, group, version, resource, subresource, namespace, name };
}

const noQuery = new URLSearchParams();

/**
 * The path and query of a request target. A plain absolute path (what
 * clients send) is split as it is, which costs a fraction of a URL parse on
 * every proxied request; anything else (dot segments, backslashes, an absolute
 * URL) goes through the WHATWG URL parser, which normalises it.
 */
function splitTarget(target: string): { pathname: string; query: URLSearchParams } {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  if (path.startsWith('/') && !path.startsWith('//') && !path.includes('/.') && !path.includes('\\') && !target.includes('#')) {
    return { pathname: path, query: q < 0 ? noQuery : new URLSearchParams(target.slice(q + 1)) };
  }
  const url = new URL(target, 'http://x');
  return { pathname: url.pathname, query: url.searchParams };
}

function verbOf(method: string, hasName: boolean): Verb {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return hasName ? 'get' : 'list';
  }
}

/** `create deployments.apps team-a/web`, for timelines. */
export function describeRequest(info: RequestInfo, name = info.name): string {
  if (!info.isResourceRequest) return `${info.verb} ${info.path}`;
  const resource = `${info.resource}${info.group ? `.${info.group}` : ''}${info.subresource ? `/${info.subresource}` : ''}`;
  const object = [info.namespace, name].filter(Boolean).join('/');
  return object ? `${info.verb} ${resource} ${object}` : `${info.verb} ${resource}`;
}
