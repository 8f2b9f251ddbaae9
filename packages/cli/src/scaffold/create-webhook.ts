/**
 * `operant create webhook` (kubebuilder v4's flags) and `operant alpha
 * webhook` (`--type` and `--operations`, as older kubebuilder had it): a defaulting
 * and/or validating webhook for a kind, as a section of
 * src/webhooks/<version>/<kind>-webhook.ts, registered in main.ts, with the
 * webhook's kustomize wiring the first time; then `operant generate` writes
 * config/webhook/manifests.yaml.
 */
import { generateProject } from '../commands/generate.js';
import { scaffoldWebhookConfig } from './config-tree.js';
import { MAIN, registerInMain } from './main-file.js';
import { findResource, readProjectConfig, writeProjectConfig } from './project-config.js';
import { ProjectFiles, ScaffoldError } from './project-files.js';
import { isBuiltinGroup, kindFileName, pluralOf, qualifiedGroup, validateGroup, validateKind, validateVersion } from './names.js';
import { setupFunctionName, webhookHeader, webhookSection, type WebhookPart, type WebhookTemplateInput } from './templates/webhook.js';

export interface CreateWebhookOptions {
  dir: string;
  group: string;
  version: string;
  kind: string;
  /** The parts to add, each with its operations (lower case). */
  parts: Partial<Record<WebhookPart, string[]>>;
  plural?: string;
}

const OPERATIONS = new Set(['create', 'update', 'delete', 'connect', '*']);

/** `--operations=create,update` as the marker's verbs. */
export function parseOperations(text: string): string[] {
  const ops = text.split(/[,;]/).map((o) => o.trim().toLowerCase()).filter(Boolean);
  if (ops.length === 0) throw new ScaffoldError('--operations: give at least one of create, update, delete, connect');
  for (const op of ops) if (!OPERATIONS.has(op)) throw new ScaffoldError(`--operations: unknown operation ${JSON.stringify(op)}: use create, update, delete or connect`);
  return ops;
}

export function createWebhook(o: CreateWebhookOptions): string[] {
  validateGroup(o.group);
  validateVersion(o.version);
  validateKind(o.kind);
  const parts = Object.keys(o.parts) as WebhookPart[];
  if (parts.length === 0) throw new ScaffoldError('say which webhook to create: --defaulting and/or --programmatic-validation (or --type=mutating|validating)');
  const files = new ProjectFiles(o.dir);
  const config = readProjectConfig(files.read('PROJECT'));
  let resource = findResource(config, o.group, o.version, o.kind);
  // `apps` is both a Kubernetes group and, with the domain, a project's own (apps.kruise.io): PROJECT decides.
  const builtin = !resource?.api && isBuiltinGroup(o.group);
  if (!builtin && !resource?.api) {
    throw new ScaffoldError(`the API ${o.group}/${o.version}, Kind=${o.kind} does not exist: create it first with operant create api`);
  }
  if (!resource) {
    resource = { core: true, group: o.group, kind: o.kind, path: `k8s.io/api/${o.group}/${o.version}`, version: o.version };
    config.resources = [...(config.resources ?? []), resource];
  }
  const existing = resource.webhooks ?? { webhookVersion: 'v1' as const };
  for (const part of parts) {
    if (existing[part]) throw new ScaffoldError(`a ${part} webhook for ${o.group}/${o.version}, Kind=${o.kind} already exists`);
  }
  const input: WebhookTemplateInput = {
    qualifiedGroup: qualifiedGroup(o.group, config.domain, !builtin),
    version: o.version,
    kind: o.kind,
    plural: o.plural ?? resource.plural ?? pluralOf(o.kind),
    resource: !builtin,
    operations: o.parts,
  };
  const file = `src/webhooks/${o.version}/${kindFileName(o.kind)}-webhook.ts`;
  const sections = parts.map((p) => webhookSection(p, input)).join('');
  if (files.exists(file)) files.update(file, (text) => text + sections);
  else files.create(file, webhookHeader(input) + sections);
  for (const part of parts) {
    const setup = setupFunctionName(part, o.kind, !builtin);
    files.update(MAIN, (text) => registerInMain(text, { names: [setup], from: `./webhooks/${o.version}/${kindFileName(o.kind)}-webhook.js` }, 'webhook', setup));
    existing[part] = true;
  }
  resource.webhooks = existing;
  scaffoldWebhookConfig(files, { projectName: config.projectName, domain: config.domain });
  files.put('PROJECT', writeProjectConfig(config));
  const written = files.commit();
  return [...written, ...generateProject(o.dir)];
}
