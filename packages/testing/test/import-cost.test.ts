/**
 * What importing @operant/testing loads (issue 20): every test file imports
 * it, so the packages that only a fault proxy, a manager's logger or its
 * process metrics use are left to the moment they are used. A fresh process
 * imports the package, reports the CommonJS packages loaded by then, starts an
 * environment and a fault proxy through it, and reports them again.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const child = `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/');
/** The npm packages (and prom-client's own modules) in the require cache. */
const loaded = () => [...new Set(Object.keys(require.cache).flatMap((path) => {
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(.*)$/.exec(path);
  if (!m) return [];
  return m[1] === 'prom-client' ? ['prom-client/' + m[2]] : [m[1]];
}))].sort();
const { TestEnv } = await import('@operant/testing');
const atImport = loaded();
const env = await TestEnv.start();
const proxy = await env.faultProxy();
await proxy.clientConfig();
const afterProxy = loaded();
await env.stop();
console.log(JSON.stringify({ atImport, afterProxy }));
`;

test('importing @operant/testing loads neither undici, yaml, pino nor prom-client\'s index; a fault proxy loads what it uses', () => {
  const r = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', child], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const { atImport, afterProxy } = JSON.parse(r.stdout.trim().split('\n').pop()!) as { atImport: string[]; afterProxy: string[] };
  for (const name of ['undici', 'yaml', 'pino', 'prom-client/index.js', 'prom-client/lib/defaultMetrics.js', '@opentelemetry/api']) {
    assert.ok(!atImport.includes(name), `${name} loaded by the import: ${atImport.join(', ')}`);
  }
  // The server's and the runtime's metrics classes are loaded, from prom-client's own modules.
  assert.ok(atImport.includes('prom-client/lib/registry.js'), atImport.join(', '));
  // The proxy's upstream pool and its kubeconfig.
  assert.ok(afterProxy.includes('undici') && afterProxy.includes('yaml'), afterProxy.join(', '));
});
