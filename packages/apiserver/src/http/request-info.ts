/**
 * Parses an API path the way k8s.io/apiserver's RequestInfoFactory does:
 * `/api/v1/namespaces/ns/pods/name/status` → group '', version v1,
 * namespace ns, resource pods, name, subresource status; the verb comes from
 * the method and whether a name or `watch` is present.
 */
import { badRequest } from '@operant/apimachinery';

export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequest {
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  verb: RequestVerb;
}

/**
 * Percent-decodes one path segment as Go's url.PathUnescape does: a malformed
 * escape is the client's mistake (`invalid URL escape "%ZZ"`, a 400), and bytes
 * that are no UTF-8 decode to U+FFFD instead of failing.
 */
export function unescapePathSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  const bad = /%(?![0-9a-fA-F]{2})/.exec(segment);
  if (bad) throw badRequest(`invalid URL escape ${JSON.stringify(segment.slice(bad.index, bad.index + 3))}`);
  try {
    return decodeURIComponent(segment);
  } catch {
    const bytes = segment.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
}

/** Namespace subresources addressed as `/namespaces/<name>/<sub>`. */
const namespaceSubresources = new Set(['status', 'finalize']);

/** Returns the resource request, or undefined for a path that names no resource (discovery and the like). */
export function parseResourcePath(path: string, method: string, query: URLSearchParams): ResourceRequest | undefined {
  const parts = path.split('/').filter((p) => p !== '').map(unescapePathSegment);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else return undefined;

  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1];
    if (rest.length > 2 && !namespaceSubresources.has(rest[2])) rest = rest.slice(2);
    else namespace = rest[1];
  }
  if (rest.length === 0) return undefined;
  const resource = rest[0];
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  if (rest.length > 3) return undefined;
  // `/namespaces/<name>` addresses the namespace itself, which has no namespace.
  if (resource === 'namespaces' && group === '') namespace = '';

  const watchParam = query.get('watch');
  const wantsWatch = legacyWatch || watchParam === 'true' || watchParam === '1';
  let verb: RequestVerb;
  switch (method) {
    case 'GET':
      verb = name ? (wantsWatch ? 'watch' : 'get') : wantsWatch ? 'watch' : 'list';
      break;
    case 'HEAD':
      // A HEAD answer has no body, so it never streams a watch (which would hold the connection).
      verb = name ? 'get' : 'list';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name ? 'delete' : 'deletecollection';
      break;
    default:
      verb = 'get';
  }
  return { group, version, namespace, resource, name, subresource, verb };
}
