/**
 * Per-kind behaviour plugged into the one generic registry, in the shape of
 * k8s.io/apiserver's RESTCreateStrategy / RESTUpdateStrategy: defaults,
 * preparation of new objects, validation, and which parts of an object each
 * endpoint may change.
 */
import type { FieldError, KubeObject, StatusError } from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';

/** One create or update as the store is about to prepare and validate it. */
export interface WriteToAuthorize {
  user: UserInfo;
  /** The request's namespace (`''` for cluster-scoped kinds). */
  namespace: string;
  /** The name in the request path: `''` for a POST. */
  requestName: string;
  /** The object the write would store, after the mutating webhooks. */
  object: KubeObject;
  /** The stored object an update replaces; absent on a create. */
  old?: KubeObject;
}

/** Ends what a write holds against other writes until it is stored or has failed (see Strategy.beginCreate). */
export type EndHold = () => void;

export interface Strategy {
  /** Whether the kind has metadata.generation, bumped on changes outside metadata and status. */
  tracksGeneration: boolean;
  /** Whether the main endpoint ignores `status` (the kind has a status subresource). */
  hasStatusSubresource: boolean;
  /** Whether a DELETE answers with the deleted object rather than a Status. */
  returnsDeletedObject: boolean;
  /** Whether PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** Whether a PUT without a resourceVersion replaces whatever is stored (false: it is refused, as for custom resources and CRDs). */
  allowUnconditionalUpdate: boolean;
  /** Fills in defaults (both on create and update), as kube's defaulting functions do. */
  applyDefaults(obj: KubeObject): void;
  /** kube's built-in mutating admission plugins for a new object, which run before the mutating webhooks. */
  admitCreate(obj: KubeObject): void;
  /**
   * kube's BeginCreate: after the mutating webhooks and before prepareForCreate, takes
   * what a new object holds outside its own key (a Service's node ports), so that no
   * other write can take it while this one is validated and its validating webhooks
   * are awaited. Returns what ends the hold, which the store calls once, when the
   * object is stored (the stored object holds it from then on) or the create failed.
   * A dry run checks without holding, as kube's dry-run allocators do.
   */
  beginCreate?(obj: KubeObject, dryRun: boolean): EndHold | undefined;
  /** kube's BeginUpdate: as beginCreate, for an update through the main resource, before prepareForUpdate. */
  beginUpdate?(obj: KubeObject, old: KubeObject, dryRun: boolean): EndHold | undefined;
  /**
   * Adjusts a new object before validation (clears status, allocates, sets phase);
   * `user` made the request (a CertificateSigningRequest records its requestor).
   */
  prepareForCreate(obj: KubeObject, user: UserInfo): void;
  /** Adjusts an updated object before validation. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /**
   * Loads what validating `obj` needs and what is loaded only when first needed (CEL, for a CRD
   * with rules or a webhook with match conditions), before the write path's synchronous steps.
   * Returns undefined when there is nothing to wait for.
   */
  prepareValidation?(obj: KubeObject): Promise<void> | undefined;
  /** Kind-specific validation on create (ObjectMeta is validated by the registry); asynchronous where it checks a signature. */
  validate(obj: KubeObject): FieldError[] | Promise<FieldError[]>;
  /** Kind-specific validation on update. */
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] | Promise<FieldError[]>;
  /**
   * Subresources written as `status` is, but with a strategy of their own (kube's
   * status and approval strategies of CertificateSigningRequests), by name. Absent
   * for a subresource: a write through it changes the status alone and is not
   * validated beyond metadata.
   */
  subresourceStrategies?: Record<string, SubresourceStrategy>;
  /** Top-level fields an update through the resource keeps as stored, besides a subresource's status (a CSR's `spec`): its managers never own them. */
  resetFields?: string[];
  /**
   * For kinds deleted gracefully (kube's RESTGracefulDeleteStrategy, pods): the
   * grace period in seconds a DELETE gives `obj`, from the one it asked for
   * (undefined when it named none); 0 deletes at once. Absent: deleted at once.
   */
  gracePeriod?(obj: KubeObject, requested: number | undefined): number;
  /** kube's rule for the kind's names: DNS subdomains (the default), DNS labels (namespaces, services), path segments (RBAC). */
  nameValidator?: 'subdomain' | 'label' | 'path-segment';
  /**
   * Refuses a create or update its user may not make, by returning kube's error. It runs
   * on the decoded object after the mutating webhooks and before preparation and
   * validation, where kube's RBAC storages (policybased) wrap Create and Update.
   */
  authorizeWrite?(write: WriteToAuthorize): StatusError | undefined;
  /** Refuses a DELETE of `name` before anything is read, by throwing a StatusError (the namespaces kube never deletes). */
  beforeDelete?(name: string): void;
  /** Adjusts an object that a DELETE leaves in place for its finalizers or grace period (a namespace's Terminating phase). */
  prepareForDeletion?(obj: KubeObject): void;
  /** Finalizers the kind keeps outside metadata.finalizers, which block deletion too (a namespace's spec.finalizers). */
  specFinalizers?(obj: KubeObject): string[];
}

/** How an update through one subresource is prepared and validated (kube's per-subresource strategies). */
export interface SubresourceStrategy {
  /** The object to store from the request's `incoming` object and the stored `old` one (which must not be modified). */
  prepareForUpdate(incoming: KubeObject, old: KubeObject): KubeObject;
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] | Promise<FieldError[]>;
  /** Fields under `status` a write here may not own (kube's GetResetFields of the subresource's strategy), as paths. */
  resetStatusFields?: string[];
}

/** The stored object with only its status replaced: what an update through a status-like subresource keeps. */
export function withStatus(old: KubeObject, status: unknown): KubeObject {
  const obj = structuredClone(old);
  if (status === undefined) delete obj.status;
  else obj.status = structuredClone(status);
  return obj;
}

/** The behaviour every kind starts from. */
export function baseStrategy(overrides: Partial<Strategy> = {}): Strategy {
  return {
    tracksGeneration: false,
    hasStatusSubresource: false,
    returnsDeletedObject: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    applyDefaults: () => {},
    admitCreate: () => {},
    prepareForCreate: () => {},
    prepareForUpdate: () => {},
    validate: () => [],
    validateUpdate: () => [],
    ...overrides,
  };
}

/**
 * A kind whose status is written through its status subresource only (kube's
 * strategies that clear the status in PrepareForCreate): generation tracked,
 * status kept out of the main endpoint and emptied on create.
 */
export function statusSubresourceStrategy(overrides: Partial<Strategy> = {}): Strategy {
  return baseStrategy({
    tracksGeneration: true,
    hasStatusSubresource: true,
    prepareForCreate(o) {
      o.status = {};
    },
    ...overrides,
  });
}
