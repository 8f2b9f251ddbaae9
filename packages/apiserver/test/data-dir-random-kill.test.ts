/**
 * kill -9 at random moments of a stream of creates, updates and deletes, many
 * of them in flight at once: in the middle of a group commit, of a fold of the
 * log into the objects table, of a trim. After each kill the store, started
 * again on the data dir, holds every acknowledged write (or a later write of
 * the same key that was in flight: it may have reached the disk), and its
 * revision is not behind any acknowledged one. Three kills on one data dir, so
 * that each start reads what the kills before it left. What was sent and
 * acknowledged is read from the writer's journal, written synchronously before
 * each write starts and after it is on disk (its stdout, lines queued in the
 * process when it dies, only tells when to kill it). The seed is printed;
 * `RANDOM_KILL_SEED=<n>` replays its writes (not the kill's timing).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, it } from 'node:test';
import { MvccStore } from '../src/storage/mvcc-store.js';
import { SqlitePersistence } from '../src/storage/sqlite-persistence.js';

const writerScript = new URL('./support/random-writer.ts', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'operant-random-kill-'));
after(() => rmSync(root, { recursive: true, force: true }));

it('every acknowledged write survives kill -9 at random moments of writes, folds and trims', async (t) => {
  const seed = process.env.RANDOM_KILL_SEED ? Number(process.env.RANDOM_KILL_SEED) : Math.floor(Math.random() * 2 ** 31);
  t.diagnostic(`seed ${seed} (replay with RANDOM_KILL_SEED=${seed})`);
  const dataDir = join(root, 'data');
  /** Each key's last acknowledged value (null: deleted) and revision. */
  const acked = new Map<string, { v: string | null; rev: number }>();
  /** Values sent for each key and not acknowledged (a list: two deletes of a key may be in flight): one of them may be on disk. */
  const inFlight = new Map<string, (string | null)[]>();
  let newestAcked = 0;
  for (let kill = 0; kill < 3; kill++) {
    // Past the first fold (1,000 events) and several trims (a history of 300), then anywhere in the next few thousand.
    const killAfter = 1500 + ((seed >>> (kill * 4)) % 2500);
    const journal = join(root, `journal-${kill}`);
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', writerScript, dataDir, String(seed + kill), journal], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    let acks = 0;
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line.startsWith('loaded ')) {
        assert.ok(Number(line.slice(7)) >= newestAcked, `started at ${line.slice(7)}, behind the acknowledged revision ${newestAcked}`);
        continue;
      }
      if (line.startsWith('{"acked"') && ++acks === killAfter) child.kill('SIGKILL');
    }
    await exited;
    for (const line of readFileSync(journal, 'utf8').split('\n')) {
      if (!line) continue;
      const m = JSON.parse(line) as { sent?: string; acked?: string; v: string | null; rev?: number };
      if (m.sent !== undefined) {
        if (!inFlight.has(m.sent)) inFlight.set(m.sent, []);
        inFlight.get(m.sent)!.push(m.v);
        continue;
      }
      const name = m.acked!;
      const sent = inFlight.get(name);
      if (sent?.includes(m.v)) sent.splice(sent.indexOf(m.v), 1);
      if ((acked.get(name)?.rev ?? 0) < m.rev!) acked.set(name, { v: m.v, rev: m.rev! });
      newestAcked = Math.max(newestAcked, m.rev!);
    }

    const store = new MvccStore({ persistence: new SqlitePersistence(dataDir), historyCapacity: 300 });
    try {
      assert.ok(store.revision >= newestAcked, `restarted at ${store.revision}, behind the acknowledged revision ${newestAcked}`);
      for (const [name, want] of acked) {
        const got = store.get(`/core/configmaps/default/${name}`);
        const v = got ? (got.value as unknown as { data: { v: string } }).data.v : null;
        if (got ? got.rev === want.rev && v === want.v : want.v === null) continue;
        // A later write of the key, sent but not acknowledged, may have reached the disk.
        assert.ok(inFlight.get(name)?.includes(v) && (!got || got.rev > want.rev), `${name}: acknowledged ${JSON.stringify(want)}, after kill -9 ${got ? JSON.stringify({ v, rev: got.rev }) : 'absent'}`);
        acked.set(name, { v, rev: got?.rev ?? want.rev });
      }
    } finally {
      store.close();
    }
    inFlight.clear();
    t.diagnostic(`kill ${kill + 1}: after ${acks} acknowledged writes; ${acked.size} keys hold what was acknowledged`);
  }
});
