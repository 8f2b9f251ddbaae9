/**
 * `POST .../serviceaccounts/<name>/token` (TokenRequest, what `kubectl create token`
 * sends): a signed ServiceAccount token for an existing ServiceAccount.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { MvccStore } from '../storage/mvcc-store.js';
import { storeLookup, type ServiceAccountTokenAuthority } from '../auth/authn/index.js';
import { decodeObjectBody, readBody } from './body.js';
import type { ResourceRequest } from './request-info.js';
import { addWarnings, sendJson } from './respond.js';

export async function serveTokenRequest(
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  catalog: ResourceCatalog,
  tokens: ServiceAccountTokenAuthority,
  store: MvccStore,
): Promise<void> {
  if (rr.verb !== 'create') throw methodNotAllowed();
  const serviceAccount = await catalog.lookup('', 'v1', 'serviceaccounts')!.get(rr.namespace, rr.name);
  const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
  const warnings: string[] = [];
  const answer = tokens.tokenRequest(serviceAccount as KubeObject, body, storeLookup(store), { warn: (w: string) => warnings.push(w) });
  addWarnings(res, warnings);
  sendJson(res, 201, answer);
}
