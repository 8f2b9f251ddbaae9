/**
 * `operant generate`: loads a project's TypeScript sources once and writes the
 * outputs controller-gen writes (CRDs, the manager role, webhook
 * configurations), plus the typed kinds module. Every output is computed
 * before anything is written, so an error leaves the project as it was.
 */
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { generateCrds, type GeneratedCrd } from './crd/crd.js';
import { kindsOf } from './crd/kinds.js';
import { kindsModules } from './kinds-module.js';
import { markerRegistry } from './markers/all.js';
import type { MarkerValue } from './markers/definition.js';
import { RBAC_MARKER, WEBHOOK_CONFIGURATION_MARKER, WEBHOOK_MARKER } from './markers/rbac-webhook-markers.js';
import { Universe } from './model.js';
import { SchemaBuilder } from './schema/builder.js';
import { GoDeclarations } from './source/go-reader.js';
import { readTypeScriptFiles } from './source/ts-reader.js';
import { generateRoles } from './rbac/rbac.js';
import { generateWebhookConfigurations } from './webhook/webhook.js';
import { toYaml } from './yaml.js';

export const GENERATOR_VERSION = 'v0.1.0';

/** A project's sources, read once for every generator. */
export interface LoadedProject {
  cwd: string;
  files: string[];
  universe: Universe;
  builder: SchemaBuilder;
  /** Every package-level marker, from every file (RBAC and webhook markers live here). */
  packageMarkers: MarkerValue[];
}

/** A file to write, relative to the working directory. */
export interface OutputFile {
  path: string;
  content: string;
}

/**
 * Expands `--paths` globs (`*`, `**`, `?`; a directory means every .ts file
 * under it) to TypeScript files, skipping declaration files, tests, generated
 * files and node_modules.
 */
export function expandPaths(patterns: readonly string[], cwd: string): string[] {
  const found = new Set<string>();
  for (const pattern of patterns) {
    const normalized = pattern.replace(/^\.\//, '').replace(/\/\.\.\.$/, '/**');
    const abs = resolve(cwd, normalized);
    const wildcard = abs.search(/[*?[]/);
    let base = wildcard < 0 ? abs : abs.slice(0, abs.lastIndexOf(sep, wildcard));
    let regex: RegExp;
    if (wildcard < 0 && isDirectory(abs)) regex = new RegExp(`^${escape(abs)}/.*\\.ts$`);
    else regex = globRegex(abs);
    if (!isDirectory(base)) base = dirname(base);
    walk(base, (file) => {
      if (regex.test(file) && isSourceFile(file)) found.add(file);
    });
  }
  return [...found].sort();
}

function isSourceFile(file: string): boolean {
  const name = file.slice(file.lastIndexOf(sep) + 1);
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts') && !name.startsWith('zz_generated');
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function walk(dir: string, visit: (file: string) => void): void {
  if (!isDirectory(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (isDirectory(p)) walk(p, visit);
    else visit(p);
  }
}

const escape = (s: string): string => s.replace(/[.+^${}()|\\]/g, '\\$&');

function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += escape(c);
  }
  return new RegExp(`^${re}$`);
}

/** Reads the sources matched by `paths`. */
export function loadProject(paths: readonly string[], cwd = process.cwd()): LoadedProject {
  const files = expandPaths(paths, cwd);
  const registry = markerRegistry();
  const universe = new Universe();
  readTypeScriptFiles(files, universe, registry, cwd);
  const goDecls = new GoDeclarations(registry);
  const builder = new SchemaBuilder((id) => universe.get(id) ?? goDecls.get(id));
  const packageMarkers = [...universe.packages.values()].flatMap((p) => [...p.markers.values]);
  return { cwd, files, universe, builder, packageMarkers };
}

export interface CrdGenerateOptions {
  outputDir: string;
  maxDescriptionLength?: number;
}

/** The CRD files, and warnings (descriptions cut). */
export function crdOutputs(project: LoadedProject, options: CrdGenerateOptions): { files: OutputFile[]; warnings: string[] } {
  const crds: GeneratedCrd[] = generateCrds(project.universe, project.builder, {
    maxDescriptionLength: options.maxDescriptionLength,
    generatorVersion: GENERATOR_VERSION,
  });
  const warnings = crds
    .filter((c) => c.truncated > 0 && options.maxDescriptionLength !== 0)
    .map((c) => `warning: ${c.fileName}: ${c.truncated} description(s) cut to --max-description-length=${options.maxDescriptionLength}`);
  return { files: crds.map((c) => ({ path: join(options.outputDir, c.fileName), content: toYaml([c.crd]) })), warnings };
}

/** `role.yaml`, from the `+kubebuilder:rbac` markers. */
export function rbacOutput(project: LoadedProject, outputDir: string, roleName = 'manager-role'): OutputFile[] {
  const roles = generateRoles(markersNamed(project, RBAC_MARKER), roleName);
  return roles.length === 0 ? [] : [{ path: join(outputDir, 'role.yaml'), content: toYaml(roles) }];
}

/** `manifests.yaml`, from the `+kubebuilder:webhook` markers. */
export function webhookOutput(project: LoadedProject, outputDir: string): OutputFile[] {
  const configs = generateWebhookConfigurations(markersNamed(project, WEBHOOK_MARKER), markersNamed(project, WEBHOOK_CONFIGURATION_MARKER));
  return configs.length === 0 ? [] : [{ path: join(outputDir, 'manifests.yaml'), content: toYaml(configs) }];
}

/** The typed kinds modules, one per version directory with kinds. */
export function kindsOutputs(project: LoadedProject): OutputFile[] {
  return kindsModules(kindsOf(project.universe), GENERATOR_VERSION).map((m) => ({ path: relative(project.cwd, m.path) || m.path, content: m.content }));
}

function markersNamed(project: LoadedProject, name: string): MarkerValue[] {
  return project.packageMarkers.filter((m) => m.def.name === name);
}

/** Writes the files (each through a temporary file and a rename, so none is left half written). */
export function writeOutputs(files: readonly OutputFile[], cwd = process.cwd()): void {
  for (const f of files) {
    const abs = resolve(cwd, f.path);
    mkdirSync(dirname(abs), { recursive: true });
    const tmp = `${abs}.tmp-${process.pid}`;
    writeFileSync(tmp, f.content);
    renameSync(tmp, abs);
  }
}
