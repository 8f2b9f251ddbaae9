/**
 * SelfSubjectReview (`kubectl auth whoami`): the server's answer to "who am
 * I", the user the request was authenticated (or impersonated) as.
 */
import type { UserInfo } from './user-info.js';

/** The versions SelfSubjectReview is served in; kubectl 1.28+ asks for v1 first. */
export type SelfSubjectReviewVersion = 'authentication.k8s.io/v1' | 'authentication.k8s.io/v1beta1' | 'authentication.k8s.io/v1alpha1';

/** A SelfSubjectReview as kube-apiserver answers it (201 Created). */
export interface SelfSubjectReview {
  apiVersion: SelfSubjectReviewVersion;
  kind: 'SelfSubjectReview';
  metadata: { creationTimestamp: string };
  status: { userInfo: ReviewUserInfo };
}

/** authentication.k8s.io UserInfo as sent: every field omitted when empty. */
export interface ReviewUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * The SelfSubjectReview for `user`, with the fields kube omits when empty (uid, groups, extra) left out.
 *
 * @param nowMs the creation time (kube stamps the review with the time it was made)
 */
export function selfSubjectReview(
  user: UserInfo,
  apiVersion: SelfSubjectReviewVersion = 'authentication.k8s.io/v1',
  nowMs: number = Date.now(),
): SelfSubjectReview {
  const userInfo = toReviewUserInfo(user);
  return {
    apiVersion,
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace('.000Z', 'Z') },
    status: { userInfo },
  };
}

/**
 * A UserInfo as authentication.k8s.io/v1 sends it (in SelfSubjectReview, TokenReview, and as
 * AdmissionReview's `request.userInfo`): empty fields omitted, extra keys sorted as Go marshals a map.
 */
export function toReviewUserInfo(user: UserInfo): ReviewUserInfo {
  const out: ReviewUserInfo = {};
  if (user.username) out.username = user.username;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) {
    out.extra = Object.fromEntries(Object.entries(user.extra).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, [...v]]));
  }
  return out;
}
