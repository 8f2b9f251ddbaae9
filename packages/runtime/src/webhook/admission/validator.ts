/**
 * Typed validating webhooks (controller-runtime's CustomValidator): one
 * method per operation, returning warnings or throwing to deny.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { Kind } from '../../kind.js';
import type { WebhookHandler } from '../contracts.js';
import { admissionHandler, decodeObject, decodeOldObject, responseForStatusError, type AdmissionContext, type AdmissionOptions } from './handler.js';
import { kindMismatch, subjectOf } from './kind-check.js';
import { allowed, denied, errored } from './responses.js';
import type { AdmissionResponse } from './types.js';

/**
 * What a validation method returns: warnings for the user, or nothing; denials are thrown.
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import type { CustomValidator, Typed, ValidationResult } from '@operant/runtime';
 *
 * const validation: CustomValidator<Typed<appsv1.Deployment>> = {
 *   validateUpdate: (_old, obj): ValidationResult => (obj.spec?.replicas === 0 ? ['replicas 0 stops every pod'] : undefined),
 * };
 * ```
 */
export type ValidationResult = void | readonly string[] | Promise<void | readonly string[]>;

/**
 * Validates objects of kind `T`. A missing method allows that operation. Throw
 * a {@link ValidationError} to deny with kube's Invalid wording (422), an API
 * error to deny with its status, or any other error to deny with its message (403).
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import { fieldErrors, ValidationError, type CustomValidator, type Typed } from '@operant/runtime';
 *
 * const deploymentValidation: CustomValidator<Typed<appsv1.Deployment>> = {
 *   validateCreate(d) {
 *     if (d.spec?.template.spec?.containers.length === 0) throw new ValidationError(fieldErrors.required('spec.template.spec.containers', 'at least one container'));
 *   },
 *   validateUpdate(oldD, newD) {
 *     if (JSON.stringify(newD.spec?.selector) !== JSON.stringify(oldD.spec?.selector)) return ['changing spec.selector orphans the old pods'];
 *   },
 * };
 * ```
 */
export interface CustomValidator<T extends KubeObject> {
  validateCreate?(obj: T, ctx: AdmissionContext): ValidationResult;
  validateUpdate?(oldObj: T, newObj: T, ctx: AdmissionContext): ValidationResult;
  validateDelete?(obj: T, ctx: AdmissionContext): ValidationResult;
}

/**
 * A validating webhook for `kind` (register it at {@link validatePath}).
 * CONNECT requests are allowed; DELETE validates `oldObject`, the object being deleted.
 *
 * @example
 * ```ts
 * import { Deployment, validatePath, validator } from '@operant/runtime';
 *
 * mgr.webhookServer.register(validatePath(Deployment), validator(Deployment, { validateCreate: (d) => (d.spec?.paused ? ['created paused'] : undefined) }));
 * ```
 */
export function validator<T extends KubeObject>(kind: Kind<T>, impl: CustomValidator<T>, options: AdmissionOptions = {}): WebhookHandler {
  return admissionHandler(async (req, ctx) => {
    if (req.operation === 'CONNECT') return allowed();
    const mismatch = kindMismatch(kind, req);
    if (mismatch) return mismatch;
    let subject: T | undefined;
    try {
      let warnings: void | readonly string[];
      switch (req.operation) {
        case 'CREATE':
          subject = decodeObject(req, kind);
          warnings = await impl.validateCreate?.(subject, ctx);
          break;
        case 'UPDATE': {
          subject = decodeObject(req, kind);
          const old = decodeOldObject(req, kind);
          warnings = await impl.validateUpdate?.(old, subject, ctx);
          break;
        }
        case 'DELETE':
          subject = decodeOldObject(req, kind);
          warnings = await impl.validateDelete?.(subject, ctx);
          break;
        default:
          return errored(400, new Error(`unknown operation ${JSON.stringify(req.operation)}`));
      }
      return allowed(warnings ?? undefined);
    } catch (err) {
      return denial(err, req, kind, subject);
    }
  }, options);
}

function denial<T extends KubeObject>(err: unknown, req: Parameters<typeof responseForStatusError>[1], kind: Kind<T>, obj: T | undefined): AdmissionResponse {
  const subject = subjectOf(kind, obj ?? { metadata: { name: req.name ?? '' } });
  return responseForStatusError(err, req, subject) ?? denied(err instanceof Error ? err.message : String(err));
}
