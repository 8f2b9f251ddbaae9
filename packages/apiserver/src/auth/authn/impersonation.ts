/**
 * User impersonation (`kubectl --as=... --as-group=... --as-uid=...`) as
 * kube-apiserver's WithImpersonation filter does it: every requested user,
 * ServiceAccount, group, uid and extra value needs the `impersonate` verb on
 * users, serviceaccounts, groups, uids or userextras/<key>; the first one
 * refused ends the request with kube's 403. The impersonated user replaces the
 * authenticated one for everything after (authorization, admission, audit).
 */
import { StatusError, badRequest, forbidden } from '@operant/apimachinery';
import {
  allAuthenticatedGroup,
  allUnauthenticatedGroup,
  anonymousUsername,
  isPrivileged,
  serviceAccountGroups,
  serviceAccountUsername,
  splitServiceAccountUsername,
  type UserInfo,
} from './user-info.js';
import type { RequestAttributes } from '../rbac/attributes.js';

/** What an authorizer decides on: the RBAC authorizer's request attributes. */
export type AuthorizationAttributes = RequestAttributes;

/** An authorizer's answer; `reason` is appended to the Forbidden message when the request is denied. */
export interface AuthorizationDecision {
  allowed: boolean;
  reason?: string;
}

/** The authorizer impersonation asks (the RBAC authorizer, or a test's stand-in). */
export type Authorize = (attributes: AuthorizationAttributes) => AuthorizationDecision | Promise<AuthorizationDecision>;

/** Request headers with every value of repeated headers, names in lower case (Node's `req.headersDistinct`). */
export type DistinctHeaders = Record<string, string[] | undefined>;

/** The impersonation headers, as client-go sends them. */
export const impersonationHeaders = {
  user: 'Impersonate-User',
  group: 'Impersonate-Group',
  uid: 'Impersonate-Uid',
  extraPrefix: 'Impersonate-Extra-',
} as const;

const userHeader = impersonationHeaders.user.toLowerCase();
const groupHeader = impersonationHeaders.group.toLowerCase();
const uidHeader = impersonationHeaders.uid.toLowerCase();
const extraPrefix = impersonationHeaders.extraPrefix.toLowerCase();

/** What every impersonation header's name begins with, in lower case. */
const impersonatePrefix = 'impersonate-';

/**
 * Whether a request carries any impersonation header (every one begins with
 * `Impersonate-`, in any case), read from its raw header lines: most requests
 * carry none, and Node's `headersDistinct` builds an object of every header
 * when first read.
 */
export function hasImpersonationHeaders(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // 'i' or 'I' first, then the whole prefix in lower case.
    if ((name.charCodeAt(0) | 0x20) === 0x69 && name.length > impersonatePrefix.length && name.slice(0, impersonatePrefix.length).toLowerCase() === impersonatePrefix) return true;
  }
  return false;
}

/** One thing the requestor asks to act as. */
type Target =
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'User'; name: string }
  | { kind: 'Group'; name: string }
  | { kind: 'UserExtra'; key: string; value: string }
  | { kind: 'UID'; name: string };

/** Whether the request carries any impersonation header. */
export function impersonationRequested(headers: DistinctHeaders): boolean {
  return Object.keys(headers).some((h) => h === userHeader || h === groupHeader || h === uidHeader || h.startsWith(extraPrefix));
}

/**
 * The user a request acts as: `requestor` itself when no impersonation headers are present, else
 * the impersonated user once `authorize` has allowed every part of it (members of `system:masters`
 * may impersonate anyone without asking). The impersonated user is in `system:authenticated`
 * unless `system:authenticated` or `system:unauthenticated` was requested explicitly; a requested
 * `system:anonymous` is in `system:unauthenticated`. A ServiceAccount impersonated without groups
 * gets its ServiceAccount groups.
 *
 * @throws StatusError Forbidden (403) in kube's words, e.g. `users "jane" is forbidden: User "bob"
 *   cannot impersonate resource "users" in API group "" at the cluster scope`; BadRequest (400) for
 *   groups, uid or extras without a user.
 */
export async function impersonate(requestor: UserInfo, headers: DistinctHeaders, authorize: Authorize): Promise<UserInfo> {
  const targets = impersonationTargets(headers);
  if (targets.length === 0) return requestor;
  const groupsSpecified = (headers[groupHeader]?.length ?? 0) > 0;

  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const target of targets) {
    const attributes: AuthorizationAttributes = {
      user: requestor,
      verb: 'impersonate',
      resourceRequest: true,
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
      path: '',
    };
    switch (target.kind) {
      case 'ServiceAccount':
        Object.assign(attributes, { resource: 'serviceaccounts', namespace: target.namespace, name: target.name });
        username = serviceAccountUsername(target.namespace, target.name);
        if (!groupsSpecified) groups = serviceAccountGroups(target.namespace);
        break;
      case 'User':
        Object.assign(attributes, { resource: 'users', name: target.name });
        username = target.name;
        break;
      case 'Group':
        Object.assign(attributes, { resource: 'groups', name: target.name });
        groups.push(target.name);
        break;
      case 'UserExtra':
        Object.assign(attributes, { apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'userextras', subresource: target.key, name: target.value });
        (extra[target.key] ??= []).push(target.value);
        break;
      case 'UID':
        Object.assign(attributes, { apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'uids', name: target.name });
        uid = target.name;
        break;
    }
    if (isPrivileged(requestor)) continue;
    const decision = await authorize(attributes);
    if (!decision.allowed) throw forbiddenError(attributes, decision.reason ?? '');
  }

  if (username !== anonymousUsername) {
    if (!groups.includes(allAuthenticatedGroup) && !groups.includes(allUnauthenticatedGroup)) groups.push(allAuthenticatedGroup);
  } else if (!groups.includes(allUnauthenticatedGroup)) {
    groups.push(allUnauthenticatedGroup);
  }
  const user: UserInfo = { username, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

/**
 * The 403 kube's responsewriters.Forbidden sends for denied attributes, e.g.
 * `users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope`.
 */
function forbiddenError(attributes: AuthorizationAttributes, reason: string): StatusError {
  const message = forbiddenMessage(attributes);
  const why = reason ? `${message}: ${reason}` : message;
  // kube's NewForbidden with an empty GroupResource: `forbidden: User "x" cannot get path "/foo"`.
  if (!attributes.resourceRequest) return new StatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  return forbidden({ group: attributes.apiGroup, resource: attributes.resource }, attributes.name, why);
}

/** `User "bob" cannot <verb> resource "<resource[/sub]>" in API group "<g>" (in the namespace "<ns>"|at the cluster scope)`. */
function forbiddenMessage(attributes: AuthorizationAttributes): string {
  const user = JSON.stringify(attributes.user.username);
  if (!attributes.resourceRequest) return `User ${user} cannot ${attributes.verb} path ${JSON.stringify(attributes.path)}`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const scope = attributes.namespace ? `in the namespace ${JSON.stringify(attributes.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.apiGroup)} ${scope}`;
}

/** The things to impersonate, in kube's order: user, groups, extras, uid. */
function impersonationTargets(headers: DistinctHeaders): Target[] {
  const targets: Target[] = [];
  const requestedUser = headers[userHeader]?.[0] ?? '';
  if (requestedUser) {
    const sa = splitServiceAccountUsername(requestedUser);
    targets.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: requestedUser });
  }
  const groups = headers[groupHeader] ?? [];
  for (const name of groups) targets.push({ kind: 'Group', name });
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(extraPrefix) || !values) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(extraPrefix.length).toLowerCase());
    for (const value of values) targets.push({ kind: 'UserExtra', key, value });
  }
  const requestedUid = headers[uidHeader]?.[0] ?? '';
  if (requestedUid) targets.push({ kind: 'UID', name: requestedUid });
  if ((groups.length > 0 || hasExtra || requestedUid) && !requestedUser) {
    throw badRequest(`requested ${goObjectReferences(targets)} without impersonating a user`);
  }
  return targets;
}

/** Extra keys are sent percent-encoded (client-go escapes them); a malformed escape is kept as sent. */
function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%') || /%(?![0-9a-fA-F]{2})/.test(encoded)) return encoded;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Go's `%v` of the []ObjectReference kube builds: `[{Group  admins    }]`. */
function goObjectReferences(targets: Target[]): string {
  const fields = (t: Target): string[] => {
    // Kind Namespace Name UID APIVersion ResourceVersion FieldPath
    switch (t.kind) {
      case 'ServiceAccount':
        return [t.kind, t.namespace, t.name, '', '', '', ''];
      case 'User':
      case 'Group':
        return [t.kind, '', t.name, '', '', '', ''];
      case 'UserExtra':
        return [t.kind, '', t.value, '', 'authentication.k8s.io/v1', '', t.key];
      case 'UID':
        return [t.kind, '', t.name, '', 'authentication.k8s.io/v1', '', ''];
    }
  };
  return `[${targets.map((t) => `{${fields(t).join(' ')}}`).join(' ')}]`;
}
