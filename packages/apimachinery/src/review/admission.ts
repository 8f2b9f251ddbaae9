/**
 * AdmissionReview as it travels between the API server and a webhook
 * (admission.k8s.io/v1; v1beta1 has the same shape): the request the server
 * sends and the response the webhook returns. The server builds these and the
 * runtime's webhook server answers them, so both read the one definition.
 */
import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../object.js';
import type { StatusDetails } from '../status.js';

/**
 * The operation being admitted.
 *
 * @example
 * ```ts
 * import type { AdmissionOperation } from '@operant/apimachinery';
 *
 * const writes: AdmissionOperation[] = ['CREATE', 'UPDATE'];
 * ```
 */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * Who made the request (authentication.k8s.io/v1 UserInfo).
 *
 * @example
 * ```ts
 * import type { AdmissionRequest } from '@operant/apimachinery';
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
 * `oldObject` the stored one (UPDATE and DELETE). `kind`, `resource` and
 * `subResource` are what the webhook matched; the `request*` fields are what
 * the client addressed (they differ when the server converted the object for
 * a webhook that matched an equivalent resource).
 *
 * @example
 * ```ts
 * import type { AdmissionRequest } from '@operant/apimachinery';
 *
 * const inKubeSystem = (req: AdmissionRequest): boolean => req.namespace === 'kube-system';
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
 * import type { AdmissionStatus } from '@operant/apimachinery';
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
 * `warnings` are shown to the user (kubectl prints `Warning: ...`).
 *
 * @example
 * ```ts
 * import type { AdmissionResponse } from '@operant/apimachinery';
 *
 * const response: AdmissionResponse = { uid: '705ab4f5', allowed: true, warnings: ['spec.foo is deprecated'] };
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
 * The review envelope, carrying a request (server to webhook) or a response
 * (webhook to server).
 *
 * @example
 * ```ts
 * import type { AdmissionRequest, AdmissionReview } from '@operant/apimachinery';
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
