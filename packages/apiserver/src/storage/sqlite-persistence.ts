/**
 * Durable storage in SQLite (WAL, synchronous=FULL): each commit is one
 * transaction that is on disk when `commit` returns, so an acknowledged write
 * survives kill -9. The recent event log is kept too, so watches resume across
 * restarts from a revision the client already saw.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ensurePrivateDir, touchPrivate } from './private-dir.js';
import type { KubeObject } from '@operant/apimachinery';
import type { HistoryBounds, Persistence, StorageEvent, Versioned } from './types.js';

export class SqlitePersistence implements Persistence {
  private readonly db: Database.Database;
  private readonly insertEvent: Database.Statement;
  private readonly upsertObject: Database.Statement;
  private readonly deleteObject: Database.Statement;
  private readonly setRevision: Database.Statement;
  private readonly commitTx: (event: StorageEvent) => void;
  /** Events and bytes written since the log was last trimmed. */
  private pendingCompaction = 0;
  private pendingBytes = 0;

  /** Opens (or creates) `<dir>/state.db`. */
  constructor(dir: string) {
    for (const warning of ensurePrivateDir(dir)) process.stderr.write(`warning: ${warning}\n`);
    touchPrivate(join(dir, 'state.db'));
    this.db = new Database(join(dir, 'state.db'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    // After a checkpoint the WAL is cut back to this, so bursts of large writes leave no large file behind.
    this.db.pragma('journal_size_limit = 67108864');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS objects (key TEXT PRIMARY KEY, rev INTEGER NOT NULL, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (rev INTEGER PRIMARY KEY, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, prev TEXT);
      CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    `);
    this.insertEvent = this.db.prepare('INSERT INTO events (rev, type, key, value, prev) VALUES (?, ?, ?, ?, ?)');
    this.upsertObject = this.db.prepare(
      'INSERT INTO objects (key, rev, value) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET rev = excluded.rev, value = excluded.value',
    );
    this.deleteObject = this.db.prepare('DELETE FROM objects WHERE key = ?');
    this.setRevision = this.db.prepare("INSERT INTO meta (name, value) VALUES ('revision', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value");
    this.commitTx = this.db.transaction((e: StorageEvent) => {
      const value = JSON.stringify(e.value);
      this.pendingBytes += value.length;
      this.insertEvent.run(e.rev, e.type, e.key, value, e.prev ? JSON.stringify(e.prev) : null);
      if (e.type === 'DELETED') this.deleteObject.run(e.key);
      else this.upsertObject.run(e.key, e.rev, value);
      this.setRevision.run(e.rev);
    });
  }

  load(bounds: HistoryBounds): { revision: number; objects: Versioned[]; events: StorageEvent[] } {
    const row = this.db.prepare("SELECT value FROM meta WHERE name = 'revision'").get() as { value: number } | undefined;
    const objects = (this.db.prepare('SELECT key, rev, value FROM objects').all() as Array<{ key: string; rev: number; value: string }>).map(
      (r) => ({ key: r.key, rev: r.rev, value: JSON.parse(r.value) as KubeObject }),
    );
    // The newest events the history keeps, read newest first: a restart costs the live data and
    // the bounded history, however long the log on disk grew before it was trimmed.
    const events: StorageEvent[] = [];
    let bytes = 0;
    const rows = this.db.prepare('SELECT rev, type, key, value, prev FROM events ORDER BY rev DESC').iterate() as IterableIterator<{
      rev: number;
      type: StorageEvent['type'];
      key: string;
      value: string;
      prev: string | null;
    }>;
    for (const r of rows) {
      if (events.length > 0 && (events.length >= bounds.events || bytes + r.value.length > bounds.bytes)) break;
      bytes += r.value.length;
      const e: StorageEvent = { type: r.type, key: r.key, rev: r.rev, value: JSON.parse(r.value) as KubeObject, size: r.value.length };
      if (r.prev) e.prev = JSON.parse(r.prev) as KubeObject;
      events.push(e);
    }
    return { revision: row?.value ?? 1, objects, events: events.reverse() };
  }

  commit(event: StorageEvent): void {
    this.commitTx(event);
  }

  compact(rev: number): void {
    // Trimming the log row by row would double the cost of every write; trim in batches, of
    // 1,000 events or 16 MiB written, so that large objects do not pile up a large log.
    if (++this.pendingCompaction < 1000 && this.pendingBytes < 16 * 1024 * 1024) return;
    this.pendingCompaction = 0;
    this.pendingBytes = 0;
    this.db.prepare('DELETE FROM events WHERE rev <= ?').run(rev);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
