/**
 * `operant create api`: a kind's types, its controller and test, its config
 * (CRD kustomization, admin/editor/viewer roles, a sample), wired into main.ts
 * and recorded in PROJECT; then `operant generate`, so the project builds at
 * once. With `--resource=false` it scaffolds a controller for a built-in kind.
 */
import { generateProject } from '../commands/generate.js';
import { scaffoldApiConfig } from './config-tree.js';
import { MAIN, registerInMain } from './main-file.js';
import { findResource, readProjectConfig, writeProjectConfig, type ProjectResource } from './project-config.js';
import { ProjectFiles, ScaffoldError } from './project-files.js';
import { isBuiltinGroup, kindFileName, pluralOf, qualifiedGroup, validateGroup, validateKind, validateVersion } from './names.js';
import * as t from './templates/api.js';

export interface CreateApiOptions {
  dir: string;
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  resource: boolean;
  controller: boolean;
  plural?: string;
}

export function createApi(o: CreateApiOptions): string[] {
  validateGroup(o.group);
  validateVersion(o.version);
  validateKind(o.kind);
  if (!o.resource && !o.controller) throw new ScaffoldError('nothing to do: --resource=false and --controller=false');
  if (!o.resource && !isBuiltinGroup(o.group)) {
    throw new ScaffoldError(`--resource=false: ${o.group} is not a Kubernetes API group; a controller for another project's kind is not scaffolded yet`);
  }
  const files = new ProjectFiles(o.dir);
  const config = readProjectConfig(files.read('PROJECT'));
  if (findResource(config, o.group, o.version, o.kind)?.[o.resource ? 'api' : 'controller']) {
    throw new ScaffoldError(`the API ${o.group}/${o.version}, Kind=${o.kind} already exists in PROJECT`);
  }
  const input: t.ApiTemplateInput = {
    group: o.group,
    qualifiedGroup: qualifiedGroup(o.group, config.domain, o.resource),
    version: o.version,
    kind: o.kind,
    plural: o.plural ?? pluralOf(o.kind),
    namespaced: o.namespaced,
    resource: o.resource,
  };
  const file = kindFileName(o.kind);
  if (o.resource) {
    const info = `src/api/${o.version}/groupversion-info.ts`;
    const existing = files.read(info);
    if (existing === undefined) files.create(info, t.groupVersionInfo(input));
    else if (!existing.includes(`+groupName=${input.qualifiedGroup}`)) {
      throw new ScaffoldError(`${info} is for another group: this project layout holds one group per version (multi-group layouts are not scaffolded yet)`);
    }
    files.create(`src/api/${o.version}/${file}-types.ts`, t.typesFile(input));
  }
  if (o.controller) {
    files.create(`src/controllers/${file}-controller.ts`, t.controllerFile(input));
    files.create(`test/${file}-controller.test.ts`, t.controllerTest(input));
    files.update(MAIN, (text) =>
      registerInMain(text, { names: [`setup${o.kind}Controller`], from: `./controllers/${file}-controller.js` }, 'builder', `setup${o.kind}Controller`),
    );
  }
  scaffoldApiConfig(files, { projectName: config.projectName, domain: config.domain }, {
    group: o.group,
    version: o.version,
    kind: o.kind,
    plural: input.plural,
    namespaced: o.namespaced,
    qualifiedGroup: input.qualifiedGroup,
    resource: o.resource,
  });
  const resource: ProjectResource = findResource(config, o.group, o.version, o.kind) ?? { group: o.group, kind: o.kind, version: o.version };
  if (o.resource) {
    resource.api = { crdVersion: 'v1', namespaced: o.namespaced };
    resource.domain = config.domain;
    resource.path = `${config.repo ?? config.domain}/api/${o.version}`;
  } else {
    resource.core = true;
    resource.path = `k8s.io/api/${o.group}/${o.version}`;
  }
  if (o.controller) resource.controller = true;
  if (o.plural) resource.plural = o.plural;
  if (!config.resources?.includes(resource)) config.resources = [...(config.resources ?? []), resource];
  files.put('PROJECT', writeProjectConfig(config));
  const written = files.commit();
  return [...written, ...generateProject(o.dir)];
}
