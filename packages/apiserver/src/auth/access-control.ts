/**
 * Who may do what: every API request is authenticated (client certificate,
 * admin token, ServiceAccount token), impersonation is applied, and RBAC
 * decides, as kube-apiserver's filter chain does. Denials carry kube's words.
 */
import type { IncomingMessage } from 'node:http';
import { unauthorized } from '@operant/apimachinery';
import type { MvccStore } from '../storage/mvcc-store.js';
import type { ResourceRequest } from '../http/request-info.js';
import { authenticateRequest, authenticationContext, hasImpersonationHeaders, impersonate, storeLookup, type AuthenticationContext, type ServiceAccountTokenAuthority, type UserInfo } from './authn/index.js';
import { RbacAuthorizer } from './rbac/authorizer.js';
import { forbiddenError } from './rbac/forbidden.js';
import type { ClusterRole, ClusterRoleBinding, RbacObjects, RequestAttributes, Role, RoleBinding } from './rbac/attributes.js';

const rbacPrefix = '/rbac.authorization.k8s.io/';

export class AccessControl {
  readonly authn: AuthenticationContext;
  readonly rbac: RbacAuthorizer;
  /** Bumped on every change of an RBAC object, so the authorizer re-indexes only then. */
  private rbacVersion = 0;

  constructor(
    private readonly store: MvccStore,
    opts: { adminToken: string; clientCA: string; serviceAccountTokens: ServiceAccountTokenAuthority },
  ) {
    this.authn = authenticationContext({
      adminToken: opts.adminToken,
      serviceAccountTokens: opts.serviceAccountTokens,
      lookup: storeLookup(store),
      clientCA: opts.clientCA,
      anonymous: false,
    });
    this.rbac = new RbacAuthorizer(() => this.rbacObjects(), () => this.rbacVersion);
    store.watch(rbacPrefix, store.revision, () => this.rbacVersion++);
  }

  /**
   * The requesting user, after impersonation; 401 when credentials are missing or refused.
   * A request handed over from another server of the process (`handedOver`) is authenticated
   * by its headers alone: the TLS connection it came on was not made to this server.
   */
  async identify(req: IncomingMessage, { handedOver = false }: { handedOver?: boolean } = {}): Promise<UserInfo> {
    const outcome = authenticateRequest(handedOver ? { headers: req.headers, socket: null } : req, this.authn);
    if (outcome.result !== 'authenticated') throw unauthorized();
    // No impersonation header: the requestor acts as itself (impersonate would find no target).
    if (!hasImpersonationHeaders(req.rawHeaders)) return outcome.user;
    return impersonate(outcome.user, req.headersDistinct, (a) => this.rbac.authorize(a));
  }

  /** Throws kube's 403 unless RBAC allows the request. */
  authorize(attrs: RequestAttributes): void {
    const decision = this.rbac.authorize(attrs);
    if (!decision.allowed) throw forbiddenError(attrs, decision.reason);
  }

  private rbacObjects(): RbacObjects {
    const values = <T>(resource: string): T[] => this.store.list(`${rbacPrefix}${resource}/`).items.map((v) => v.value as unknown as T);
    return {
      roles: values<Role>('roles'),
      clusterRoles: values<ClusterRole>('clusterroles'),
      roleBindings: values<RoleBinding>('rolebindings'),
      clusterRoleBindings: values<ClusterRoleBinding>('clusterrolebindings'),
    };
  }
}

/** The authorizer's view of a resource request; a request on a namespace is in that namespace, as in kube. */
export function resourceAttributes(user: UserInfo, rr: ResourceRequest, path: string): RequestAttributes {
  const namespace = rr.group === '' && rr.resource === 'namespaces' && rr.name ? rr.name : rr.namespace;
  return {
    user,
    verb: rr.verb,
    resourceRequest: true,
    apiGroup: rr.group,
    apiVersion: rr.version,
    resource: rr.resource,
    subresource: rr.subresource,
    namespace,
    name: rr.name,
    path,
  };
}

/** The authorizer's view of a request for a path that names no resource (discovery, OpenAPI, health). */
export function nonResourceAttributes(user: UserInfo, method: string, path: string): RequestAttributes {
  const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
  return { user, verb, resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', path };
}
