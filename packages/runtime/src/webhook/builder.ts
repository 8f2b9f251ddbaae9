/**
 * The webhook builder (controller-runtime's `ctrl.NewWebhookManagedBy(mgr).For(&T{})
 * .WithDefaulter(d).WithValidator(v).Complete()`): each call registers a typed
 * webhook for one kind at kubebuilder's path on the manager's server, at once,
 * so a mistake (a second defaulter for the kind) throws at the faulty call.
 * It also remembers what it registered (kind, path, operations), which is all
 * a webhook configuration needs, for a manager that installs its own in a
 * local run (see `ManagerWebhookOptions.localConfigurations`).
 */
import type { KubeObject } from '@operant/apimachinery';
import type { Kind } from '../kind.js';
import type { WebhookHandler } from './contracts.js';
import { defaulter, type CustomDefaulter } from './admission/defaulter.js';
import { mutatePath, validatePath } from './admission/paths.js';
import type { AdmissionOperation } from './admission/types.js';
import { validator, type CustomValidator } from './admission/validator.js';

/**
 * What a webhook configuration says about a typed webhook beyond its kind and
 * path. These settings reach the API server only through the configurations
 * the manager installs in a local run; in a cluster, the
 * `+kubebuilder:webhook` marker's `verbs`, `failurePolicy` and `name` do
 * (`operant generate` writes them into config/webhook/manifests.yaml), so
 * keep both the same.
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 *
 * mgr.webhook(Deployment).validator(
 *   { validateDelete: (d) => (d.metadata.labels?.['protected'] === 'true' ? ['deleting a protected deployment'] : undefined) },
 *   { operations: ['DELETE'], failurePolicy: 'Ignore' }, // verbs=delete,failurePolicy=ignore
 * );
 * ```
 */
export interface TypedWebhookOptions {
  /**
   * The operations the API server sends; default `CREATE` and `UPDATE`, as
   * kubebuilder scaffolds its markers (`verbs=create;update`), and for a
   * validator with `validateDelete` also `DELETE`.
   */
  operations?: readonly AdmissionOperation[];
  /** What the API server does when the webhook cannot be reached; default `Fail`, as kubebuilder's markers. */
  failurePolicy?: 'Fail' | 'Ignore';
  /** The webhook's name; default kubebuilder's, `m<kind>-<version>.kb.io` or `v<kind>-<version>.kb.io`. */
  name?: string;
}

/**
 * A typed webhook as the builder registered it: what a webhook configuration
 * needs to call it.
 *
 * @example
 * ```ts
 * import { Deployment, type TypedWebhook } from '@operant/runtime';
 *
 * const registered: TypedWebhook = {
 *   type: 'mutating', kind: Deployment, path: '/mutate-apps-v1-deployment',
 *   name: 'mdeployment-v1.kb.io', operations: ['CREATE', 'UPDATE'], failurePolicy: 'Fail',
 * };
 * ```
 */
export interface TypedWebhook {
  readonly type: 'mutating' | 'validating';
  readonly kind: Kind;
  readonly path: string;
  readonly name: string;
  readonly operations: readonly AdmissionOperation[];
  readonly failurePolicy: 'Fail' | 'Ignore';
}

/**
 * Builds the typed webhooks of one kind on a webhook server (`mgr.webhook(kind)`).
 *
 * @example
 * ```ts
 * import { Deployment, fieldErrors, ValidationError } from '@operant/runtime';
 *
 * mgr
 *   .webhook(Deployment) // serves /mutate-apps-v1-deployment and /validate-apps-v1-deployment
 *   .defaulter({ default: (d) => void (d.spec!.revisionHistoryLimit ??= 3) })
 *   .validator({
 *     validateCreate(d) {
 *       if (d.spec?.replicas === 0) throw new ValidationError(fieldErrors.invalid('spec.replicas', 0, 'must be at least 1'));
 *     },
 *   });
 * ```
 */
export class WebhookBuilder<T extends KubeObject> {
  constructor(
    readonly kind: Kind<T>,
    private readonly register: (webhook: TypedWebhook, handler: WebhookHandler) => void,
  ) {}

  /**
   * Serves `impl` as the kind's defaulting webhook at {@link mutatePath}
   * (controller-runtime's `WithDefaulter`). Once per kind: a second one throws.
   */
  defaulter(impl: CustomDefaulter<T>, options: TypedWebhookOptions = {}): this {
    const { kind } = this;
    this.register(
      {
        type: 'mutating',
        kind,
        path: mutatePath(kind),
        name: options.name ?? `m${kind.kind.toLowerCase()}-${kind.version}.kb.io`,
        operations: options.operations ?? ['CREATE', 'UPDATE'],
        failurePolicy: options.failurePolicy ?? 'Fail',
      },
      defaulter(kind, impl),
    );
    return this;
  }

  /**
   * Serves `impl` as the kind's validating webhook at {@link validatePath}
   * (controller-runtime's `WithValidator`). Once per kind: a second one throws.
   */
  validator(impl: CustomValidator<T>, options: TypedWebhookOptions = {}): this {
    const { kind } = this;
    const operations: readonly AdmissionOperation[] = impl.validateDelete ? ['CREATE', 'UPDATE', 'DELETE'] : ['CREATE', 'UPDATE'];
    this.register(
      {
        type: 'validating',
        kind,
        path: validatePath(kind),
        name: options.name ?? `v${kind.kind.toLowerCase()}-${kind.version}.kb.io`,
        operations: options.operations ?? operations,
        failurePolicy: options.failurePolicy ?? 'Fail',
      },
      validator(kind, impl),
    );
    return this;
  }
}
