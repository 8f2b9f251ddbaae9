/**
 * What `operant create webhook` and `operant alpha webhook` write: for the
 * project's own kinds, a typed defaulter and validator (controller-runtime's
 * CustomDefaulter / CustomValidator); for a built-in kind such as Pod, raw
 * admission handlers that decode the object and read others through the
 * manager's client, as a sidecar injector's Pod handler does. Each part is a
 * section of one file per kind and version, with its +kubebuilder:webhook
 * marker; a later command appends the parts that are missing.
 */

export type WebhookPart = 'defaulting' | 'validation';

export interface WebhookTemplateInput {
  qualifiedGroup: string;
  version: string;
  kind: string;
  plural: string;
  resource: boolean;
  /** Operations per part, lower case (create, update, delete). */
  operations: Partial<Record<WebhookPart, string[]>>;
}

const lower = (s: string): string => s.toLowerCase();
const camel = (kind: string): string => kind[0].toLowerCase() + kind.slice(1);

/** controller-runtime's path: `/mutate-apps-kruise-io-v1alpha1-sidecarset`, `/mutate--v1-pod`. */
export function webhookPath(prefix: 'mutate' | 'validate', w: WebhookTemplateInput): string {
  return `/${prefix}-${w.qualifiedGroup.replace(/\./g, '-')}-${w.version}-${lower(w.kind)}`;
}

function marker(part: WebhookPart, w: WebhookTemplateInput): string {
  const mutating = part === 'defaulting';
  const groups = w.qualifiedGroup === '' ? '""' : w.qualifiedGroup;
  const name = `${mutating ? 'm' : 'v'}${lower(w.kind)}-${w.version}.kb.io`;
  return (
    `// +kubebuilder:webhook:path=${webhookPath(mutating ? 'mutate' : 'validate', w)},mutating=${mutating},failurePolicy=fail,sideEffects=None,` +
    `groups=${groups},resources=${w.plural},verbs=${(w.operations[part] ?? ['create', 'update']).join(';')},versions=${w.version},name=${name},admissionReviewVersions=v1`
  );
}

/** The function a part registers with, which main.ts calls: a typed defaulter, or a raw mutating handler for a built-in kind. */
export function setupFunctionName(part: WebhookPart, kind: string, resource: boolean): string {
  const role = part === 'validation' ? 'Validating' : resource ? 'Defaulting' : 'Mutating';
  return `setup${kind}${role}Webhook`;
}

export function webhookHeader(w: WebhookTemplateInput): string {
  if (!w.resource) return `import { ${w.kind}, admissionHandler, allowed, decodeObject, patched, type Manager } from '@operant/runtime';\n`;
  return `import { defaulter, mutatePath, validatePath, validator, type CustomDefaulter, type CustomValidator, type Manager } from '@operant/runtime';
import { ${w.kind} } from '../../api/${w.version}/zz_generated.kinds.js';
`;
}

function typedSection(part: WebhookPart, w: WebhookTemplateInput): string {
  const v = camel(w.kind);
  if (part === 'defaulting') {
    return `
${marker(part, w)}

/** Sets default values on ${w.kind} objects when they are created or updated. */
export const ${v}Defaulter: CustomDefaulter<${w.kind}> = {
  default(obj) {
    // TODO(user): fill in your defaulting logic, e.g. obj.spec.replicas ??= 1.
    void obj;
  },
};

export function ${setupFunctionName(part, w.kind, w.resource)}(mgr: Manager): void {
  mgr.webhookServer.register(mutatePath(${w.kind}), defaulter(${w.kind}, ${v}Defaulter));
}
`;
  }
  return `
${marker(part, w)}

/** Validates ${w.kind} objects. Return warnings, or throw a ValidationError (fieldErrors) to deny. */
export const ${v}Validator: CustomValidator<${w.kind}> = {
  validateCreate(obj) {
    // TODO(user): fill in your validation logic upon object creation.
    void obj;
  },
  validateUpdate(oldObj, newObj) {
    // TODO(user): fill in your validation logic upon object update.
    void oldObj;
    void newObj;
  },
  validateDelete(obj) {
    // TODO(user): fill in your validation logic upon object deletion.
    void obj;
  },
};

export function ${setupFunctionName(part, w.kind, w.resource)}(mgr: Manager): void {
  mgr.webhookServer.register(validatePath(${w.kind}), validator(${w.kind}, ${v}Validator));
}
`;
}

function rawSection(part: WebhookPart, w: WebhookTemplateInput): string {
  const v = camel(w.kind);
  if (part === 'defaulting') {
    return `
${marker(part, w)}

/**
 * Mutates ${w.kind} objects as they are admitted. ctx.client is the manager's
 * client, for reading other objects (from the cache).
 */
export const ${v}MutatingHandler = admissionHandler(async (req, ctx) => {
  if (req.operation === 'DELETE') return allowed();
  const original = decodeObject(req, ${w.kind});
  const mutated = structuredClone(original);
  // TODO(user): change \`mutated\`; e.g. await ctx.client.list(...) to find what to inject.
  void ctx;
  return patched(original, mutated);
});

export function ${setupFunctionName(part, w.kind, w.resource)}(mgr: Manager): void {
  mgr.webhookServer.register('${webhookPath('mutate', w)}', ${v}MutatingHandler);
}
`;
  }
  return `
${marker(part, w)}

/** Validates ${w.kind} objects as they are admitted; ctx.client reads other objects. */
export const ${v}ValidatingHandler = admissionHandler(async (req, ctx) => {
  // A DELETE carries the object in oldObject: decodeOldObject(req, ${w.kind}) reads it.
  if (req.operation === 'DELETE') return allowed();
  const object = decodeObject(req, ${w.kind});
  // TODO(user): return denied('why') to refuse the request.
  void object;
  void ctx;
  return allowed();
});

export function ${setupFunctionName(part, w.kind, w.resource)}(mgr: Manager): void {
  mgr.webhookServer.register('${webhookPath('validate', w)}', ${v}ValidatingHandler);
}
`;
}

/** One part of the webhook file. */
export function webhookSection(part: WebhookPart, w: WebhookTemplateInput): string {
  return w.resource ? typedSection(part, w) : rawSection(part, w);
}
