/**
 * AdmissionReview (admission.k8s.io/v1) as it travels: the request the API
 * server sends and the response a webhook returns. v1beta1 has the same shape.
 */
import type { GroupVersionKind, GroupVersionResource, KubeObject, StatusDetails } from '@operant/apimachinery';

/**
 * The operation being admitted.
 *
 * @example
 * ```ts
 * import { allowed, denied, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => (req.operation === 'DELETE' ? allowed() : denied('read-only'));
 * ```
 */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * Who made the request.
 *
 * @example
 * ```ts
 * import type { AdmissionRequest } from '@operant/runtime';
 *
 * const isAdmin = (req: AdmissionRequest): boolean => req.userInfo.groups?.includes('system:masters') ?? false;
 * ```
 */
export interface AdmissionUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/**
 * One admission request. `object` is the new object (absent for DELETE),
 * `oldObject` the stored one (UPDATE and DELETE).
 *
 * @example
 * ```ts
 * import { type AdmissionHandler, allowed, denied } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) =>
 *   req.namespace === 'kube-system' ? denied('not in kube-system') : allowed();
 * ```
 */
export interface AdmissionRequest {
  uid: string;
  /** The kind of `object`, in the version the webhook asked for. */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  /** The kind as the user sent it (differs from `kind` when the API server converted it). */
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: AdmissionUserInfo;
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  /** The request will not be persisted: side effects must be skipped. */
  dryRun?: boolean;
  /** The operation's options (CreateOptions, UpdateOptions, DeleteOptions). */
  options?: Record<string, unknown> | null;
}

/**
 * The metav1.Status of an admission response: why it was denied (`message`,
 * `reason`, `code`, `details`).
 *
 * @example
 * ```ts
 * import type { AdmissionStatus } from '@operant/runtime';
 *
 * const status: AdmissionStatus = { code: 403, reason: 'Forbidden', message: 'spec.replicas must be even' };
 * ```
 */
export interface AdmissionStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: StatusDetails;
  status?: 'Success' | 'Failure';
  metadata?: Record<string, never>;
}

/**
 * A webhook's answer. `patch` is a base64 JSON Patch with `patchType: 'JSONPatch'`;
 * `warnings` are shown to the user (kubectl prints `Warning: ...`). The uid is filled in for you.
 *
 * @example
 * ```ts
 * import type { AdmissionResponse } from '@operant/runtime';
 *
 * const response: AdmissionResponse = { allowed: true, warnings: ['spec.foo is deprecated'] };
 * ```
 */
export interface AdmissionResponse {
  uid?: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patch?: string;
  patchType?: 'JSONPatch';
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/**
 * The review envelope, request or response.
 *
 * @example
 * ```ts
 * import type { AdmissionRequest, AdmissionReview } from '@operant/runtime';
 *
 * declare const request: AdmissionRequest;
 * const review: AdmissionReview = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: request.uid, allowed: true } };
 * ```
 */
export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1' | 'admission.k8s.io/v1beta1';
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}
