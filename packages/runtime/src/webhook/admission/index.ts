/**
 * Admission webhooks: typed defaulters and validators per kind, raw handlers
 * for any kind, response helpers, field errors and controller-runtime's paths.
 */
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  AdmissionUserInfo,
} from './types.js';
export { allowed, denied, deniedWithStatus, errored, jsonPatchBetween, patched } from './responses.js';
export {
  admissionHandler,
  decodeObject,
  decodeOldObject,
  DecodeError,
  formatGroupVersionKind,
  type AdmissionContext,
  type AdmissionHandler,
  type AdmissionOptions,
} from './handler.js';
export { defaulter, type CustomDefaulter } from './defaulter.js';
export { validator, type CustomValidator, type ValidationResult } from './validator.js';
export { ValidationError } from './validation-error.js';
export { mutatePath, validatePath, webhookPath, type PathKind } from './paths.js';
/** Field error constructors (`fieldErrors.required(...)`) for {@link ValidationError}. */
export { fieldErrors, type FieldError } from '@operant/apimachinery';
