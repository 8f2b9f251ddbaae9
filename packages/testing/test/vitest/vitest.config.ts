/**
 * vitest settings for the fixture suite that test/vitest.test.ts runs, set as
 * a user's project would have them: the toolkit is loaded from its built
 * `dist`, as an installed package is (no `source` export condition, so the
 * packages' exports pick `dist/index.js`), and run by Node itself rather than
 * transformed by Vite (`server.deps.external`: here the packages are reached
 * through workspace links, which Vite follows out of node_modules into
 * packages/<name>/dist, where it would otherwise transform them). Also: only
 * the *.vitest.ts files here (the node:test runner takes *.test.ts, so neither
 * runner picks up the other's files), room for a TestEnv to start on a loaded
 * machine, vitest's cache in the repository's node_modules rather than a new
 * node_modules beside this file, and one line per @operant package the suite
 * imports saying which file it resolved to, for the test to check.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

/** Prints `resolved <package> -> <file>` once per @operant package the suite imports. */
function reportResolution(): Plugin {
  const reported = new Set<string>();
  return {
    name: 'operant-report-resolution',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.startsWith('@operant/') || reported.has(source)) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      reported.add(source);
      console.log(`resolved ${source} -> ${resolved?.id ?? 'nothing'}`);
      return resolved;
    },
  };
}

export default defineConfig({
  cacheDir: fileURLToPath(new URL('../../../../node_modules/.vite', import.meta.url)),
  plugins: [reportResolution()],
  test: {
    include: ['*.vitest.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    watch: false,
    server: { deps: { external: [/\/packages\/[^/]+\/dist\//] } },
  },
});
