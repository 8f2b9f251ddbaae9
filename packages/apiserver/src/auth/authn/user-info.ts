/**
 * The identity a request runs as (k8s.io/apiserver's user.Info), with the
 * well-known user and group names kube-apiserver gives out. Field names match
 * authentication.k8s.io/v1 UserInfo, so a UserInfo can be sent as it is in a
 * TokenReview, SelfSubjectReview or AdmissionReview.
 */
import { isDNS1123Label, isDNS1123Subdomain } from '@operant/apimachinery';

/** Who a request is made by. */
export interface UserInfo {
  /** The user name, e.g. `kubernetes-admin` or `system:serviceaccount:default:op`. */
  username: string;
  /** A unique value that tells apart users of the same name over time (ServiceAccounts: their uid). */
  uid?: string;
  /** Groups the user is in, in the order the authenticator gave them. */
  groups: string[];
  /** Additional facts from the authenticator, e.g. `authentication.kubernetes.io/pod-name`. */
  extra?: Record<string, string[]>;
}

/** Group every authenticated user is in. */
export const allAuthenticatedGroup = 'system:authenticated';
/** Group of the anonymous user. */
export const allUnauthenticatedGroup = 'system:unauthenticated';
/** The superuser group: its members pass every authorization check. */
export const systemPrivilegedGroup = 'system:masters';
/** User name of requests that present no credentials. */
export const anonymousUsername = 'system:anonymous';
/** Group of every ServiceAccount. */
export const allServiceAccountsGroup = 'system:serviceaccounts';

/** `user.Info.Extra` keys kube-apiserver sets. */
export const extraKeys = {
  credentialId: 'authentication.kubernetes.io/credential-id',
  podName: 'authentication.kubernetes.io/pod-name',
  podUid: 'authentication.kubernetes.io/pod-uid',
  nodeName: 'authentication.kubernetes.io/node-name',
  nodeUid: 'authentication.kubernetes.io/node-uid',
} as const;

const serviceAccountUsernamePrefix = 'system:serviceaccount:';

/** The anonymous user: `system:anonymous` in `system:unauthenticated`. */
export function anonymousUser(): UserInfo {
  return { username: anonymousUsername, groups: [allUnauthenticatedGroup] };
}

/** `system:serviceaccount:<namespace>:<name>` */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `${serviceAccountUsernamePrefix}${namespace}:${name}`;
}

/** The groups every ServiceAccount of `namespace` is in: `system:serviceaccounts`, `system:serviceaccounts:<namespace>`. */
export function serviceAccountGroups(namespace: string): string[] {
  return [allServiceAccountsGroup, `${allServiceAccountsGroup}:${namespace}`];
}

/**
 * The namespace and name in a ServiceAccount user name, or undefined when `username` is not one
 * (as kube's SplitUsername: exactly two parts, a valid namespace and a valid ServiceAccount name).
 */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/**
 * Adds `system:authenticated` to an authenticated user unless it is already there, as
 * kube's AuthenticatedGroupAdder does after every successful authentication.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === anonymousUsername || user.groups.includes(allAuthenticatedGroup)) return user;
  return { ...user, groups: [...user.groups, allAuthenticatedGroup] };
}

/** Whether the user is in `system:masters`. */
export function isPrivileged(user: UserInfo): boolean {
  return user.groups.includes(systemPrivilegedGroup);
}
