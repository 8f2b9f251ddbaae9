/**
 * Admission webhooks: the configurations' defaults and validation, matching, and
 * the chain that calls mutating and validating webhooks for each request.
 */
export {
  acceptedAdmissionReviewVersions,
  defaultTimeoutSeconds,
  defaultWebhookConfiguration,
  validateWebhookConfiguration,
  validateWebhookConfigurationUpdate,
} from './configuration.js';
export { AdmissionChain, admissionWarnings, type AdmissionChainOptions, type AdmitOptions, type AdmitResult, type ValidateResult } from './dispatcher.js';
export { isExemptFromWebhooks, ruleMatches } from './matching.js';
export type {
  AdmissionAttributes,
  AdmissionOperation,
  AdmissionUserInfo,
  AdmissionWebhook,
  CreateOptionsObject,
  DeleteOptionsObject,
  OperationOptionsObject,
  ResourceEquivalence,
  RuleOperation,
  UpdateOptionsObject,
  WebhookConfiguration,
  WebhookInvocation,
  WebhookMatchCondition,
  WebhookRule,
} from './types.js';
