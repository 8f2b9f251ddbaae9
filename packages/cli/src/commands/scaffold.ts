/**
 * The scaffolding commands: `operant init`, `operant create api`,
 * `operant create webhook` and `operant alpha webhook`, with kubebuilder's
 * flags. Each prints what it wrote; a refused command writes nothing.
 */
import { createApi } from '../scaffold/create-api.js';
import { createWebhook, parseOperations } from '../scaffold/create-webhook.js';
import { init } from '../scaffold/init.js';
import { ScaffoldError } from '../scaffold/project-files.js';

/** A kubebuilder boolean flag: absent, bare (true), or =true / =false. */
export function parseBool(flag: string, value: string | boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ScaffoldError(`--${flag}: expected true or false, not ${JSON.stringify(value)}`);
}

function report(paths: string[]): void {
  for (const p of [...new Set(paths)]) process.stdout.write(`wrote ${p}\n`);
}

export interface InitFlags {
  domain: string;
  repo?: string;
  projectName?: string;
  owner?: string;
}

export function runInit(flags: InitFlags): void {
  report(init({ dir: process.cwd(), ...flags }));
  process.stdout.write('Next: npm install, then npx operant create api --group <group> --version <version> --kind <Kind>\n');
}

export interface CreateApiFlags {
  group: string;
  version: string;
  kind: string;
  namespaced?: string | boolean;
  /** A common misspelling of --namespaced, read as it. */
  namespace?: string | boolean;
  resource?: string | boolean;
  controller?: string | boolean;
  plural?: string;
}

export function runCreateApi(flags: CreateApiFlags): void {
  let namespaced = flags.namespaced;
  if (flags.namespace !== undefined) {
    process.stderr.write('warning: --namespace is not a flag of create api; reading it as --namespaced (use --namespaced=false for a cluster-scoped kind)\n');
    namespaced ??= flags.namespace;
  }
  report(
    createApi({
      dir: process.cwd(),
      group: flags.group,
      version: flags.version,
      kind: flags.kind,
      namespaced: parseBool('namespaced', namespaced, true),
      resource: parseBool('resource', flags.resource, true),
      controller: parseBool('controller', flags.controller, true),
      plural: flags.plural,
    }),
  );
}

export interface CreateWebhookFlags {
  group: string;
  version: string;
  kind: string;
  defaulting?: boolean;
  programmaticValidation?: boolean;
  conversion?: boolean;
  plural?: string;
}

export function runCreateWebhook(flags: CreateWebhookFlags): void {
  if (flags.conversion) throw new ScaffoldError('--conversion: conversion webhooks are not scaffolded yet; the runtime serves them (see the runtime guide), register yours in src/main.ts');
  const parts: Record<string, string[]> = {};
  if (flags.defaulting) parts.defaulting = ['create', 'update'];
  if (flags.programmaticValidation) parts.validation = ['create', 'update'];
  report(createWebhook({ dir: process.cwd(), group: flags.group, version: flags.version, kind: flags.kind, parts, plural: flags.plural }));
}

export interface AlphaWebhookFlags {
  group: string;
  version: string;
  kind: string;
  type: string;
  operations: string;
  plural?: string;
}

export function runAlphaWebhook(flags: AlphaWebhookFlags): void {
  const type = flags.type.toLowerCase();
  if (type !== 'mutating' && type !== 'validating') throw new ScaffoldError(`--type ${JSON.stringify(flags.type)}: must be mutating or validating`);
  const part = type === 'mutating' ? 'defaulting' : 'validation';
  report(createWebhook({ dir: process.cwd(), group: flags.group, version: flags.version, kind: flags.kind, parts: { [part]: parseOperations(flags.operations) }, plural: flags.plural }));
}
