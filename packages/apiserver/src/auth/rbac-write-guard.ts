/**
 * RBAC escalation prevention in the request path: before a create, update or patch of a
 * Role, ClusterRole, RoleBinding or ClusterRoleBinding reaches its handler, the object it
 * would store is worked out (the body; for a patch, the current object with the patch
 * applied by the registry's own patcher) and checked as kube's RBAC storages check it
 * (see rbac/storage-policy.ts). The body, read here, is handed on to the handler.
 *
 * A body or patch that cannot be decoded or applied is not judged here: the handler
 * answers it with its usual error.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { deepCopy, isJsonObject, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import { schemaPatcher } from '../registry/codec.js';
import type { PatchApplier } from '../registry/resource-store.js';
import { applyPatchType, parseApplyPatch } from '../http/patch-body.js';
import { decodeObjectBody, mediaType, readBody } from '../http/body.js';
import type { ResourceRequest } from '../http/request-info.js';
import type { UserInfo } from './authn/user-info.js';
import { isPrivileged } from './authn/user-info.js';
import type { RbacAuthorizer } from './rbac/authorizer.js';
import { checkRbacWrite, rbacGroup, rbacPolicyResources } from './rbac/storage-policy.js';

type Json = Record<string, unknown>;

/** Whether the request is a write kube's RBAC storages check (and the user is not exempt). */
export function isCheckedRbacWrite(rr: ResourceRequest, user: UserInfo): boolean {
  return (
    rr.group === rbacGroup &&
    rbacPolicyResources.has(rr.resource) &&
    rr.subresource === '' &&
    (rr.verb === 'create' || rr.verb === 'update' || rr.verb === 'patch') &&
    !isPrivileged(user)
  );
}

/** A request whose body is `body` again, for the handler that reads it after the check. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const stream = new PassThrough();
  stream.end(body);
  return Object.assign(stream, {
    headers: req.headers,
    headersDistinct: req.headersDistinct,
    rawHeaders: req.rawHeaders,
    method: req.method,
    url: req.url,
    httpVersion: req.httpVersion,
    socket: req.socket,
  }) as unknown as IncomingMessage;
}

export class RbacWriteGuard {
  private readonly patchers = new Map<string, PatchApplier>();

  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly authorizer: RbacAuthorizer,
  ) {}

  /**
   * Throws kube's 403 (or 404 for a binding to a missing role) when the write would grant
   * more than `user` holds; otherwise returns the request to hand to the resource handler
   * (`req` itself when nothing was read from it).
   */
  async check(req: IncomingMessage, rr: ResourceRequest, user: UserInfo): Promise<IncomingMessage> {
    if (!isCheckedRbacWrite(rr, user)) return req;
    const rs = this.catalog.lookup(rr.group, rr.version, rr.resource);
    // A path that names no served resource is the handler's 404.
    if (!rs || (!rs.info.namespaced && rr.namespace !== '')) return req;
    const body = await readBody(req);
    const next = replay(req, body);
    const judged = await this.objects(rr, body, req.headers['content-type']);
    if (!judged) return next;
    const err = checkRbacWrite(user, { resource: rr.resource, namespace: rr.namespace, requestName: rr.name, ...judged }, this.authorizer);
    if (err) throw err;
    return next;
  }

  /** The object the write would store and the one it replaces; undefined when the handler will refuse the request anyway. */
  private async objects(rr: ResourceRequest, body: Buffer, contentType: string | undefined): Promise<{ object: Json; old?: Json } | undefined> {
    const rs = this.catalog.lookup(rr.group, rr.version, rr.resource)!;
    const current = async (): Promise<KubeObject | undefined> => {
      try {
        return await rs.get(rr.namespace, rr.name);
      } catch {
        return undefined;
      }
    };
    try {
      if (rr.verb === 'create' || rr.verb === 'update') {
        const object = decodeObjectBody(body, contentType, rs.info.kind);
        if (!isJsonObject(object)) return undefined;
        return { object, old: rr.verb === 'update' ? await current() : undefined };
      }
      const old = await current();
      // An apply may create: judge the object it would produce.
      if (mediaType(contentType) === applyPatchType) return { object: rs.previewApply(old, parseApplyPatch(body, { fieldManager: 'rbac-write-guard' })), old };
      if (!old) return undefined;
      const patched = this.patcher(rr)(deepCopy(old), mediaType(contentType), body);
      return isJsonObject(patched) ? { object: patched, old } : undefined;
    } catch {
      return undefined;
    }
  }

  private patcher(rr: ResourceRequest): PatchApplier {
    const key = `${rr.version}/${rr.resource}`;
    let p = this.patchers.get(key);
    if (!p) {
      p = schemaPatcher(this.catalog.lookup(rr.group, rr.version, rr.resource)!.info);
      this.patchers.set(key, p);
    }
    return p;
  }
}
