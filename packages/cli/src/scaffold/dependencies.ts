/**
 * How a scaffolded project depends on Operant before its packages are
 * published: inside this repository (examples/) by version, resolved as
 * workspaces; anywhere else by `file:` links to the packages beside the CLI
 * that ran `operant init`. npm links those directories, and Node resolves their
 * own dependencies from the Operant checkout, so one `npm install` is enough.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** packages/cli, whether this runs from src/ (tsx) or dist/. */
const cliRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const repoRoot = resolve(cliRoot, '..', '..');

/** The tool versions this repository pins, which a project pins too (so an offline install finds them in npm's cache). */
const FALLBACK_TOOLS = { typescript: '6.0.3', tsx: '4.23.15', '@types/node': '20.19.43', 'kubernetes-types': '1.30.0' } as const;

export type ToolName = keyof typeof FALLBACK_TOOLS;

function readJson(path: string): Record<string, unknown> | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : undefined;
}

export function operantVersion(): string {
  return (readJson(join(cliRoot, 'package.json'))?.version as string | undefined) ?? '0.1.0';
}

export function toolVersions(): Record<ToolName, string> {
  const root = readJson(join(repoRoot, 'package.json'));
  const pinned = { ...((root?.devDependencies as Record<string, string> | undefined) ?? {}), ...((root?.dependencies as Record<string, string> | undefined) ?? {}) };
  const out = { ...FALLBACK_TOOLS } as Record<ToolName, string>;
  for (const name of Object.keys(out) as ToolName[]) if (pinned[name]) out[name] = pinned[name];
  return out;
}

/** Whether a directory lies inside the Operant repository the CLI belongs to. */
export function insideOperantRepo(dir: string): boolean {
  const isRepo = readJson(join(repoRoot, 'package.json'))?.workspaces !== undefined;
  const rel = relative(repoRoot, resolve(dir));
  return isRepo && rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** The Operant packages a project depends on: the runtime, and the CLI and the testing toolkit for development. */
export type OperantPackage = 'runtime' | 'cli' | 'testing';

/** The dependency spec of each Operant package for a project in `dir`. */
export function operantSpecs(dir: string): { specs: Record<OperantPackage, string>; linked: boolean } {
  const names = ['runtime', 'cli', 'testing'] as const;
  if (insideOperantRepo(dir)) {
    const v = operantVersion();
    return { specs: { runtime: v, cli: v, testing: v }, linked: false };
  }
  const specs = {} as Record<(typeof names)[number], string>;
  for (const name of names) specs[name] = `file:${join(cliRoot, '..', name)}`;
  return { specs, linked: true };
}
