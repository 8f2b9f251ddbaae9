/**
 * `POST .../pods/<name>/eviction` (what `kubectl drain` sends): a policy/v1
 * Eviction in, kube's Status out (201 Success, or the refusal).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, type KubeObject } from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';
import type { ResourceCatalog } from '../registry/catalog.js';
import { evictPod, type Eviction } from '../registry/pod-eviction.js';
import { decodeObjectBody, readBody } from './body.js';
import { writeOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { addWarnings, sendJson } from './respond.js';

const evictionKind = { group: 'policy', version: 'v1', kind: 'Eviction' };

export async function servePodEviction(
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  catalog: ResourceCatalog,
  query: URLSearchParams,
  user: UserInfo,
): Promise<void> {
  if (rr.verb !== 'create') throw methodNotAllowed();
  const body = (decodeObjectBody(await readBody(req), req.headers['content-type'], 'Eviction') ?? {}) as Eviction;
  const stores = { pods: catalog.lookup('', 'v1', 'pods')!, podDisruptionBudgets: catalog.lookup('policy', 'v1', 'poddisruptionbudgets')! };
  const dryRun = writeOptions(query).dryRun;
  // Webhooks see the Eviction as a CREATE of pods/eviction: the mutating ones first, as kube's create handler runs them.
  const admission = stores.pods.subresourceCreateAdmission(rr.namespace, rr.name, 'eviction', evictionKind, { dryRun, user });
  try {
    const eviction = (await admission.mutate({ ...body, apiVersion: 'policy/v1', kind: 'Eviction' } as KubeObject)) as Eviction;
    const validate = (admitted: Eviction, evictionDryRun: boolean): Promise<void> => admission.validate(admitted as KubeObject, evictionDryRun);
    const result = await evictPod(stores, rr.namespace, rr.name, eviction, { dryRun, user, validate });
    addWarnings(res, admission.warnings);
    sendJson(res, result.code, result.status);
  } catch (e) {
    addWarnings(res, admission.warnings);
    throw e;
  }
}
