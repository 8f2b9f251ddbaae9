/**
 * The data directory is private (issue 14, item 1): Secrets are stored there as
 * plain JSON, so the directory is 0700 and its files 0600, and a directory that
 * others can read is fixed at start with a warning, as etcd does.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { TestApi } from './support/api-client.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

async function writeASecret(dataDir: string, name = 's'): Promise<void> {
  const api = await TestApi.start({ dataDir });
  try {
    await api.ok('POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { password: 'aHVudGVyMg==' } }, 201);
  } finally {
    await api.stop();
  }
}

/** What the server writes on stderr while `fn` runs. */
async function stderrOf(fn: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await fn();
  } finally {
    process.stderr.write = original;
  }
  return written.join('');
}

it('a new data dir is 0700 and every file in it 0600, the WAL, keys and certificates included; a second start finds nothing to fix', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-perm-')), 'data');
  await writeASecret(dataDir);
  assert.equal(mode(dataDir), 0o700);
  assert.ok(readdirSync(dataDir).includes('state.db'));
  // Every file, the WAL and the serving certificate's key among them, down the tree.
  const check = (dir: string): void => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) {
        assert.equal(mode(p), 0o700, p);
        check(p);
      } else assert.equal(mode(p), 0o600, p);
    }
  };
  check(dataDir);
  assert.doesNotMatch(await stderrOf(() => writeASecret(dataDir, 'another')), /had permission/);
});

it('an existing dir that others can read is made private at start, with a warning naming the old mode', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-perm-')), 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'state.db'), '');
  chmodSync(join(dataDir, 'state.db'), 0o644);
  const written = await stderrOf(() => writeASecret(dataDir));
  assert.equal(mode(dataDir), 0o700);
  assert.equal(mode(join(dataDir, 'state.db')), 0o600);
  assert.match(written, new RegExp(`warning: data dir ${dataDir} had permission 0755; set to 0700`));
});
