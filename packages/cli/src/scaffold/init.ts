/**
 * `operant init`: a new project in the current directory, shaped like
 * kubebuilder's (PROJECT, config/, the manager, npm scripts for the Makefile's
 * targets), that builds and tests before a line is written.
 */
import { basename } from 'node:path';
import { scaffoldInitialConfig } from './config-tree.js';
import { operantSpecs, operantVersion, toolVersions } from './dependencies.js';
import { LAYOUT, writeProjectConfig, type ProjectConfig } from './project-config.js';
import { ProjectFiles } from './project-files.js';
import { validateDomain, validateProjectName } from './names.js';
import * as t from './templates/project.js';

export interface InitOptions {
  dir: string;
  domain: string;
  repo?: string;
  projectName?: string;
  owner?: string;
}

/** Stages and writes the project; returns the written paths. */
export function init(o: InitOptions): string[] {
  validateDomain(o.domain);
  const projectName = o.projectName ?? basename(o.dir);
  validateProjectName(projectName);
  const files = new ProjectFiles(o.dir);
  const { specs, linked } = operantSpecs(o.dir);
  const input: t.ProjectTemplateInput = { projectName, domain: o.domain, owner: o.owner, operantSpecs: specs, toolVersions: toolVersions(), linked };
  const config: ProjectConfig = {
    cliVersion: operantVersion(),
    domain: o.domain,
    layout: [LAYOUT],
    projectName,
    repo: o.repo ?? `${o.domain}/${projectName}`,
    version: '3',
  };
  files.create('PROJECT', writeProjectConfig(config));
  files.create('package.json', t.packageJson(input));
  files.create('tsconfig.json', t.tsconfig);
  files.create('src/main.ts', t.mainTs(input));
  files.create('README.md', t.readme(input));
  files.create('Dockerfile', t.dockerfile);
  files.create('.dockerignore', t.dockerignore);
  files.create('.gitignore', t.gitignore);
  files.create('scripts/set-image.mjs', t.setImageScript);
  files.create('test/support.ts', t.testSupport());
  files.create('test/env.test.ts', t.envTest);
  scaffoldInitialConfig(files, { projectName, domain: o.domain });
  return files.commit();
}
