/**
 * core/v1 ComponentStatuses (`kubectl get cs`), as kube's
 * pkg/registry/core/componentstatus serves them: read-only, computed at each
 * request from a health check per component, never stored. Every answer
 * carries kube's deprecation warning (ComponentStatus is deprecated since
 * 1.19). A name that is no component is kube's plain error, a 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { internalError, methodNotAllowed, type KubeObject } from '@operant/apimachinery';
import type { ResourceStore } from '../registry/resource-store.js';
import { compileListFilter } from '../registry/list-filter.js';
import { tableForResource } from '../tables/for-resource.js';
import { negotiate } from './negotiate.js';
import { listOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { includeObject, notFoundPath, partialMetadata } from './resource-handler.js';
import { addWarnings, sendJson } from './respond.js';

/** kube's warning for the deprecated v1 ComponentStatus (its prerelease-lifecycle `deprecated=1.19`). */
export const componentStatusDeprecation = 'v1 ComponentStatus is deprecated in v1.19+';

/** One component's health check: undefined when healthy, else why not (a throw counts as why not). */
export type ComponentCheck = () => string | undefined;

/**
 * The components kube-apiserver reports, by its names. `etcd-0` is this
 * server's storage, checked as kube's etcd prober checks etcd: by reading a
 * key. The scheduler and the controller-manager are no processes of their own
 * here to probe (the server's controllers run inside it; the simulated
 * cluster's talk to it like any client), so they report healthy, as on a
 * working cluster.
 */
export function embeddedComponents(readStorage: () => void): ReadonlyMap<string, ComponentCheck> {
  const healthy: ComponentCheck = () => undefined;
  return new Map([
    ['scheduler', healthy],
    ['controller-manager', healthy],
    [
      'etcd-0',
      () => {
        readStorage();
        return undefined;
      },
    ],
  ]);
}

/** The ComponentStatus kube's getComponentStatus builds from a check's outcome. */
function componentStatus(name: string, check: ComponentCheck): KubeObject {
  let error: string | undefined;
  try {
    error = check();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const condition = error === undefined ? { type: 'Healthy', status: 'True', message: 'ok' } : { type: 'Healthy', status: 'False', error };
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null }, conditions: [condition] } as unknown as KubeObject;
}

export function serveComponentStatuses(
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  query: URLSearchParams,
  rs: ResourceStore,
  components: ReadonlyMap<string, ComponentCheck>,
): void {
  if (rr.namespace || rr.subresource) throw notFoundPath();
  if (rr.verb !== 'get' && rr.verb !== 'list') throw methodNotAllowed();
  addWarnings(res, [componentStatusDeprecation]);
  const form = negotiate(req.headers.accept);
  const send = (body: KubeObject | KubeObject[]): void => {
    const items = Array.isArray(body) ? body : [body];
    if (form === 'table') return sendJson(res, 200, tableForResource(rs.info, items, { includeObject: includeObject(query) }));
    if (form === 'metadata') {
      return sendJson(res, 200, Array.isArray(body) ? { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: {}, items: items.map(partialMetadata) } : partialMetadata(body));
    }
    sendJson(res, 200, Array.isArray(body) ? { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items } : body);
  };
  if (rr.verb === 'get') {
    const check = components.get(rr.name);
    if (!check) throw internalError(`Component not found: ${rr.name}`);
    return send(componentStatus(rr.name, check));
  }
  // Selectors apply, though no component has labels (kube filters all the same).
  const filter = compileListFilter(rs.info, listOptions(query));
  send([...components].map(([name, check]) => componentStatus(name, check)).filter((o) => filter.matches(o)));
}

