/**
 * `operant generate [crd|rbac|webhook]`: controller-gen's outputs from the
 * project's TypeScript types (the contract in the README and docs/cli.md).
 * Nothing is written when any input has an error.
 */
import {
  crdOutputs,
  kindsOutputs,
  loadProject,
  rbacOutput,
  webhookOutput,
  writeOutputs,
  type LoadedProject,
  type OutputFile,
} from '@operant/codegen';

export interface GenerateFlags {
  paths: string[];
  outputDir?: string;
  roleName?: string;
  maxDescriptionLength?: string;
}

/** The project layout `operant init` scaffolds, used when flags are left out. */
export const PROJECT_LAYOUT = {
  paths: ['src/**/*.ts'],
  crd: 'config/crd/bases',
  rbac: 'config/rbac',
  webhook: 'config/webhook',
} as const;

function maxDescriptionLength(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`--max-description-length: invalid value ${JSON.stringify(text)}: must be a non-negative integer`);
  return Number(text);
}

function load(flags: GenerateFlags): LoadedProject {
  const project = loadProject(flags.paths.length > 0 ? flags.paths : PROJECT_LAYOUT.paths);
  if (project.files.length === 0) throw new Error(`--paths ${flags.paths.join(' ')}: no TypeScript files matched`);
  return project;
}

function crds(project: LoadedProject, flags: GenerateFlags, outputDir: string): OutputFile[] {
  const { files, warnings } = crdOutputs(project, { outputDir, maxDescriptionLength: maxDescriptionLength(flags.maxDescriptionLength) });
  for (const w of warnings) process.stderr.write(`${w}\n`);
  return files;
}

function report(files: readonly OutputFile[]): void {
  writeOutputs(files);
  for (const f of files) process.stdout.write(`wrote ${f.path}\n`);
}

export function runGenerateCrd(flags: GenerateFlags): void {
  const project = load(flags);
  report(crds(project, flags, flags.outputDir ?? PROJECT_LAYOUT.crd));
}

export function runGenerateRbac(flags: GenerateFlags): void {
  report(rbacOutput(load(flags), flags.outputDir ?? PROJECT_LAYOUT.rbac, flags.roleName ?? 'manager-role'));
}

export function runGenerateWebhook(flags: GenerateFlags): void {
  report(webhookOutput(load(flags), flags.outputDir ?? PROJECT_LAYOUT.webhook));
}

/** Every output of a project in the scaffolded layout: CRDs, role, webhooks and the typed kinds modules. */
export function projectOutputs(project: LoadedProject, flags: Omit<GenerateFlags, 'paths'> = {}): OutputFile[] {
  return [
    ...crds(project, { paths: [], ...flags }, PROJECT_LAYOUT.crd),
    ...rbacOutput(project, PROJECT_LAYOUT.rbac, flags.roleName ?? 'manager-role'),
    ...webhookOutput(project, PROJECT_LAYOUT.webhook),
    ...kindsOutputs(project),
  ];
}

/** `operant generate` in a project directory (what the scaffolding commands run after writing). */
export function generateProject(dir: string): string[] {
  const outputs = projectOutputs(loadProject(PROJECT_LAYOUT.paths, dir));
  writeOutputs(outputs, dir);
  return outputs.map((f) => f.path);
}

/** All three, in the scaffolded project's layout, and the typed kinds modules. */
export function runGenerateAll(flags: GenerateFlags): void {
  report(projectOutputs(load(flags), flags));
}
