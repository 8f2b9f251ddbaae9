/**
 * Third-party packages loaded when first used instead of when
 * `@operant/testing` is imported: undici (a fault proxy's upstream pool,
 * chaos/upstream.ts) and yaml (a proxy's kubeconfig, chaos/proxy-kubeconfig.ts;
 * manifest files, install/manifests.ts). Every test file imports the package,
 * most never start a proxy or read a manifest, and undici alone is some 110
 * CommonJS modules, about 60 ms of CPU at each import (issue 20).
 *
 * Both are CommonJS packages, so they load synchronously with `require` on
 * first use, and the code using them keeps the names and types it would import
 * from them: `new Pool(...)` builds undici's own Pool (this module's `Pool` is
 * a constructor function that returns it, so `instanceof Pool` does not hold:
 * nothing here asks). `import()` would have made `FaultProxy` construction
 * asynchronous. An ESM `import` of either package elsewhere in the process
 * (e.g. `yaml` by the runtime's kubeconfig loader) gets the same instance:
 * Node imports a CommonJS module through the same `require` cache.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);

let undiciModule: typeof Undici | undefined;
let yamlModule: typeof Yaml | undefined;

function undici(): typeof Undici {
  return (undiciModule ??= require('undici') as typeof Undici);
}

function yaml(): typeof Yaml {
  return (yamlModule ??= require('yaml') as typeof Yaml);
}

export type { Dispatcher } from 'undici';

/** undici's `Pool`: `new Pool(origin, options)` loads undici (once) and returns undici's own Pool. */
export type Pool = Undici.Pool;
export const Pool = function Pool(...args: ConstructorParameters<typeof Undici.Pool>): Undici.Pool {
  return new (undici().Pool)(...args);
} as unknown as typeof Undici.Pool;

/** undici's `buildConnector`, loading undici on its first call. */
export function buildConnector(options: Undici.buildConnector.BuildOptions): Undici.buildConnector.connector {
  return undici().buildConnector(options);
}
// Its option and connector types, as `buildConnector.BuildOptions` names them on undici's own.
export declare namespace buildConnector {
  type BuildOptions = Undici.buildConnector.BuildOptions;
  type connector = Undici.buildConnector.connector;
}

/** yaml's `stringify`, loading yaml on its first call. */
export const stringify = ((...args: Parameters<typeof Yaml.stringify>) => yaml().stringify(...args)) as typeof Yaml.stringify;

/** yaml's `parseAllDocuments`, loading yaml on its first call. */
export const parseAllDocuments = ((...args: Parameters<typeof Yaml.parseAllDocuments>) => yaml().parseAllDocuments(...args)) as typeof Yaml.parseAllDocuments;
