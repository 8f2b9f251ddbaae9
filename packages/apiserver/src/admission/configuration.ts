/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration
 * (admissionregistration.k8s.io/v1): the v1 defaults and the validation kube
 * applies when one is written, with kube's paths and messages, e.g.
 * `webhooks[0].name: Invalid value: "x": should be a domain with at least three
 * segments separated by dots`. ObjectMeta is validated by the registry.
 */
import {
  fieldErrors,
  isDNS1035Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isJsonObject,
  type FieldError,
  type KubeObject,
} from '@operant/apimachinery';
import { validateLabelSelector } from '../registry/label-selector-validation.js';
import { compileCondition } from './match-conditions.js';
import type { AdmissionWebhook, WebhookConfiguration, WebhookMatchCondition, WebhookRule } from './types.js';
import { isSet } from '../registry/defaults/json-fields.js';

/** AdmissionReview versions the server speaks, in kube's order. */
export const acceptedAdmissionReviewVersions = ['v1', 'v1beta1'] as const;

/** Default `timeoutSeconds` of a v1 webhook. */
export const defaultTimeoutSeconds = 10;

// Sorted as Go's sets.String.List() sorts them, since the messages list them so.
export const supportedFailurePolicies = ['Fail', 'Ignore'];
export const supportedMatchPolicies = ['Equivalent', 'Exact'];
const supportedSideEffectClasses = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const noSideEffectClasses = ['None', 'NoneOnDryRun'];
const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const supportedReinvocationPolicies = ['IfNeeded', 'Never'];
const validScopes = ['*', 'Cluster', 'Namespaced'];
const maxMatchConditions = 64;

type Json = Record<string, unknown>;

function webhooksOf(obj: KubeObject): unknown[] {
  const hooks = (obj as WebhookConfiguration).webhooks;
  return Array.isArray(hooks) ? hooks : [];
}

/**
 * Applies kube's v1 defaults in place: failurePolicy Fail, matchPolicy Equivalent,
 * namespaceSelector and objectSelector `{}`, timeoutSeconds 10, reinvocationPolicy
 * Never (mutating only), rules' scope `*`, and service port 443. sideEffects and
 * admissionReviewVersions have no default in v1: validation requires them.
 */
export function defaultWebhookConfiguration(obj: KubeObject, mutating: boolean): void {
  for (const raw of webhooksOf(obj)) {
    if (!isJsonObject(raw)) continue;
    const hook = raw as Json;
    if (!isSet(hook.failurePolicy)) hook.failurePolicy = 'Fail';
    if (!isSet(hook.matchPolicy)) hook.matchPolicy = 'Equivalent';
    if (!isSet(hook.namespaceSelector)) hook.namespaceSelector = {};
    if (!isSet(hook.objectSelector)) hook.objectSelector = {};
    if (!isSet(hook.timeoutSeconds)) hook.timeoutSeconds = defaultTimeoutSeconds;
    if (mutating && !isSet(hook.reinvocationPolicy)) hook.reinvocationPolicy = 'Never';
    if (Array.isArray(hook.rules)) {
      for (const rule of hook.rules) if (isJsonObject(rule) && !isSet(rule.scope)) rule.scope = '*';
    }
    const cc = hook.clientConfig;
    if (isJsonObject(cc) && isJsonObject(cc.service) && !isSet(cc.service.port)) cc.service.port = 443;
  }
}

/** What an update may keep from the old object that a create may not introduce (kube's ratcheting). */
interface ValidationOptions {
  ignoreMatchConditions: boolean;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const createOptions: ValidationOptions = {
  ignoreMatchConditions: false,
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
};

/** Validates a webhook configuration being created (kube's Validate{Mutating,Validating}WebhookConfiguration). */
export function validateWebhookConfiguration(obj: KubeObject, mutating: boolean): FieldError[] {
  return validateConfiguration(obj, mutating, createOptions);
}

/**
 * Validates an update: what the old configuration already had (side effects Some or
 * Unknown, unknown AdmissionReview versions, duplicate names, invalid selector values,
 * unchanged match conditions) is tolerated, as in kube.
 */
export function validateWebhookConfigurationUpdate(obj: KubeObject, old: KubeObject, mutating: boolean): FieldError[] {
  const oldHooks = webhooksOf(old).map((h) => (isJsonObject(h) ? (h as AdmissionWebhook) : {}));
  const newHooks = webhooksOf(obj).map((h) => (isJsonObject(h) ? (h as AdmissionWebhook) : {}));
  const sameConditions =
    oldHooks.length === newHooks.length &&
    oldHooks.every((h, i) => JSON.stringify(h.matchConditions ?? null) === JSON.stringify(newHooks[i]!.matchConditions ?? null));
  const names = oldHooks.map((h) => h.name ?? '');
  return validateConfiguration(obj, mutating, {
    ignoreMatchConditions: sameConditions,
    requireNoSideEffects: oldHooks.every((h) => typeof h.sideEffects === 'string' && noSideEffectClasses.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = Array.isArray(h.admissionReviewVersions) ? h.admissionReviewVersions : [];
      return versions.length === 0 || versions.some((v) => (acceptedAdmissionReviewVersions as readonly string[]).includes(v));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: oldHooks.some(
      (h) => validateLabelSelector(h.namespaceSelector, '', true).length > 0 || validateLabelSelector(h.objectSelector, '', true).length > 0,
    ),
  });
}

function validateConfiguration(obj: KubeObject, mutating: boolean, opts: ValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  webhooksOf(obj).forEach((raw, i) => {
    const path = `webhooks[${i}]`;
    const hook: AdmissionWebhook = isJsonObject(raw) ? (raw as AdmissionWebhook) : {};
    errs.push(...validateWebhook(hook, mutating, opts, path));
    errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, `${path}.admissionReviewVersions`));
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (seen.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
      else seen.add(name);
    }
  });
  return errs;
}

/** Go's `%#v` of a string slice, as field errors print slice values: `[]string{"*", "apps"}`. */
/** A slice as Go's `%#v` prints it: `[]string{"a", "b"}`. */
export function goSlice(values: readonly unknown[], type = 'string'): string {
  return `[]${type}{${values.map((v) => JSON.stringify(String(v))).join(', ')}}`;
}

/** An Invalid error whose value Go prints with `%#v` (slices), kept verbatim in the message. */
export function invalidGoValue(field: string, goValue: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, hasValue: false, detail: `${goValue}: ${detail}` };
}

export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : [];
}

function validateWebhook(hook: AdmissionWebhook, mutating: boolean, opts: ValidationOptions, path: string): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...fullyQualifiedNameErrors(`${path}.name`, typeof hook.name === 'string' ? hook.name : ''));
  (Array.isArray(hook.rules) ? hook.rules : []).forEach((rule, i) => {
    errs.push(...validateRuleWithOperations(isJsonObject(rule) ? (rule as WebhookRule) : {}, `${path}.rules[${i}]`));
  });
  if (isSet(hook.failurePolicy) && !supportedFailurePolicies.includes(String(hook.failurePolicy))) {
    errs.push(fieldErrors.notSupported(`${path}.failurePolicy`, hook.failurePolicy, supportedFailurePolicies));
  }
  if (isSet(hook.matchPolicy) && !supportedMatchPolicies.includes(String(hook.matchPolicy))) {
    errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, hook.matchPolicy, supportedMatchPolicies));
  }
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffectClasses : supportedSideEffectClasses;
  if (!isSet(hook.sideEffects)) {
    errs.push(fieldErrors.required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  } else if (!allowedSideEffects.includes(String(hook.sideEffects))) {
    errs.push(fieldErrors.notSupported(`${path}.sideEffects`, hook.sideEffects, allowedSideEffects));
  }
  if (isSet(hook.timeoutSeconds) && (Number(hook.timeoutSeconds) > 30 || Number(hook.timeoutSeconds) < 1)) {
    errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  if (isSet(hook.namespaceSelector)) errs.push(...validateLabelSelector(hook.namespaceSelector, `${path}.namespaceSelector`, !opts.allowInvalidLabelValueInSelector));
  if (isSet(hook.objectSelector)) errs.push(...validateLabelSelector(hook.objectSelector, `${path}.objectSelector`, !opts.allowInvalidLabelValueInSelector));
  if (mutating && isSet(hook.reinvocationPolicy) && !supportedReinvocationPolicies.includes(String(hook.reinvocationPolicy))) {
    errs.push(fieldErrors.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, supportedReinvocationPolicies));
  }
  errs.push(...validateClientConfig(hook, `${path}.clientConfig`));
  if (!opts.ignoreMatchConditions) errs.push(...validateMatchConditions(hook.matchConditions, `${path}.matchConditions`));
  return errs;
}

/** kube's IsFullyQualifiedName: a DNS subdomain with at least three segments. */
function fullyQualifiedNameErrors(field: string, name: string): FieldError[] {
  if (name.length === 0) return [fieldErrors.required(field)];
  const dns = isDNS1123Subdomain(name);
  if (dns.length > 0) return [fieldErrors.invalid(field, name, dns.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(field, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** kube's validateRuleWithOperations: operations, then the rule (groups, versions, resources, scope). */
export function validateRuleWithOperations(rule: WebhookRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = stringList(rule.operations);
  if (ops.length === 0) errs.push(fieldErrors.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) {
    errs.push(invalidGoValue(`${path}.operations`, goSlice(ops, 'admissionregistration.OperationType'), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!supportedOperations.includes(op)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, op, supportedOperations));
  });
  const groups = stringList(rule.apiGroups);
  if (groups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) {
    errs.push(invalidGoValue(`${path}.apiGroups`, goSlice(groups), "if '*' is present, must not specify other API groups"));
  }
  const versions = stringList(rule.apiVersions);
  if (versions.length === 0) errs.push(fieldErrors.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) {
    errs.push(invalidGoValue(`${path}.apiVersions`, goSlice(versions), "if '*' is present, must not specify other API versions"));
  }
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(stringList(rule.resources), `${path}.resources`));
  if (isSet(rule.scope) && !validScopes.includes(String(rule.scope))) {
    errs.push(fieldErrors.notSupported(`${path}.scope`, rule.scope, validScopes));
  }
  return errs;
}

/** Resources with subresources: `*` and `x/*` and `*\/x` may not be mixed with what they cover. */
function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErrors.required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      plainResource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    errs.push(invalidGoValue(path, goSlice(resources), "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && plainResource) {
    errs.push(invalidGoValue(path, goSlice(resources), "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

function validateAdmissionReviewVersions(raw: unknown, requireRecognized: boolean, path: string): FieldError[] {
  const versions = stringList(raw);
  const accepted = acceptedAdmissionReviewVersions as readonly string[];
  if (versions.length === 0) return [fieldErrors.required(path, `must specify one of ${accepted.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let hasAccepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(fieldErrors.invalid(`${path}[${i}]`, v, msg));
    if (accepted.includes(v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted) {
    errs.push(invalidGoValue(path, goSlice(versions), `must include at least one of ${accepted.join(', ')}`));
  }
  return errs;
}

function validateClientConfig(hook: AdmissionWebhook, path: string): FieldError[] {
  const cc = isJsonObject(hook.clientConfig) ? (hook.clientConfig as Json) : {};
  const hasUrl = isSet(cc.url);
  const hasService = isSet(cc.service);
  if (hasUrl === hasService) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  if (hasUrl) return validateWebhookUrl(`${path}.url`, String(cc.url));
  const svc = isJsonObject(cc.service) ? cc.service : {};
  return validateWebhookService(`${path}.service`, svc);
}

const urlForm = '; desired format: https://host[/path]';

/** The parts of a URL as Go's net/url.Parse splits them, enough for kube's checks. */
interface GoUrlParts {
  scheme: string;
  user?: string;
  host: string;
  rawQuery: string;
  fragment: string;
}

function parseGoUrl(raw: string): GoUrlParts | string {
  let rest = raw;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  if (/[\x00-\x1f\x7f]/.test(rest)) return `parse ${JSON.stringify(raw)}: net/url: invalid control character in URL`;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (/^[^/?]*:/.test(rest) && !rest.startsWith('/')) {
    return rest.startsWith(':') ? `parse ${JSON.stringify(raw)}: missing protocol scheme` : `parse ${JSON.stringify(raw)}: first path segment in URL cannot contain colon`;
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0] ?? '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      host = authority.slice(at + 1);
    } else host = authority;
  }
  return { scheme, user, host, rawQuery, fragment };
}

/** kube's webhook.ValidateWebhookURL with https forced. */
function validateWebhookUrl(path: string, raw: string): FieldError[] {
  const u = parseGoUrl(raw);
  if (typeof u === 'string') return [fieldErrors.required(path, `url must be a valid URL: ${u}${urlForm}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${urlForm}`));
  if (u.host.length === 0) errs.push(fieldErrors.invalid(path, u.host, `host must be specified${urlForm}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment.length !== 0) errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(fieldErrors.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** kube's webhook.ValidateWebhookService. */
function validateWebhookService(path: string, svc: Json): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof svc.name === 'string' ? svc.name : '';
  const namespace = typeof svc.namespace === 'string' ? svc.namespace : '';
  if (name.length === 0) errs.push(fieldErrors.required(`${path}.name`));
  if (namespace.length === 0) errs.push(fieldErrors.required(`${path}.namespace`));
  const port = isSet(svc.port) ? Number(svc.port) : 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    errs.push(fieldErrors.invalid(`${path}.port`, svc.port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (!isSet(svc.path)) return errs;
  const urlPath = String(svc.path);
  if (urlPath === '/' || urlPath.length === 0) return errs;
  if (urlPath === '//') {
    errs.push(fieldErrors.invalid(`${path}.path`, urlPath, 'segment[0] may not be empty'));
    return errs;
  }
  if (!urlPath.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(fieldErrors.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}

/** Whether any webhook of a configuration has match conditions (compiled with CEL). */
export function hasMatchConditions(config: KubeObject): boolean {
  const hooks = (config as { webhooks?: unknown }).webhooks;
  return Array.isArray(hooks) && hooks.some((h) => isJsonObject(h) && Array.isArray(h.matchConditions) && h.matchConditions.length > 0);
}

/**
 * kube's validateMatchConditions; `compile` answers a compile error of one expression
 * (webhooks' environment by default; policies add `params` and `authorizer`).
 */
export function validateMatchConditions(raw: unknown, path: string, compile: (expression: string) => string | undefined = (e) => compileCondition('', e).compileError): FieldError[] {
  const conditions = Array.isArray(raw) ? raw : [];
  const errs: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errs.push(fieldErrors.tooMany(path, conditions.length, maxMatchConditions));
  const names = new Set<string>();
  conditions.forEach((c: unknown, i: number) => {
    const cond: WebhookMatchCondition = isJsonObject(c) ? (c as WebhookMatchCondition) : {};
    const p = `${path}[${i}]`;
    const expression = typeof cond.expression === 'string' ? cond.expression : '';
    const trimmed = expression.trim();
    if (trimmed.length === 0) errs.push(fieldErrors.required(`${p}.expression`));
    else {
      const compileError = compile(trimmed);
      if (compileError) errs.push(fieldErrors.invalid(`${p}.expression`, trimmed, compileError));
    }
    const name = typeof cond.name === 'string' ? cond.name : '';
    if (name.length === 0) errs.push(fieldErrors.required(`${p}.name`));
    else for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, msg));
    if (name.length > 0) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      else names.add(name);
    }
  });
  return errs;
}
