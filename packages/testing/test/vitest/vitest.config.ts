/**
 * vitest settings for the fixture suite that test/vitest.test.ts runs: only
 * the *.vitest.ts files here (the node:test runner takes *.test.ts, so neither
 * runner picks up the other's files), the packages' TypeScript sources (the
 * `source` export condition, as the node:test runs use) rather than a dist
 * that may be stale, room for a TestEnv to start on a loaded machine, and
 * vitest's cache in the repository's node_modules rather than a new
 * node_modules beside this file.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  cacheDir: fileURLToPath(new URL('../../../../node_modules/.vite', import.meta.url)),
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['*.vitest.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    watch: false,
  },
});
