/**
 * A data dir whose state.db holds a value that is not JSON (SQLite checks no
 * value's bytes, so a flipped bit in one is found only when it is read): the
 * start is refused with what is damaged, the object and its revision, not a
 * bare JSON parse error; nothing stored is changed, and the file is let go of
 * (before, the failed start kept its port and the database open).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';
import { startApiServer } from '../src/server.js';

const dir = mkdtempSync(join(tmpdir(), 'operant-damaged-value-'));
after(() => rmSync(dir, { recursive: true, force: true }));

it('a start on a stored value that is not JSON is refused, naming the object and its revision', async () => {
  const dataDir = join(dir, 'data');
  await (await startApiServer({ port: 0, dataDir })).stop();
  // A clean stop folds every event into `objects`: the namespace's value there is the one read.
  const db = new Database(join(dataDir, 'state.db'));
  const { rev } = db.prepare('SELECT rev FROM objects WHERE key = ?').get('/core/namespaces/default') as { rev: number };
  db.prepare("UPDATE objects SET value = '{\"kind\":\"Namespace\",broken' WHERE key = ?").run('/core/namespaces/default');
  db.close();
  /** Every stored key, and the damaged value. */
  const rows = (): { keys: unknown[]; damaged: unknown } => {
    const read = new Database(join(dataDir, 'state.db'), { readonly: true });
    try {
      return {
        keys: read.prepare('SELECT key FROM objects ORDER BY key').pluck().all(),
        damaged: read.prepare('SELECT value FROM objects WHERE key = ?').pluck().get('/core/namespaces/default'),
      };
    } finally {
      read.close();
    }
  };
  const before = rows();
  // Before: "Expected double-quoted property name in JSON at position 20", from the garbage collector's scan.
  await assert.rejects(startApiServer({ port: 0, dataDir }), {
    message: `state.db is damaged: the value of /core/namespaces/default in revision ${rev} is not JSON (Expected double-quoted property name in JSON at position 20); restore the data dir from a backup`,
  });
  // Nothing stored was dropped, the damaged value not overwritten (the kubernetes Service and its
  // endpoints get the new port, as at any start); and the refused start let go of the file.
  assert.deepEqual(rows(), before);
});
