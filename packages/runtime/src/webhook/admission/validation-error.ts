/**
 * The error a validator (or defaulter) throws to deny with kube's Invalid
 * wording: `SidecarSet.apps.kruise.io "x" is invalid: spec.containers[0].name:
 * Required value`, status 422 with one cause per field.
 */
import { fieldErrorMessage, type FieldError } from '@operant/apimachinery';

/**
 * Field errors found in an object. Build them with `fieldErrors` (re-exported
 * from @operant/apimachinery): `required`, `invalid`, `forbidden`, `duplicate`,
 * `notSupported`, `tooLong`, `tooMany`.
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import { fieldErrors, ValidationError, type CustomValidator, type FieldError, type Typed } from '@operant/runtime';
 *
 * const deployments: CustomValidator<Typed<appsv1.Deployment>> = {
 *   validateCreate(d) {
 *     const errs: FieldError[] = [];
 *     if (!d.spec?.selector) errs.push(fieldErrors.required('spec.selector', ''));
 *     if ((d.spec?.replicas ?? 1) > 10) errs.push(fieldErrors.invalid('spec.replicas', d.spec?.replicas, 'must be at most 10'));
 *     if (errs.length > 0) throw new ValidationError(errs, { warnings: ['spec.paused is deprecated here'] });
 *   },
 * };
 * ```
 */
export class ValidationError extends Error {
  readonly errors: readonly FieldError[];
  /** Warnings sent along with the denial. */
  readonly warnings: readonly string[];

  constructor(errors: FieldError | readonly FieldError[], options: { warnings?: readonly string[] } = {}) {
    const list = Array.isArray(errors) ? [...(errors as readonly FieldError[])] : [errors as FieldError];
    super(list.map(fieldErrorMessage).join(', ') || 'invalid');
    this.name = 'ValidationError';
    this.errors = list;
    this.warnings = [...(options.warnings ?? [])];
  }
}
