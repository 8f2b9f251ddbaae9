/**
 * kube 1.32's checks of a pod spec's scheduling fields (pkg/apis/core/validation:
 * validateAffinity and its node and pod (anti-)affinity parts, ValidateTolerations,
 * validateTopologySpreadConstraints), with kube's field paths and wording, in kube's
 * order. They run for pods and for every pod template, as kube's ValidatePodSpec does.
 *
 * Kube relaxes two checks on updates of objects that already broke them
 * (AllowInvalidLabelValueIn*); we check every write as a create, which only matters
 * for objects stored before these checks existed.
 */
import { fieldErrors, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, type FieldError } from '@operant/apimachinery';
import { asObj, asObject, type Json } from './defaults/json-fields.js';
import { validateLabelSelector } from './label-selector-validation.js';
import { validateTermLabelKeys } from './pod-affinity-label-keys.js';

const isNotPositive = 'must be greater than zero';
const weightRange = 'must be in the range 1-100';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
/** Go's zero value for an absent int32 (weights, maxSkew). */
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** unversionedvalidation.ValidateLabelName: a qualified name, each complaint an Invalid error. */
function labelName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((msg) => fieldErrors.invalid(path, value, msg));
}

// ---- node affinity ----

/** ValidateNodeSelectorRequirement (a matchExpressions entry); `checkValues` is off for preferred terms. */
function nodeSelectorRequirement(req: Json, checkValues: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(req.values);
  switch (req.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(fieldErrors.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(fieldErrors.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(fieldErrors.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(fieldErrors.invalid(`${path}.operator`, str(req.operator), 'not a valid selector operator'));
  }
  errs.push(...labelName(str(req.key), `${path}.key`));
  if (checkValues) {
    values.forEach((value, i) => {
      for (const msg of isValidLabelValue(str(value))) errs.push(fieldErrors.invalid(`${path}.values[${i}]`, str(value), msg));
    });
  }
  return errs;
}

/** ValidateNodeFieldSelectorRequirement (a matchFields entry): only `metadata.name`, In or NotIn, one node name. */
function nodeFieldSelectorRequirement(req: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(req.values);
  if (req.operator === 'In' || req.operator === 'NotIn') {
    if (values.length !== 1) errs.push(fieldErrors.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    errs.push(fieldErrors.invalid(`${path}.operator`, str(req.operator), 'not a valid selector operator'));
  }
  if (req.key !== 'metadata.name') {
    errs.push(fieldErrors.invalid(`${path}.key`, str(req.key), 'not a valid field selector key'));
  } else {
    values.forEach((value, i) => {
      for (const msg of isDNS1123Subdomain(str(value))) errs.push(fieldErrors.invalid(`${path}.values[${i}]`, str(value), msg));
    });
  }
  return errs;
}

function nodeSelectorTerm(term: Json, checkValues: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list(term.matchExpressions).forEach((req, j) => errs.push(...nodeSelectorRequirement(asObj(req), checkValues, `${path}.matchExpressions[${j}]`)));
  list(term.matchFields).forEach((req, j) => errs.push(...nodeFieldSelectorRequirement(asObj(req), `${path}.matchFields[${j}]`)));
  return errs;
}

function validateNodeAffinity(na: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const required = asObject(na.requiredDuringSchedulingIgnoredDuringExecution);
  if (required) {
    const termsPath = `${path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
    const terms = list(required.nodeSelectorTerms);
    if (terms.length === 0) errs.push(fieldErrors.required(termsPath, 'must have at least one node selector term'));
    terms.forEach((term, i) => errs.push(...nodeSelectorTerm(asObj(term), true, `${termsPath}[${i}]`)));
  }
  list(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw, i) => {
    const preferred = asObj(raw);
    const at = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    const weight = int(preferred.weight);
    if (weight <= 0 || weight > 100) errs.push(fieldErrors.invalid(`${at}.weight`, weight, weightRange));
    // kube always lets a preferred term name any label value: it may still match on a one-node cluster.
    errs.push(...nodeSelectorTerm(asObj(preferred.preference), false, `${at}.preference`));
  });
  return errs;
}

// ---- pod (anti-)affinity ----

function podAffinityTerm(term: Json, path: string): FieldError[] {
  const errs = [
    ...validateLabelSelector(term.labelSelector ?? undefined, `${path}.labelSelector`, true),
    ...validateLabelSelector(term.namespaceSelector ?? undefined, `${path}.namespaceSelector`, true),
  ];
  // kube names the field `namespace` here, not `namespaces[i]`.
  for (const name of list(term.namespaces)) {
    for (const msg of isDNS1123Label(str(name))) errs.push(fieldErrors.invalid(`${path}.namespace`, str(name), msg));
  }
  errs.push(...validateTermLabelKeys(term, path));
  const topologyKey = str(term.topologyKey);
  if (topologyKey === '') errs.push(fieldErrors.required(`${path}.topologyKey`, 'can not be empty'));
  errs.push(...labelName(topologyKey, `${path}.topologyKey`));
  return errs;
}

function validatePodAffinity(affinity: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list(affinity.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, i) =>
    errs.push(...podAffinityTerm(asObj(term), `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)),
  );
  list(affinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((raw, i) => {
    const weighted = asObj(raw);
    const at = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    const weight = int(weighted.weight);
    if (weight <= 0 || weight > 100) errs.push(fieldErrors.invalid(`${at}.weight`, weight, weightRange));
    errs.push(...podAffinityTerm(asObj(weighted.podAffinityTerm), `${at}.podAffinityTerm`));
  });
  return errs;
}

/** kube's validateAffinity for `spec.affinity` at `path`. */
export function validateAffinity(value: unknown, path: string): FieldError[] {
  const affinity = asObject(value);
  if (!affinity) return [];
  const errs: FieldError[] = [];
  const node = asObject(affinity.nodeAffinity);
  if (node) errs.push(...validateNodeAffinity(node, `${path}.nodeAffinity`));
  const pod = asObject(affinity.podAffinity);
  if (pod) errs.push(...validatePodAffinity(pod, `${path}.podAffinity`));
  const anti = asObject(affinity.podAntiAffinity);
  if (anti) errs.push(...validatePodAffinity(anti, `${path}.podAntiAffinity`));
  return errs;
}

// ---- topology spread constraints ----

const unsatisfiableActions = ['DoNotSchedule', 'ScheduleAnyway'];
const nodeInclusionPolicies = ['Honor', 'Ignore'];

/** validateMatchLabelKeysInTopologySpread: label names, a selector to go with them, and no key the selector already names. */
function spreadMatchLabelKeys(keys: unknown[], selector: Json | undefined, path: string): FieldError[] {
  if (keys.length === 0) return [];
  const errs: FieldError[] = [];
  const selectorKeys = new Set<string>();
  if (selector) {
    for (const key of Object.keys(asObj(selector.matchLabels))) selectorKeys.add(key);
    for (const expression of list(selector.matchExpressions)) selectorKeys.add(str(asObj(expression).key));
  } else {
    errs.push(fieldErrors.forbidden(path, 'must not be specified when labelSelector is not set'));
  }
  keys.forEach((raw, i) => {
    const key = str(raw);
    errs.push(...labelName(key, `${path}[${i}]`));
    if (selectorKeys.has(key)) errs.push(fieldErrors.invalid(`${path}[${i}]`, key, 'exists in both matchLabelKeys and labelSelector'));
  });
  return errs;
}

/** kube's validateTopologySpreadConstraints for `spec.topologySpreadConstraints` at `path`. */
export function validateTopologySpreadConstraints(value: unknown, path: string): FieldError[] {
  const constraints = list(value).map(asObj);
  const errs: FieldError[] = [];
  constraints.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const maxSkew = int(c.maxSkew);
    if (maxSkew <= 0) errs.push(fieldErrors.invalid(`${at}.maxSkew`, maxSkew, isNotPositive));
    const topologyKey = str(c.topologyKey);
    if (topologyKey === '') errs.push(fieldErrors.required(`${at}.topologyKey`, 'can not be empty'));
    const action = str(c.whenUnsatisfiable);
    if (!unsatisfiableActions.includes(action)) errs.push(fieldErrors.notSupported(`${at}.whenUnsatisfiable`, action, unsatisfiableActions));
    // {topologyKey, whenUnsatisfiable} names one kind of constraint; kube reports the first of a repeated pair.
    if (constraints.slice(i + 1).some((other) => str(other.topologyKey) === topologyKey && str(other.whenUnsatisfiable) === action)) {
      errs.push(fieldErrors.duplicate(`${at}.{topologyKey, whenUnsatisfiable}`, `{${topologyKey}, ${action}}`));
    }
    if (c.minDomains !== undefined && c.minDomains !== null) {
      const minDomains = int(c.minDomains);
      if (minDomains <= 0) errs.push(fieldErrors.invalid(`${at}.minDomains`, minDomains, isNotPositive));
      if (action !== 'DoNotSchedule') {
        errs.push(fieldErrors.invalid(`${at}.minDomains`, minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
      }
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
      const v = c[policy];
      if (v !== undefined && v !== null && !nodeInclusionPolicies.includes(str(v))) {
        errs.push(fieldErrors.notSupported(`${at}.${policy}`, str(v), nodeInclusionPolicies));
      }
    }
    errs.push(...spreadMatchLabelKeys(list(c.matchLabelKeys), asObject(c.labelSelector), `${at}.matchLabelKeys`));
    errs.push(...validateLabelSelector(c.labelSelector ?? undefined, `${at}.labelSelector`, true));
  });
  return errs;
}

// ---- tolerations ----

const tolerationOperators = ['Equal', 'Exists'];
const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** kube's ValidateTolerations for `spec.tolerations` at `path`. */
export function validateTolerations(value: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list(value).forEach((raw, i) => {
    const t = asObj(raw);
    const at = `${path}[${i}]`;
    const key = str(t.key);
    const operator = str(t.operator);
    const effect = str(t.effect);
    if (key !== '') errs.push(...labelName(key, `${at}.key`));
    // An empty key with Exists (and no value) tolerates every taint; with any other operator it means nothing.
    if (key === '' && operator !== 'Exists') {
      errs.push(fieldErrors.invalid(`${at}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== 'NoExecute') {
      errs.push(fieldErrors.invalid(`${at}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === '' || operator === 'Equal') {
      const msgs = isValidLabelValue(str(t.value));
      if (msgs.length > 0) errs.push(fieldErrors.invalid(`${at}.operator`, str(t.value), msgs.join(';')));
    } else if (operator === 'Exists') {
      // Since kube 1.32 the error shows the value, not the whole toleration (kubernetes/kubernetes#128119).
      if (str(t.value) !== '') errs.push(fieldErrors.invalid(`${at}.operator`, str(t.value), "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(fieldErrors.notSupported(`${at}.operator`, operator, tolerationOperators));
    }
    if (effect !== '' && !taintEffects.includes(effect)) errs.push(fieldErrors.notSupported(`${at}.effect`, effect, taintEffects));
  });
  return errs;
}
