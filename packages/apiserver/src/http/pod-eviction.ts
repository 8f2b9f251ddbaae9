/**
 * `POST .../pods/<name>/eviction` (what `kubectl drain` sends): a policy/v1
 * Eviction in, kube's Status out (201 Success, or the refusal).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed } from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';
import type { ResourceCatalog } from '../registry/catalog.js';
import { evictPod, type Eviction } from '../registry/pod-eviction.js';
import { decodeObjectBody, readBody } from './body.js';
import { writeOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { sendJson } from './respond.js';

export async function servePodEviction(
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  catalog: ResourceCatalog,
  query: URLSearchParams,
  user: UserInfo,
): Promise<void> {
  if (rr.verb !== 'create') throw methodNotAllowed();
  const eviction = (decodeObjectBody(await readBody(req), req.headers['content-type'], 'Eviction') ?? {}) as Eviction;
  const stores = { pods: catalog.lookup('', 'v1', 'pods')!, podDisruptionBudgets: catalog.lookup('policy', 'v1', 'poddisruptionbudgets')! };
  const result = await evictPod(stores, rr.namespace, rr.name, eviction, { dryRun: writeOptions(query).dryRun, user });
  sendJson(res, result.code, result.status);
}
