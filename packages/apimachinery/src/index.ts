/**
 * `@operant/apimachinery`: what both ends of the Kubernetes API need, as
 * k8s.io/apimachinery is for Go. The root holds what an operator author or a
 * client uses: objects, Status errors and field errors, selectors, name and
 * metadata validation, patches, quantities. The server's machinery lives
 * behind subpaths: `/schema` (structural schemas), `/cel`, `/managedfields`,
 * `/jsonpath`, `/cron`, `/patch` (limits and Go-style printing), `/json`
 * (a duplicate-key scanner). The reviewed list of root exports is
 * testdata/root-exports.json.
 */
export {
  apiVersionOf,
  deepCopy,
  isJsonObject,
  jsonEqual,
  parseApiVersion,
  type DeepMutable,
  type GroupResource,
  type GroupVersionKind,
  type GroupVersionResource,
  type JsonObject,
  type JsonValue,
  type KubeObject,
  type ObjectMeta,
  type OwnerReference,
} from './object.js';
export { fieldErrorMessage, fieldErrors, type FieldError, type FieldErrorType } from './field-errors.js';
export {
  StatusError,
  aggregateMessages,
  alreadyExists,
  badRequest,
  conflict,
  expired,
  forbidden,
  gone,
  internalError,
  invalid,
  methodNotAllowed,
  namespaceTerminating,
  notAcceptable,
  notFound,
  objectModifiedMessage,
  requestEntityTooLarge,
  successStatus,
  timeout,
  tooManyRequests,
  unauthorized,
  unknownError,
  unsupportedMediaType,
  type Status,
  type StatusCause,
  type StatusDetails,
  type StatusReason,
} from './status.js';
export {
  SelectorError,
  escapeFieldSelectorValue,
  everythingFieldSelector,
  everythingLabelSelector,
  fieldSelectorFromSet,
  fieldValue,
  labelSelectorFromObject,
  labelSelectorFromSet,
  parseFieldSelector,
  parseLabelSelector,
  type FieldGetter,
  type FieldOperator,
  type FieldRequirement,
  type FieldSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
  type LabelSelectorFromObjectOptions,
  type LabelSelectorObject,
} from './selectors/index.js';
export {
  fieldImmutableErrorMsg,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  maxLenError,
  regexError,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type NameValidatorName,
  type ObjectMetaValidationOptions,
} from './validation/index.js';
export { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, type JsonPatchOperation } from './patch/index.js';
export { canonicalQuantity } from './quantity/canonical.js';
export type { OpenApiSchema } from './openapi-schema.js';
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  AdmissionUserInfo,
} from './review/admission.js';
export type { ConversionRequest, ConversionResponse, ConversionReview } from './review/conversion.js';
export { applyDefaults, evaluateRules, pruneValue, validateValue } from './deprecated.js';
