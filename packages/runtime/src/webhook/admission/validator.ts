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
 * const sidecarSetValidation: CustomValidator<SidecarSetObject> = {
 *   validateCreate(obj) {
 *     if (obj.spec.containers.length === 0) throw new ValidationError(fieldErrors.required('spec.containers', 'at least one container'));
 *   },
 *   validateUpdate(oldObj, newObj) {
 *     if (newObj.spec.selector !== oldObj.spec.selector) return ['changing spec.selector re-injects every pod'];
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
 * server.register(validatePath(SidecarSet), validator(SidecarSet, sidecarSetValidation));
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
