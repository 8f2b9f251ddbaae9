/**
 * The create-only review APIs: SelfSubjectAccessReview (`kubectl auth can-i`),
 * SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview
 * (`kubectl auth can-i --list`), SelfSubjectReview (`kubectl auth whoami`) and
 * TokenReview, answered from the same authenticator and RBAC authorizer that
 * guard every request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, isJsonObject, methodNotAllowed } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { AccessControl } from '../auth/access-control.js';
import { selfSubjectReview, tokenReview, type UserInfo } from '../auth/authn/index.js';
import type { RequestAttributes } from '../auth/rbac/attributes.js';
import { decodeObjectBody, readBody } from './body.js';
import type { ResourceRequest } from './request-info.js';
import { sendJson } from './respond.js';
import { notFoundPath } from './resource-handler.js';

type Json = Record<string, unknown>;

/** The attributes a (Self|Local)SubjectAccessReview spec asks about. */
function reviewAttributes(user: UserInfo, spec: Json, namespace: string | undefined): RequestAttributes {
  const r = spec.resourceAttributes as Json | undefined;
  const n = spec.nonResourceAttributes as Json | undefined;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  if (r) {
    return {
      user,
      verb: str(r.verb),
      resourceRequest: true,
      apiGroup: str(r.group),
      apiVersion: str(r.version),
      resource: str(r.resource),
      subresource: str(r.subresource),
      namespace: namespace ?? str(r.namespace),
      name: str(r.name),
      path: '',
    };
  }
  return { user, verb: str(n?.verb), resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path: str(n?.path) };
}

export async function serveReview(
  req: IncomingMessage,
  res: ServerResponse,
  rr: ResourceRequest,
  catalog: ResourceCatalog,
  access: AccessControl,
  user: UserInfo,
): Promise<void> {
  const rs = catalog.lookup(rr.group, rr.version, rr.resource);
  if (!rs || rr.name || rr.subresource) throw notFoundPath();
  if (rr.verb !== 'create') throw methodNotAllowed();
  const body = decodeObjectBody(await readBody(req), req.headers['content-type']);
  if (!isJsonObject(body)) throw badRequest('the object provided is unrecognized');
  const apiVersion = `${rr.group}/${rr.version}`;
  const spec = (isJsonObject(body.spec) ? body.spec : {}) as Json;
  const answer = (status: unknown): void => sendJson(res, 201, { apiVersion, kind: rs.info.kind, metadata: { creationTimestamp: null }, spec, status });
  switch (rr.resource) {
    case 'selfsubjectreviews':
      return sendJson(res, 201, selfSubjectReview(user, apiVersion as 'authentication.k8s.io/v1'));
    case 'tokenreviews':
      return sendJson(res, 201, tokenReview(body, access.authn, apiVersion));
    case 'selfsubjectaccessreviews':
    case 'subjectaccessreviews':
    case 'localsubjectaccessreviews': {
      const subject: UserInfo =
        rr.resource === 'selfsubjectaccessreviews'
          ? user
          : {
              username: typeof spec.user === 'string' ? spec.user : '',
              uid: typeof spec.uid === 'string' ? spec.uid : undefined,
              groups: Array.isArray(spec.groups) ? (spec.groups as string[]) : [],
              extra: isJsonObject(spec.extra) ? (spec.extra as Record<string, string[]>) : undefined,
            };
      if (rr.resource !== 'selfsubjectaccessreviews' && !subject.username && subject.groups.length === 0) {
        throw badRequest(`${rs.info.kind}.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`);
      }
      const decision = access.rbac.authorize(reviewAttributes(subject, spec, rr.resource === 'localsubjectaccessreviews' ? rr.namespace : undefined));
      const status: Json = { allowed: decision.allowed };
      if (decision.reason) status.reason = decision.reason;
      return answer(status);
    }
    case 'selfsubjectrulesreviews': {
      const ns = typeof spec.namespace === 'string' ? spec.namespace : '';
      const { rules, errors } = access.rbac.rulesFor(user, ns);
      const status: Json = {
        resourceRules: rules.filter((r) => !r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames })),
        nonResourceRules: rules.filter((r) => r.nonResourceURLs?.length).map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
        incomplete: errors.length > 0,
      };
      if (errors.length) status.evaluationError = errors.join(', ');
      return answer(status);
    }
    default:
      throw notFoundPath();
  }
}
