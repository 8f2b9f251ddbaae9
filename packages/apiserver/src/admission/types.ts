/**
 * The shapes admission works with: admissionregistration.k8s.io/v1 webhook
 * configurations as stored (untrusted JSON, so every field is optional and
 * loosely typed), and the attributes of one request going through admission.
 */
import type {
  AdmissionOperation,
  AdmissionUserInfo as WireUserInfo,
  GroupVersionKind,
  GroupVersionResource,
  KubeObject,
  LabelSelectorObject,
} from '@operant/apimachinery';
import type { WebhookClientConfig } from '../webhooks/client.js';

/** An operation a webhook rule names; `*` is every operation. */
export type RuleOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*';

/** `rules[]` of a webhook: which requests it is called for. */
export interface WebhookRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  /** `pods`, `pods/status`, `*`, `*\/status`, `*\/*`. */
  resources?: string[];
  /** `Cluster`, `Namespaced` or `*` (the v1 default). */
  scope?: string;
}

/** One CEL condition that must hold for the webhook to be called. */
export interface WebhookMatchCondition {
  name?: string;
  expression?: string;
}

/** A webhook of a Mutating- or ValidatingWebhookConfiguration (mutating ones add `reinvocationPolicy`). */
export interface AdmissionWebhook {
  name?: string;
  clientConfig?: WebhookClientConfig;
  rules?: WebhookRule[];
  /** `Fail` (the v1 default) or `Ignore`. */
  failurePolicy?: string;
  /** `Equivalent` (the v1 default) or `Exact`. */
  matchPolicy?: string;
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  /** `None` or `NoneOnDryRun` in v1 (`Some`, `Unknown` survive only from older configurations). */
  sideEffects?: string;
  /** 1 to 30; the v1 default is 10. */
  timeoutSeconds?: number;
  /** `v1` and/or `v1beta1`, in order of preference. */
  admissionReviewVersions?: string[];
  matchConditions?: WebhookMatchCondition[];
  /** Mutating webhooks only: `Never` (the default) or `IfNeeded`. */
  reinvocationPolicy?: string;
}

/** A MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
export interface WebhookConfiguration extends KubeObject {
  webhooks?: AdmissionWebhook[];
}

/** The operation of a request under admission (the AdmissionReview wire type). */
export type { AdmissionOperation };

/**
 * The requesting user, sent to webhooks as `request.userInfo`: the wire type,
 * with the username the server always knows.
 */
export interface AdmissionUserInfo extends WireUserInfo {
  username: string;
}

/** meta.k8s.io/v1 CreateOptions as webhooks receive them in `request.options`. */
export interface CreateOptionsObject {
  kind: 'CreateOptions';
  apiVersion?: 'meta.k8s.io/v1';
  dryRun?: string[];
  fieldManager?: string;
  fieldValidation?: string;
}

/** meta.k8s.io/v1 UpdateOptions (also sent for PATCH, which admission sees as UPDATE). */
export interface UpdateOptionsObject {
  kind: 'UpdateOptions';
  apiVersion?: 'meta.k8s.io/v1';
  dryRun?: string[];
  fieldManager?: string;
  fieldValidation?: string;
}

/** meta.k8s.io/v1 DeleteOptions. */
export interface DeleteOptionsObject {
  kind: 'DeleteOptions';
  apiVersion?: 'meta.k8s.io/v1';
  dryRun?: string[];
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
}

/** The options object of the operation (`request.options`). */
export type OperationOptionsObject = CreateOptionsObject | UpdateOptionsObject | DeleteOptionsObject;

/**
 * One request as admission sees it (kube's admission.Attributes).
 *
 * `kind`, `resource` and `subResource` are what the client addressed, e.g. Pod /
 * `pods` / `status` for `PUT .../pods/web/status`, or autoscaling/v1 Scale /
 * `deployments` / `scale` for the scale subresource. Webhooks receive them as
 * `requestKind`, `requestResource` and `requestSubResource`, and also as `kind`,
 * `resource` and `subResource` unless the webhook matched an equivalent resource
 * in another version (matchPolicy Equivalent).
 */
export interface AdmissionAttributes {
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  /** `''` or absent for the main resource. */
  subResource?: string;
  /** Overrides what webhooks receive as `requestKind` (default: `kind`). */
  requestKind?: GroupVersionKind;
  /** Overrides what webhooks receive as `requestResource` (default: `resource`). */
  requestResource?: GroupVersionResource;
  /** Overrides what webhooks receive as `requestSubResource` (default: `subResource`). */
  requestSubResource?: string;
  /** The object's name; `''` on a create with generateName (kube generates the name after admission). */
  name: string;
  /**
   * The namespace; `''` for cluster-scoped objects. For a Namespace itself kube uses its
   * name; the chain fills that in when left empty.
   */
  namespace: string;
  operation: AdmissionOperation;
  userInfo: AdmissionUserInfo;
  /** The new object: absent for DELETE (and CONNECT). */
  object?: KubeObject;
  /** The current object for UPDATE and DELETE; absent for CREATE. */
  oldObject?: KubeObject;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions; `apiVersion` is filled in when missing. */
  options?: OperationOptionsObject;
}

/** Which resource and kind a webhook is called as: the request's own, or an equivalent one. */
export interface WebhookInvocation {
  resource: GroupVersionResource;
  subResource: string;
  kind: GroupVersionKind;
}

/**
 * Other versions (or groups) serving the same stored objects, for matchPolicy
 * Equivalent: kube's EquivalentResourceMapper plus the object conversion it implies.
 * A webhook whose rules name only `apps/v1beta1 deployments` is then called, in that
 * version, for requests to `apps/v1 deployments`.
 */
export interface ResourceEquivalence {
  /** Every resource serving the same objects as `resource` (it may include `resource` itself). */
  equivalentResourcesFor(resource: GroupVersionResource, subResource: string): GroupVersionResource[];
  /** The kind served at `resource`/`subResource`, or undefined when unknown. */
  kindFor(resource: GroupVersionResource, subResource: string): GroupVersionKind | undefined;
  /** Converts an object to the given version and kind (may call a conversion webhook). */
  convert(obj: KubeObject, to: GroupVersionKind): KubeObject | Promise<KubeObject>;
}
