/** The options of each verb, parsed from the query string and DeleteOptions body. */
import type { UserInfo } from '../auth/authn/user-info.js';

/** Who the server's own controllers act as (kube's loopback client is in system:masters). */
export const serverUser: UserInfo = { username: 'system:apiserver', groups: ['system:masters'] };
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  fieldManager?: string;
  /** The request's User-Agent: its first word names the manager of an update without fieldManager. */
  userAgent?: string;
  /** For apply requests: take fields other managers own (`force=true`). */
  force?: boolean;
  /** Who makes the request (admission webhooks see it); the server itself when absent. */
  user?: UserInfo;
  /** Set when admission already ran on a subresource view of the change (the Scale of `<resource>/scale`). */
  skipAdmission?: boolean;
  /**
   * Set when the body of a create or update is the request's own parse, which
   * nothing else holds: it is decoded in place rather than copied first.
   */
  ownsBody?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** Only for a watch (a list that names it is refused, as in kube). */
  sendInitialEvents?: boolean;
}

export interface WatchOptions extends ListOptions {
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface DeleteOptions {
  dryRun: boolean;
  /** Who makes the request (admission webhooks see it); the server itself when absent. */
  user?: UserInfo;
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** The outcome of a write: the object as stored (or as it would be, for a dry run) and warnings for the client. */
export interface WriteResult {
  object: Record<string, unknown>;
  warnings: string[];
  /** 201 for creates, 200 otherwise. */
  created: boolean;
}
