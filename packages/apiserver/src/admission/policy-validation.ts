/**
 * ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * (admissionregistration.k8s.io/v1): kube's v1 defaults and the validation of
 * pkg/apis/admissionregistration/validation, in its paths and words
 * (including its `spec.matchResouces` spelling for a binding's
 * matchResources). ObjectMeta is the registry's. The CEL expressions are
 * compiled to check them (policy-expressions.ts); admission/policy enforces them.
 */
import { fieldErrors, isDNS1035Label, isDNS1123Subdomain, isJsonObject, isQualifiedName, type FieldError, type KubeObject } from '@operant/apimachinery';
import { goSlice, invalidGoValue, stringList, supportedFailurePolicies, supportedMatchPolicies, validateMatchConditions, validateRuleWithOperations } from './configuration.js';
import { isSet } from '../registry/defaults/json-fields.js';
import { validateLabelSelector } from '../registry/label-selector-validation.js';
import { policyExpressionError, type PolicyDeclarations } from './policy-expressions.js';
import type { WebhookRule } from './types.js';

type Json = Record<string, unknown>;
const asObj = (v: unknown): Json => (isJsonObject(v) ? (v as Json) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const supportedReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const validationActions = ['Audit', 'Deny', 'Warn'];
const maxAuditAnnotations = 20;
const maxAuditAnnotationValueExpressionLength = 5 * 1024;

/** kube's SetDefaults_MatchResources, and SetDefaults_Rule in each of its rules. */
function defaultMatchResources(raw: unknown): void {
  if (!isJsonObject(raw)) return;
  const mr = raw as Json;
  if (!isSet(mr.matchPolicy)) mr.matchPolicy = 'Equivalent';
  if (!isSet(mr.namespaceSelector)) mr.namespaceSelector = {};
  if (!isSet(mr.objectSelector)) mr.objectSelector = {};
  for (const list of [mr.resourceRules, mr.excludeResourceRules]) {
    if (Array.isArray(list)) for (const rule of list) if (isJsonObject(rule) && !isSet(rule.scope)) rule.scope = '*';
  }
}

/** kube's v1 defaults of a ValidatingAdmissionPolicy: failurePolicy Fail, and its matchConstraints'. */
export function defaultValidatingAdmissionPolicy(o: KubeObject): void {
  const spec = asObj(o.spec);
  if (!isJsonObject(o.spec)) return;
  if (!isSet(spec.failurePolicy)) spec.failurePolicy = 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

/** kube's v1 defaults of a ValidatingAdmissionPolicyBinding: its matchResources'. */
export function defaultValidatingAdmissionPolicyBinding(o: KubeObject): void {
  defaultMatchResources(asObj(o.spec).matchResources);
}

/** kube's validateMatchResources (a policy's matchConstraints, a binding's matchResources). */
function validateMatchResources(raw: unknown, path: string): FieldError[] {
  if (!isSet(raw)) return [];
  const mr = asObj(raw);
  const errs: FieldError[] = [];
  if (!isSet(mr.matchPolicy)) errs.push(fieldErrors.required(`${path}.matchPolicy`));
  else if (!supportedMatchPolicies.includes(str(mr.matchPolicy))) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, mr.matchPolicy, supportedMatchPolicies));
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    if (!isSet(mr[selector])) errs.push(fieldErrors.required(`${path}.${selector}`));
    else errs.push(...validateLabelSelector(mr[selector], `${path}.${selector}`, true));
  }
  for (const list of ['resourceRules', 'excludeResourceRules']) {
    const rules = Array.isArray(mr[list]) ? (mr[list] as unknown[]) : [];
    rules.forEach((rule, i) => errs.push(...validateNamedRule(asObj(rule), `${path}.${list}[${i}]`)));
  }
  return errs;
}

function validateNamedRule(rule: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  stringList(rule.resourceNames).forEach((name, i) => {
    for (const msg of pathSegmentProblems(name)) errs.push(fieldErrors.invalid(`${path}.resourceNames[${i}]`, name, msg));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  errs.push(...validateRuleWithOperations(rule as WebhookRule, path));
  return errs;
}

/** kube's path.ValidatePathSegmentName (without prefix). */
export function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

function validateParamKind(raw: unknown, path: string): FieldError[] {
  const pk = asObj(raw);
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  if (apiVersion === '') errs.push(fieldErrors.required(`${path}.apiVersion`));
  else if ((apiVersion.match(/\//g) ?? []).length > 1) {
    errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  } else if (apiVersion !== '/') {
    const slash = apiVersion.indexOf('/');
    const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
    const groupErrs = group ? isDNS1123Subdomain(group) : [];
    if (groupErrs.length) errs.push(fieldErrors.invalid(`${path}.apiVersion`, group, groupErrs.join(',')));
    if (version === '') errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const versionErrs = isDNS1035Label(version);
      if (versionErrs.length) errs.push(fieldErrors.invalid(`${path}.apiVersion`, version, versionErrs.join(',')));
    }
  }
  const kind = str(pk.kind);
  if (kind === '') errs.push(fieldErrors.required(`${path}.kind`));
  else {
    const kindErrs = isDNS1035Label(kind.toLowerCase());
    if (kindErrs.length) errs.push(fieldErrors.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
  }
  return errs;
}

/** A CEL identifier that is not a reserved word (kube's isCELIdentifier). */
const celReserved = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const isCelIdentifier = (name: string): boolean => /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !celReserved.has(name);

function expressionErrors(field: string, expression: string, declarations: PolicyDeclarations, returnTypes: readonly string[]): FieldError[] {
  const error = policyExpressionError(expression, declarations, returnTypes);
  return error ? [fieldErrors.invalid(field, expression, error)] : [];
}

function validateValidation(v: Json, path: string, hasParams: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const expression = str(v.expression);
  if (expression.trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
  else errs.push(...expressionErrors(`${path}.expression`, expression, { params: hasParams, authorizer: true }, ['bool']));
  const messageExpression = str(v.messageExpression);
  if (messageExpression.length > 0 && messageExpression.trim() === '') {
    errs.push(fieldErrors.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.trim() !== '') {
    // kube's messageExpression sees params only where match conditions may, and no authorizer.
    errs.push(...expressionErrors(`${path}.messageExpression`, messageExpression, { params: hasParams, authorizer: false }, ['string']));
  }
  const message = str(v.message);
  if (message.length > 0 && message.trim() === '') errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(message.trim())) errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  if (isSet(v.reason) && !supportedReasons.includes(str(v.reason))) errs.push(fieldErrors.notSupported(`${path}.reason`, v.reason, supportedReasons));
  return errs;
}

function validateVariable(v: Json, path: string, hasParams: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(v.name);
  if (name.trim() === '') errs.push(fieldErrors.required(`${path}.name`, 'name is not specified'));
  else if (!isCelIdentifier(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  const expression = str(v.expression);
  if (expression.trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
  else {
    // A variable may be of any type (kube's AnyType return type).
    const error = policyExpressionError(expression, { params: hasParams, authorizer: true }, ['bool', 'int', 'uint', 'double', 'string', 'bytes', 'null', 'list', 'map', 'dyn']);
    if (error && !error.startsWith('must evaluate')) errs.push(fieldErrors.invalid(`${path}.expression`, expression, error));
  }
  return errs;
}

function validateAuditAnnotation(a: Json, path: string, policyName: string, hasParams: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  if (policyName !== '') {
    for (const msg of isQualifiedName(`${policyName}/${key}`)) errs.push(fieldErrors.invalid(`${path}.key`, `${policyName}/${key}`, msg));
  } else errs.push(fieldErrors.invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  const valueExpression = str(a.valueExpression).trim();
  if (valueExpression === '') errs.push(fieldErrors.required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (valueExpression.length > maxAuditAnnotationValueExpressionLength) {
    errs.push(fieldErrors.required(`${path}.valueExpression`, `must not exceed ${maxAuditAnnotationValueExpressionLength} bytes in length`));
  } else {
    const error = policyExpressionError(valueExpression, { params: hasParams, authorizer: true }, ['string', 'null']);
    if (error) errs.push(fieldErrors.invalid(`${path}.valueExpression`, str(a.valueExpression), error));
  }
  return errs;
}

/** kube's validateValidatingAdmissionPolicySpec. */
export function validateValidatingAdmissionPolicy(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  if (!isSet(spec.failurePolicy)) errs.push(fieldErrors.required('spec.failurePolicy'));
  else if (!supportedFailurePolicies.includes(str(spec.failurePolicy))) errs.push(fieldErrors.notSupported('spec.failurePolicy', spec.failurePolicy, supportedFailurePolicies));
  const hasParams = isSet(spec.paramKind);
  if (hasParams) errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  if (!isSet(spec.matchConstraints)) errs.push(fieldErrors.required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    // At least one resource rule, to give the expressions their types.
    const rules = asObj(spec.matchConstraints).resourceRules;
    if (!Array.isArray(rules) || rules.length === 0) errs.push(fieldErrors.required('spec.matchConstraints.resourceRules'));
  }
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', (e) => policyExpressionError(e, { params: hasParams, authorizer: true }, ['bool'])));
  const variables = Array.isArray(spec.variables) ? spec.variables : [];
  variables.forEach((v, i) => errs.push(...validateVariable(asObj(v), `spec.variables[${i}]`, hasParams)));
  const validations = Array.isArray(spec.validations) ? spec.validations : [];
  const auditAnnotations = Array.isArray(spec.auditAnnotations) ? spec.auditAnnotations : [];
  if (validations.length === 0 && auditAnnotations.length === 0) {
    errs.push(fieldErrors.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(asObj(v), `spec.validations[${i}]`, hasParams)));
  if (auditAnnotations.length > maxAuditAnnotations) {
    // Go prints the whole list with %#v.
    const goValue = auditAnnotations
      .map((a) => `admissionregistration.AuditAnnotation{Key:${JSON.stringify(str(asObj(a).key))}, ValueExpression:${JSON.stringify(str(asObj(a).valueExpression))}}`)
      .join(', ');
    errs.push(invalidGoValue('spec.auditAnnotations', `[]admissionregistration.AuditAnnotation{${goValue}}`, `must not have more than ${maxAuditAnnotations} auditAnnotations`));
  }
  const keys = new Set<string>();
  auditAnnotations.forEach((a, i) => {
    const annotation = asObj(a);
    errs.push(...validateAuditAnnotation(annotation, `spec.auditAnnotations[${i}]`, o.metadata.name ?? '', hasParams));
    const key = str(annotation.key);
    if (keys.has(key)) errs.push(fieldErrors.duplicate(`spec.auditAnnotations[${i}].key`, key));
    keys.add(key);
  });
  return errs;
}

/** kube's validateValidatingAdmissionPolicyStatus: each expression warning's text and fieldRef, and metav1 conditions' shape. */
export function validateValidatingAdmissionPolicyStatus(o: KubeObject): FieldError[] {
  const status = asObj(o.status);
  const errs: FieldError[] = [];
  const warnings = asObj(status.typeChecking).expressionWarnings;
  (Array.isArray(warnings) ? warnings : []).forEach((w, i) => {
    const warning = asObj(w);
    const path = `status.typeChecking.expressionWarnings[${i}]`;
    if (str(warning.warning) === '') errs.push(fieldErrors.required(`${path}.warning`));
    if (str(warning.fieldRef).trim() === '') errs.push(fieldErrors.required(`${path}.fieldRef`));
  });
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  conditions.forEach((c, i) => {
    const condition = asObj(c);
    const path = `status.conditions[${i}]`;
    const type = str(condition.type);
    if (type === '') errs.push(fieldErrors.required(`${path}.type`));
    else for (const msg of isQualifiedName(type)) errs.push(fieldErrors.invalid(`${path}.type`, type, msg));
    if (!['True', 'False', 'Unknown'].includes(str(condition.status))) errs.push(fieldErrors.notSupported(`${path}.status`, condition.status ?? '', ['False', 'True', 'Unknown']));
    if (!condition.lastTransitionTime) errs.push(fieldErrors.required(`${path}.lastTransitionTime`, 'must be set'));
    const reason = str(condition.reason);
    if (reason === '') errs.push(fieldErrors.required(`${path}.reason`, 'must be set'));
  });
  return errs;
}

function validateParamRef(raw: unknown, path: string): FieldError[] {
  if (!isSet(raw)) return [];
  const pr = asObj(raw);
  const errs: FieldError[] = [];
  const name = str(pr.name);
  const hasSelector = isSet(pr.selector);
  if (name !== '') {
    for (const msg of pathSegmentProblems(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
    if (hasSelector) errs.push(fieldErrors.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(pr.selector, `${path}.selector`, true));
    if (name !== '') errs.push(fieldErrors.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name === '' && !hasSelector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = str(pr.parameterNotFoundAction);
  if (action === '') errs.push(fieldErrors.required(`${path}.parameterNotFoundAction`));
  else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldErrors.notSupported(`${path}.parameterNotFoundAction`, action, ['Deny', 'Allow']));
  return errs;
}

/** kube's validateValidatingAdmissionPolicyBindingSpec. */
export function validateValidatingAdmissionPolicyBinding(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (policyName === '') errs.push(fieldErrors.required('spec.policyName'));
  else for (const msg of isDNS1123Subdomain(policyName)) errs.push(fieldErrors.invalid('spec.policyName', policyName, msg));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // kube validates matchResources under this misspelt path.
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  const actions = stringList(spec.validationActions);
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!validationActions.includes(action)) errs.push(fieldErrors.notSupported(`spec.validationActions[${i}]`, action, validationActions));
    if (seen.has(action)) errs.push(fieldErrors.duplicate(`spec.validationActions[${i}]`, action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      invalidGoValue(
        'spec.validationActions',
        goSlice(actions, 'admissionregistration.ValidationAction'),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(fieldErrors.required('spec.validationActions', 'at least one validation action is required'));
  return errs;
}
