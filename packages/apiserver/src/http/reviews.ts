/**
 * The create-only review APIs kubectl uses to ask about the caller:
 * SelfSubjectAccessReview (`kubectl auth can-i`), SelfSubjectRulesReview and
 * SelfSubjectReview (`kubectl auth whoami`). Until RBAC is enforced the only
 * identity is the admin (system:masters), who may do everything.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, isJsonObject, methodNotAllowed } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import { decodeObjectBody, readBody } from './body.js';
import type { ResourceRequest } from './request-info.js';
import { sendJson } from './respond.js';
import { notFoundPath } from './resource-handler.js';

const adminUser = { username: 'operant-admin', groups: ['system:masters', 'system:authenticated'] };

export async function serveReview(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog): Promise<void> {
  const rs = catalog.lookup(rr.group, rr.version, rr.resource);
  if (!rs || rr.name || rr.subresource) throw notFoundPath();
  if (rr.verb !== 'create') throw methodNotAllowed();
  const body = decodeObjectBody(await readBody(req), req.headers['content-type'], rs.info.kind);
  if (!isJsonObject(body)) throw badRequest('the object provided is unrecognized');
  const base = { apiVersion: `${rr.group}/${rr.version}`, kind: rs.info.kind, metadata: { creationTimestamp: null }, spec: body.spec ?? {} };
  switch (rr.resource) {
    case 'selfsubjectreviews':
      return sendJson(res, 201, { ...base, status: { userInfo: adminUser } });
    case 'selfsubjectaccessreviews':
    case 'subjectaccessreviews':
    case 'localsubjectaccessreviews':
      return sendJson(res, 201, { ...base, status: { allowed: true, reason: 'the admin may do everything' } });
    case 'selfsubjectrulesreviews':
      return sendJson(res, 201, {
        ...base,
        status: {
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          incomplete: false,
        },
      });
    case 'tokenreviews':
      return sendJson(res, 201, { ...base, status: { authenticated: false } });
    default:
      throw notFoundPath();
  }
}
