/**
 * The yaml package, loaded on first use: loading it costs ~40 ms of server
 * start-up, and almost every request is JSON.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

type ParseOptions = Yaml.ParseOptions & Yaml.DocumentOptions & Yaml.SchemaOptions & Yaml.ToJSOptions;

let yaml: typeof Yaml | undefined;

/** `parse` of the yaml package. */
export function parseYaml(src: string, options?: ParseOptions): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return yaml.parse(src, options) as unknown;
}
