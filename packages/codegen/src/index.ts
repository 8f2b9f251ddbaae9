/**
 * @operant/codegen: controller-gen for TypeScript. Types with Kubebuilder
 * markers in their comments become CustomResourceDefinitions, RBAC roles and
 * webhook configurations, the way controller-gen writes them for Go.
 *
 * @example
 * ```ts
 * import { crdOutputs, loadProject, writeOutputs } from '@operant/codegen';
 *
 * const project = loadProject(['src/api/**\/*.ts']);
 * const { files, warnings } = crdOutputs(project, { outputDir: 'config/crd/bases' });
 * warnings.forEach((w) => console.error(w));
 * writeOutputs(files);
 * ```
 */
export {
  crdOutputs,
  expandPaths,
  GENERATOR_VERSION,
  kindsOutputs,
  loadProject,
  rbacOutput,
  webhookOutput,
  writeOutputs,
  type CrdGenerateOptions,
  type LoadedProject,
  type OutputFile,
} from './generate.js';
export { CodegenError } from './errors.js';
export { markerRegistry } from './markers/all.js';
export type { MarkerDefinition, MarkerTarget } from './markers/definition.js';
export { markerReference } from './reference.js';
export { toYaml } from './yaml.js';
export { pluralize } from './crd/plural.js';
