/**
 * certificates.k8s.io/v1 CertificateSigningRequests, as kube's
 * pkg/registry/certificates/certificates serves them: the requestor
 * (username, uid, groups, extra) is taken from the request's user on create,
 * whatever the client sent; the spec never changes after; the signer writes
 * status.certificate through `status`, an approver the Approved and Denied
 * conditions through `approval`. Validation is pkg/apis/certificates/validation's,
 * in its words.
 */
import { fieldErrors, isDNS1123Label, isDNS1123Subdomain, type FieldError, type KubeObject } from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';
import { certificateChainError, certificateRequestError } from '../tls/certificate-request.js';
import { nowTimestamp } from './object-meta.js';
import { baseStrategy, withStatus, type Strategy, type SubresourceStrategy } from './strategy.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

interface Condition {
  type?: string;
  status?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

const conditionsOf = (o: KubeObject): Condition[] => {
  const c = asObj(o.status).conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
};
const usagesOf = (o: KubeObject): unknown[] => {
  const u = asObj(o.spec).usages;
  return Array.isArray(u) ? u : [];
};
/** A `[]byte` field as the bytes Go holds (the wire has them base64; decoding checked that). */
const bytesOf = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : '', 'base64');

const approved = 'Approved';
const denied = 'Denied';
const failed = 'Failed';
/** Condition types whose status may only be True. */
const trueOnlyTypes = new Set([approved, denied, failed]);
const allStatuses = ['False', 'True', 'Unknown'];
const legacyUnknownSignerName = 'kubernetes.io/legacy-unknown';

/** KeyUsage values of certificates/v1, sorted as Go's sets.String.List() lists them. */
const validUsages = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel',
  'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime',
  'server auth', 'signing', 'timestamping',
];

/**
 * What a write may do (kube's certificateValidationOptions): the first two by
 * the endpoint, the rest tolerating in an update what the stored object
 * already had wrong.
 */
interface ValidationOptions {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

const hasDuplicates = (values: unknown[]): boolean => new Set(values).size !== values.length;

function validationOptions(csr: KubeObject, old: KubeObject | undefined): ValidationOptions {
  const oldTypes = old ? conditionsOf(old).map((c) => c.type ?? '') : [];
  const oldUsages = old ? usagesOf(old) : [];
  const oldCertificate = asObj(old?.status).certificate;
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes(approved) && oldTypes.includes(denied),
    allowLegacySignerName: asObj(old?.spec).signerName === legacyUnknownSignerName,
    allowDuplicateConditionTypes: hasDuplicates(oldTypes),
    allowEmptyConditionType: oldTypes.includes(''),
    allowArbitraryCertificate:
      !!old && (sameJson(asObj(csr.status).certificate, oldCertificate) || certificateChainError(bytesOf(oldCertificate)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !validUsages.includes(String(u))),
    allowDuplicateUsages: hasDuplicates(oldUsages),
  };
}

/** kube's ValidateSignerName: `<domain>/<path>`, the domain of DNS labels, the path of DNS subdomains. */
function validateSignerName(field: string, signerName: string): FieldError[] {
  if (signerName === '') return [fieldErrors.required(field)];
  const segments = signerName.split('/');
  if (segments.length !== 2) {
    return [fieldErrors.invalid(field, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  const [domain, path] = segments;
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(fieldErrors.tooLong(field, '', 253));
  const domainLabels = domain.split('.');
  for (const label of domainLabels) {
    const problems = isDNS1123Label(label);
    if (problems.length === 0) continue;
    for (const p of problems) errs.push(fieldErrors.invalid(field, domain, `validating label ${JSON.stringify(label)}: ${p}`));
    break;
  }
  if (domainLabels.length < 2) errs.push(fieldErrors.invalid(field, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of path.split('.')) {
    const problems = isDNS1123Subdomain(label);
    if (problems.length === 0) continue;
    for (const p of problems) errs.push(fieldErrors.invalid(field, path, `validating label ${JSON.stringify(label)}: ${p}`));
    break;
  }
  const maxSignerNameLength = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > maxSignerNameLength) errs.push(fieldErrors.tooLong(field, '', maxSignerNameLength));
  return errs;
}

function validateConditions(csr: KubeObject, opts: ValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let hasApproved = false;
  let hasDenied = false;
  conditionsOf(csr).forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    const type = c.type ?? '';
    if (!opts.allowEmptyConditionType && type === '') errs.push(fieldErrors.required(`${at}.type`));
    const allowed = trueOnlyTypes.has(type) ? ['True'] : allStatuses;
    if (!c.status) errs.push(fieldErrors.required(`${at}.status`));
    else if (!allowed.includes(c.status)) errs.push(fieldErrors.notSupported(`${at}.status`, c.status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === approved) hasApproved = true;
      if (type === denied) hasDenied = true;
      if ((type === approved && hasDenied) || (type === denied && hasApproved)) {
        errs.push(fieldErrors.invalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(fieldErrors.duplicate(`${at}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

/** kube's validateCertificateSigningRequest (ObjectMeta is the registry's). */
async function validateCsr(csr: KubeObject, opts: ValidationOptions): Promise<FieldError[]> {
  const spec = asObj(csr.spec);
  const errs: FieldError[] = [];
  const request = bytesOf(spec.request);
  const requestError = await certificateRequestError(request);
  if (requestError) errs.push(fieldErrors.invalid('spec.request', request, requestError));
  const usages = usagesOf(csr);
  if (usages.length === 0) errs.push(fieldErrors.required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!validUsages.includes(String(u))) errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, validUsages));
    });
  }
  if (!opts.allowDuplicateUsages) {
    usages.forEach((u, i) => {
      if (usages.indexOf(u) < i) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u));
    });
  }
  const signerName = typeof spec.signerName === 'string' ? spec.signerName : '';
  if (!opts.allowLegacySignerName && signerName === legacyUnknownSignerName) {
    errs.push(fieldErrors.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', signerName));
  }
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certificateError = certificateChainError(bytesOf(asObj(csr.status).certificate));
    if (certificateError) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', certificateError));
  }
  return errs;
}

/** kube's validateCertificateSigningRequestUpdate, for the endpoint that `opts` allows. */
async function validateCsrUpdate(csr: KubeObject, old: KubeObject, endpoint: Partial<ValidationOptions>): Promise<FieldError[]> {
  const opts = { ...validationOptions(csr, old), ...endpoint };
  const errs = await validateCsr(csr, opts);
  const ofType = (o: KubeObject, type: string): Condition[] => conditionsOf(o).filter((c) => c.type === type);
  for (const type of [approved, denied, failed]) {
    if (ofType(csr, type).length < ofType(old, type).length) {
      errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const type of [approved, denied]) {
      const before = ofType(old, type);
      const after = ofType(csr, type);
      if (after.length > before.length) {
        errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(type)}`));
      } else if (after.length === before.length && !sameJson(before, after)) {
        errs.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(type)}`));
      }
    }
  }
  const certificate = bytesOf(asObj(csr.status).certificate);
  const oldCertificate = bytesOf(asObj(old.status).certificate);
  if (!certificate.equals(oldCertificate)) {
    if (!opts.allowSettingCertificate) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCertificate.length > 0) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/**
 * kube's populateConditionTimestamps: a condition without lastUpdateTime gets
 * now; one without lastTransitionTime keeps that of a stored condition of the
 * same type and status, else now.
 */
function populateConditionTimestamps(conditions: Condition[], old: KubeObject): void {
  const now = nowTimestamp();
  for (const c of conditions) {
    c.lastUpdateTime ||= now;
    if (!c.lastTransitionTime) {
      const same = conditionsOf(old).find((o) => o.type === c.type && o.status === c.status && o.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

/** `status`: the signer sets the certificate and its own conditions; Approved and Denied stay as stored. */
const statusStrategy: SubresourceStrategy = {
  prepareForUpdate(incoming, old) {
    const status = structuredClone(asObj(incoming.status));
    const conditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
    for (const type of [approved, denied]) {
      const stored = conditionsOf(old).filter((c) => c.type === type);
      const given = conditions.flatMap((c, i) => (c.type === type ? [i] : []));
      // Adding or removing them is left for validation to refuse.
      if (stored.length === given.length) given.forEach((at, n) => (conditions[at] = structuredClone(stored[n])));
    }
    populateConditionTimestamps(conditions, old);
    return withStatus(old, status);
  },
  validateUpdate: (obj, old) => validateCsrUpdate(obj, old, { allowSettingCertificate: true }),
  // The signer owns the certificate, not the conditions (kube's csrStatusStrategy reset fields).
  resetStatusFields: ['conditions'],
};

/** `approval`: only the conditions change; the certificate stays as stored. */
const approvalStrategy: SubresourceStrategy = {
  prepareForUpdate(incoming, old) {
    const given = asObj(incoming.status).conditions;
    const conditions = Array.isArray(given) ? (structuredClone(given) as Condition[]) : undefined;
    if (conditions) populateConditionTimestamps(conditions, old);
    const status = { ...structuredClone(asObj(old.status)), conditions };
    if (!conditions) delete status.conditions;
    return withStatus(old, status);
  },
  validateUpdate: (obj, old) => validateCsrUpdate(obj, old, { allowSettingApprovalConditions: true }),
  resetStatusFields: ['certificate'],
};

/** The requestor as kube records it: the user's name, uid, groups and extra, nothing the client sent. */
function recordRequestor(spec: Json, user: UserInfo): void {
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user.username) spec.username = user.username;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
}

/** The CertificateSigningRequest strategy, with its `status` and `approval` subresources. */
export function certificateSigningRequestStrategy(): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    nameValidator: 'path-segment',
    resetFields: ['spec'],
    prepareForCreate(o, user) {
      o.spec = asObj(o.spec);
      recordRequestor(o.spec as Json, user);
      // Users cannot create pre-approved (or pre-issued) requests.
      o.status = {};
    },
    prepareForUpdate(o, old) {
      o.spec = structuredClone(old.spec);
    },
    validate: (o) => validateCsr(o, validationOptions(o, undefined)),
    validateUpdate: (o, old) => validateCsrUpdate(o, old, {}),
    subresourceStrategies: { status: statusStrategy, approval: approvalStrategy },
  });
}
