/**
 * The revision of a data dir never goes back: not across restarts, kill -9,
 * nor a compaction that trimmed the whole event log after the newest objects
 * were deleted (then no event and no object holds the newest revision, and the
 * store must still continue after it). Both on a data dir this storage made,
 * and on one from the storage that wrote the revision at every commit.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, it } from 'node:test';
import Database from 'better-sqlite3';

const child = new URL('./support/storage-child.ts', import.meta.url).pathname;
/** Every store process started, so that a failed test leaves none running. */
const started: ChildProcess[] = [];

/** The store in a child process (support/storage-child.ts), driven a command at a time. */
class StoreProcess {
  private readonly lines: string[] = [];
  private waiting?: () => void;
  private constructor(private readonly process: ChildProcess) {
    createInterface({ input: process.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.waiting?.();
    });
  }

  /** Starts the store on `dataDir`; resolves with it and the revision it loaded. */
  static async start(dataDir: string): Promise<{ store: StoreProcess; loaded: number }> {
    const proc = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', child, dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
    started.push(proc);
    const store = new StoreProcess(proc);
    return { store, loaded: numberAfter('loaded', await store.nextLine()) };
  }

  /** Sends a write (create, delete, delete-compact) and resolves with its acknowledged revision. */
  async write(command: string): Promise<number> {
    this.process.stdin!.write(`${command}\n`);
    return numberAfter('ack', await this.nextLine());
  }

  async compact(times: number): Promise<void> {
    this.process.stdin!.write(`compact ${times}\n`);
    numberAfter('compacted', await this.nextLine());
  }

  async kill9(): Promise<void> {
    const exited = once(this.process, 'exit');
    this.process.kill('SIGKILL');
    await exited;
  }

  /** Closes the store cleanly (the end of its stdin). */
  async stop(): Promise<void> {
    const exited = once(this.process, 'exit');
    this.process.stdin!.end();
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
  }

  private async nextLine(): Promise<string> {
    while (this.lines.length === 0) {
      if (this.process.exitCode !== null || this.process.signalCode !== null) throw new Error('the store process exited');
      await Promise.race([new Promise<void>((r) => (this.waiting = r)), once(this.process, 'exit')]);
    }
    return this.lines.shift()!;
  }
}

function numberAfter(word: string, line: string): number {
  const m = new RegExp(`^${word} (\\d+)$`).exec(line);
  assert.ok(m, `expected "${word} <n>", got "${line}"`);
  return Number(m[1]);
}

/** What the stopped store left on disk: how many events, and the newest revision an object holds. */
function onDisk(dataDir: string): { events: number; newestObject: number } {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    const { events } = db.prepare('SELECT COUNT(*) AS events FROM events').get() as { events: number };
    const { newest } = db.prepare('SELECT MAX(rev) AS newest FROM objects').get() as { newest: number | null };
    return { events, newestObject: newest ?? 0 };
  } finally {
    db.close();
  }
}

/** Trims the whole log right after deleting `name`, kills -9, and shows the revision held only by what the trim wrote. */
async function deleteTrimKill(store: StoreProcess, dataDir: string, name: string): Promise<number> {
  // 1,000 compactions make the next flush trim the log; the one made during the delete's flush reaches the delete itself.
  await store.compact(1000);
  const deleted = await store.write(`delete-compact ${name}`);
  await store.kill9();
  const disk = onDisk(dataDir);
  assert.equal(disk.events, 0, 'the trim emptied the log');
  assert.ok(disk.newestObject < deleted, `no object holds the delete's revision ${deleted} (newest ${disk.newestObject})`);
  return deleted;
}

/** Every step from a start: restarts see at least the last acknowledged revision, and write after it. */
async function neverBackwards(dataDir: string, startedAt: number): Promise<void> {
  let { store, loaded } = await StoreProcess.start(dataDir);
  assert.equal(loaded, startedAt);
  let acked = await store.write('create d');
  assert.ok(acked > startedAt, `the first write ${acked} is after the loaded revision ${startedAt}`);

  // kill -9 after an acknowledged write.
  await store.kill9();
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= acked, `after kill -9: loaded ${loaded}, acknowledged ${acked}`);
  acked = await store.write('create e');

  // kill -9 right after a compaction that trimmed the whole log.
  acked = await deleteTrimKill(store, dataDir, 'e');
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= acked, `after the trim and kill -9: loaded ${loaded}, acknowledged ${acked}`);
  const next = await store.write('create f');
  assert.ok(next > acked, `the next write ${next} is after ${acked}`);

  // A clean stop, and again a trim of everything, then a restart.
  await store.stop();
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= next, `after a clean stop: loaded ${loaded}, acknowledged ${next}`);
  acked = await deleteTrimKill(store, dataDir, 'f');
  ({ store, loaded } = await StoreProcess.start(dataDir));
  assert.ok(loaded >= acked, `after the second trim and kill -9: loaded ${loaded}, acknowledged ${acked}`);
  assert.ok((await store.write('create g')) > acked);
  await store.stop();
}

const root = mkdtempSync(join(tmpdir(), 'operant-revision-'));
after(() => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

it('on a new data dir, the revision never goes back across restarts, kill -9 and a trim of the whole log', async () => {
  const dataDir = join(root, 'new');
  const { store, loaded } = await StoreProcess.start(dataDir);
  assert.equal(loaded, 1);
  for (const name of ['a', 'b', 'c']) await store.write(`create ${name}`);
  const deleted = await deleteTrimKill(store, dataDir, 'c');
  await neverBackwards(dataDir, deleted);
});

it('on a data dir that wrote the revision at every commit, the revision it holds is where the store continues', async () => {
  const dataDir = join(root, 'old');
  mkdirSync(dataDir, { mode: 0o700 });
  const db = new Database(join(dataDir, 'state.db'));
  db.exec(readFileSync(new URL('./support/old-format-state.sql', import.meta.url), 'utf8'));
  db.close();
  chmodSync(join(dataDir, 'state.db'), 0o600);
  // Only the old format's meta row holds revision 5 (see the fixture).
  assert.deepEqual(onDisk(dataDir), { events: 0, newestObject: 3 });
  await neverBackwards(dataDir, 5);
});
