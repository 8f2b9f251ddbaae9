/**
 * Test projects in temporary directories: a group-version package with a
 * `Widget` kind whose spec is the source under test, run through the generator.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crdOutputs, loadProject } from '../src/index.js';
import { parse } from 'yaml';

export const GROUP_INFO = '// +groupName=example.com\nexport {};\n';

/** Writes files (path -> content) into a fresh directory and returns it. */
export function writeProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'operant-codegen-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

export const WIDGET_KIND = `
// +kubebuilder:object:root=true
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WidgetSpec;
}
`;

/** The CRDs generated from a project, parsed. */
export function generatedCrds(dir: string, maxDescriptionLength?: number): Array<Record<string, any>> {
  const project = loadProject(['api/**/*.ts'], dir);
  return crdOutputs(project, { outputDir: 'out', maxDescriptionLength }).files.map((f) => parse(f.content) as Record<string, any>);
}

/** The flattened schema of `WidgetSpec`, declared (with its helpers) in `source`. */
export function specSchema(source: string, maxDescriptionLength?: number): Record<string, any> {
  const dir = writeProject({
    'api/v1/groupversion-info.ts': GROUP_INFO,
    'api/v1/widget-types.ts': `import type { ObjectMeta, int32, int64, Quantity, IntOrString, Time, RawExtension, Duration } from '@operant/runtime';\n${source}\n${WIDGET_KIND}`,
  });
  const [crd] = generatedCrds(dir, maxDescriptionLength);
  return crd.spec.versions[0].schema.openAPIV3Schema.properties.spec;
}
