/**
 * Durable storage in SQLite, with group commit. Each commit is one
 * transaction holding a batch of writes (the store's writes since its last
 * flush), written at once: its WAL frames reach the OS before `commit`
 * returns, each page the batch changed once, however many of its writes
 * changed it (one transaction per write wrote the events table's last page,
 * and the objects' pages, again for each: 8.9 pwrites per create against 3.2,
 * 16 writers). `sync` then makes every commit before it durable with one
 * fdatasync of the WAL, run on libuv's thread pool while the event loop goes
 * on, so one flush covers all the writes that arrived meanwhile (the store
 * decides when to call it, and how many may overlap). That sync is the one
 * synchronous=FULL would make at each commit: with synchronous=NORMAL SQLite
 * still syncs the WAL before each checkpoint and the database after it, so a
 * commit covered by a resolved `sync` survives kill -9 and power loss alike.
 *
 * The recent event log is kept too, so watches resume across restarts from a
 * revision the client already saw.
 *
 * A commit writes only that log (append-only: the last page or two of one
 * B-tree). The `objects` table, the current value by key, is brought up to date
 * from the log later, many events at once (a fold: see maintain), before the
 * log is trimmed; `meta`'s `folded` row says through which revision it is, and
 * a start reads `objects` and then replays the newer events over it. Writing
 * both at each commit cost every create a second B-tree insert at a random
 * place of the key index, and the WAL frames of its pages: about three times the
 * pages per commit, and most of the storage's CPU per create. A data dir without
 * the `folded` row (written by the storage that wrote both at each commit) has
 * every event in `objects`: it is marked folded through its revision by the
 * first commit.
 *
 * The revision is not written by each commit (a row updated at every write
 * cost each commit one more WAL page): it is read back on start as the largest
 * of the newest event, the newest object, and the `meta` row. That row is
 * written only when the log is folded and trimmed, in that transaction, so
 * that trimming the newest events (after deletes, when no object holds the
 * newest revision) cannot take the revision back. Data dirs whose `meta` was
 * written at every commit read the same way.
 *
 * A full disk (SQLITE_FULL) refuses the batch whole, with etcd's NOSPACE text
 * (the store then takes its writes back from memory, so reads stay as they
 * were); the next write tries again, so writes are
 * accepted as soon as space frees. The connection holds the database
 * exclusively (locking_mode=EXCLUSIVE): the WAL index then lives in memory, not
 * in a -shm file, so a full disk cannot stop the server from starting and
 * reading, and a second server cannot open the same data dir.
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { encodedJson, keepEncoding, slabBytes } from './encoded-json.js';
import { ensurePrivateDir, touchPrivate } from './private-dir.js';
import { newerFormatError, newestReadableFormat, stateDbError } from './data-dir.js';
import type { KubeObject } from '@operant/apimachinery';
import { shareManagedFields } from '@operant/apimachinery/managedfields';
import { StoreError, noSpaceMessage, type HistoryBounds, type PersistedWrite, type Persistence, type StorageEvent, type UnparsedValue, type Versioned } from './types.js';

/** Trimming the log row by row would double the cost of every write: it is trimmed after this many events or bytes. */
const compactionBatchEvents = 1000;
const compactionBatchBytes = 16 * 1024 * 1024;
/**
 * The log is folded into `objects` once this many events, or bytes of them, are not: the most a
 * start replays after kill -9 (beyond what is written between two flushes), and the longest fold.
 */
const foldBatchEvents = 1000;
const foldBatchBytes = 16 * 1024 * 1024;
/** How much of the database the load reads through a memory map (SQLite maps at most ~2 GiB). */
const loadMmapBytes = 1024 * 1024 * 1024;

export class SqlitePersistence implements Persistence {
  private readonly db: Database.Database;
  private readonly dir: string;
  private readonly insertEvent: Database.Statement;
  private readonly foldUpserts: Database.Statement;
  private readonly foldedDeletions: Database.Statement;
  private readonly deleteObject: Database.Statement;
  private readonly setRevision: Database.Statement;
  private readonly setFolded: Database.Statement;
  private readonly trimEvents: Database.Statement;
  private readonly commitTx: (writes: readonly PersistedWrite[]) => void;
  private readonly maintainTx: (foldThrough: number, trimThrough: number) => void;
  /** Events and bytes written since the log was last trimmed, and the revision it may be trimmed through. */
  private pendingCompaction = 0;
  private pendingBytes = 0;
  private compactThrough = 0;
  /** The revision of the newest commit written (or read back on start). */
  private newestRevision = 0;
  /** `objects` holds every event through this revision; events and bytes written since the last fold. */
  private folded = 0;
  private unfoldedEvents = 0;
  private unfoldedBytes = 0;
  /** Set when the data dir has no `folded` row yet: the next commit writes it (see load). */
  private markFolded = false;
  /** The WAL file, opened when it first exists; fdatasync on it is the group commit. */
  private walFd?: number;
  /** Commits written, and the count of them known durable. */
  private written = 0;
  private synced = 0;
  private syncsInFlight = 0;
  /** Set while writes fail for want of space; reported once, and once when they succeed again. */
  private full = false;
  private closed = false;

  /** Opens (or creates) `<dir>/state.db`. */
  constructor(dir: string) {
    this.dir = dir;
    for (const warning of ensurePrivateDir(dir)) process.stderr.write(`warning: ${warning}\n`);
    touchPrivate(join(dir, 'state.db'));
    this.db = openStateDb(dir);
    // The value and the previous one are bound as the UTF-8 bytes the store keeps for them
    // (encoded-json.ts), not converted from JavaScript strings again, and stored as the text they
    // are (CAST of a blob to TEXT reinterprets its bytes).
    this.insertEvent = this.db.prepare('INSERT INTO events (rev, type, key, value, prev) VALUES (?, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT))');
    // The fold: each key's newest value of the events in the range, oldest first so that the newest
    // stays (the WHERE also keeps the upsert's ON CONFLICT from being read as the join's); then
    // each key whose newest event there is a deletion goes (see fold).
    this.foldUpserts = this.db.prepare(
      "INSERT INTO objects (key, rev, value) SELECT key, rev, value FROM events WHERE rev > ? AND rev <= ? AND type != 'DELETED' ORDER BY rev ON CONFLICT(key) DO UPDATE SET rev = excluded.rev, value = excluded.value",
    );
    this.foldedDeletions = this.db.prepare("SELECT key, MAX(rev) AS rev FROM events WHERE rev > ? AND rev <= ? AND type = 'DELETED' GROUP BY key");
    this.deleteObject = this.db.prepare('DELETE FROM objects WHERE key = ? AND rev < ?');
    this.setRevision = this.db.prepare("INSERT INTO meta (name, value) VALUES ('revision', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value");
    this.setFolded = this.db.prepare("INSERT INTO meta (name, value) VALUES ('folded', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value");
    this.trimEvents = this.db.prepare('DELETE FROM events WHERE rev <= ?');
    this.commitTx = this.db.transaction((writes: readonly PersistedWrite[]) => {
      if (this.markFolded) this.setFolded.run(this.folded);
      for (const { event: e, bytes } of writes) this.insertEvent.run(e.rev, e.type, e.key, bytes, e.prev ? encodedJson(e.prev) : null);
    });
    this.maintainTx = this.db.transaction((foldThrough: number, trimThrough: number) => {
      this.fold(foldThrough);
      if (trimThrough > 0) this.trimEvents.run(trimThrough);
      this.setRevision.run(foldThrough);
    });
  }

  private loadAll(bounds: HistoryBounds): { revision: number; objects: Versioned[]; events: StorageEvent[] } {
    const meta = new Map((this.db.prepare('SELECT name, value FROM meta').raw().all() as Array<[string, number]>).map(([name, value]) => [name, value]));
    const newestEvent = this.db.prepare('SELECT MAX(rev) AS rev FROM events').get() as { rev: number | null };
    const revision = Math.max(1, meta.get('revision') ?? 0, newestEvent.rev ?? 0);
    // Read through a memory map: the pages are read in place rather than copied into SQLite's cache by
    // a system call each (scratch measurement, reading 100,000 pods' rows: ~550 -> ~300 ms, most of
    // the system time gone). Only for the load: nothing else reads the database, and while it is on,
    // an I/O error reading the file would be a SIGBUS rather than SQLITE_IOERR (SQLite's caveat).
    this.db.pragma(`mmap_size = ${loadMmapBytes}`);
    try {
      return this.loadRows(bounds, revision, meta.get('folded'));
    } finally {
      this.db.pragma('mmap_size = 0');
    }
  }

  load(bounds: HistoryBounds): { revision: number; objects: Versioned[]; events: StorageEvent[] } {
    try {
      return this.loadAll(bounds);
    } catch (e) {
      // A file that opened but cannot be read whole (damaged further in) is refused as at open.
      this.closed = true;
      this.db.close();
      throw e instanceof Database.SqliteError ? stateDbError(this.dir, e) : e;
    }
  }

  /**
   * Reads `objects`, then the log newest first: the events newer than the fold replay over the
   * objects (each key's newest one decides), and the newest events within `bounds` are the history.
   * `folded` is undefined on a data dir whose every commit wrote `objects` too (none newer, then).
   */
  private loadRows(bounds: HistoryBounds, newest: number, folded: number | undefined): { revision: number; objects: Versioned[]; events: StorageEvent[] } {
    let revision = newest;
    const byKey = new Map<string, StoredObject>();
    // One pass over raw rows, no re-validation (what was stored was valid), and no parsing either:
    // each value is parsed when first read, so a restart on 100,000 objects is ready at once.
    for (const [key, rev, value] of this.db.prepare('SELECT key, rev, value FROM objects').raw().iterate() as IterableIterator<[string, number, string]>) {
      if (rev > revision) revision = rev;
      byKey.set(key, new StoredObject(key, rev, value));
    }
    const foldedThrough = folded ?? revision;
    // The newest events the history keeps, read newest first: a restart costs the live data and
    // the bounded history, however long the log on disk grew before it was trimmed; and every event
    // not folded yet, which may be more (a fold refused on a full disk lets the log grow).
    const events: StorageEvent[] = [];
    let bytes = 0;
    let historyFull = false;
    /** The state of each key that an event newer than the fold changed: its newest such event's (undefined: deleted). */
    const replayed = new Map<string, StoredObject | undefined>();
    let unfoldedEvents = 0;
    let unfoldedBytes = 0;
    // An event that wrote the value `objects` holds shares it (read once, parsed once, held once):
    // its own copy of the text is not even read.
    const rows = this.db
      .prepare(
        'SELECT e.rev, e.type, e.key, CASE WHEN o.rev = e.rev THEN NULL ELSE e.value END AS value, e.prev FROM events e LEFT JOIN objects o ON o.key = e.key ORDER BY e.rev DESC',
      )
      .iterate() as IterableIterator<{ rev: number; type: StorageEvent['type']; key: string; value: string | null; prev: string | null }>;
    for (const r of rows) {
      const unfolded = r.rev > foldedThrough;
      if (historyFull && !unfolded) break;
      let object = r.value === null ? byKey.get(r.key)! : undefined;
      if (unfolded) {
        unfoldedEvents++;
        unfoldedBytes += r.value?.length ?? 0;
        if (!replayed.has(r.key)) {
          object ??= new StoredObject(r.key, r.rev, r.value!);
          replayed.set(r.key, r.type === 'DELETED' ? undefined : object);
        }
      }
      if (historyFull) continue;
      object ??= new StoredObject(r.key, r.rev, r.value!);
      const size = object.json!.length;
      if (events.length > 0 && (events.length >= bounds.events || bytes + size > bounds.bytes)) {
        historyFull = true;
        if (!unfolded) break;
        continue;
      }
      bytes += size;
      events.push(new StoredEvent(r.type, r.rev, object, size, r.prev ?? undefined));
    }
    for (const [key, object] of replayed) {
      if (object === undefined) byKey.delete(key);
      else byKey.set(key, object);
    }
    this.newestRevision = revision;
    this.folded = foldedThrough;
    this.markFolded = folded === undefined;
    this.unfoldedEvents = unfoldedEvents;
    this.unfoldedBytes = unfoldedBytes;
    return { revision, objects: [...byKey.values()], events: events.reverse() };
  }

  commit(writes: readonly PersistedWrite[]): void {
    if (writes.length === 0) return;
    try {
      // better-sqlite3 rolls the transaction back when it throws (unless SQLite already did).
      this.commitTx(writes);
    } catch (e) {
      if (!isDiskFull(e)) throw e;
      if (!this.full) process.stderr.write(`warning: storage in ${this.dir} is full (${(e as Error).message}): writes are refused until space frees; reads and watches go on\n`);
      this.full = true;
      throw new StoreError('NoSpace', noSpaceMessage);
    }
    if (this.full) process.stderr.write(`storage in ${this.dir} has space again: writes are accepted\n`);
    this.full = false;
    this.markFolded = false;
    this.written++;
    this.newestRevision = writes[writes.length - 1]!.event.rev;
    let bytes = 0;
    for (const w of writes) bytes += w.bytes.length;
    this.pendingBytes += bytes;
    this.unfoldedBytes += bytes;
    this.unfoldedEvents += writes.length;
  }

  sync(): Promise<void> {
    if (this.synced >= this.written || this.closed) return Promise.resolve();
    // An fsync covers every write made before it starts, whichever fsync in flight ends first.
    const upTo = this.written;
    const fd = this.openWal();
    return new Promise((resolve, reject) => {
      const done = (err: Error | null): void => {
        this.syncsInFlight--;
        if (this.closed) {
          // Closing checkpointed and synced everything.
          if (this.syncsInFlight === 0) this.closeWal();
          resolve();
          return;
        }
        if (err) {
          reject(new Error(`fsync of the write-ahead log failed: ${err.message}`));
          return;
        }
        this.synced = Math.max(this.synced, upTo);
        resolve();
        this.maintain();
      };
      this.syncsInFlight++;
      // No WAL file: the commits were checkpointed into the database, which SQLite synced then.
      // fdatasync, as SQLite's own WAL syncs on Linux: the frames and the file's size, without the
      // modification time, which costs an overwritten WAL (the steady state) a journal commit each time.
      if (fd === undefined) queueMicrotask(() => done(null));
      else fdatasync(fd, done);
    });
  }

  private openWal(): number | undefined {
    if (this.walFd !== undefined) return this.walFd;
    const wal = join(this.dir, 'state.db-wal');
    if (!existsSync(wal)) return undefined;
    this.walFd = openSync(wal, 'r');
    // The WAL's directory entry must be on disk too, once, as SQLite's own first sync of it would do.
    const dirFd = openSync(this.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    return this.walFd;
  }

  private closeWal(): void {
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.walFd = undefined;
  }

  compact(rev: number): void {
    this.compactThrough = Math.max(this.compactThrough, rev);
    this.pendingCompaction++;
  }

  /**
   * Folds the log into `objects` and trims it, after a flush (never inside a
   * write): once 1,000 events or 16 MiB are not folded, or 1,000 compactions
   * or 16 MiB written wait for a trim (see trim).
   */
  private maintain(): void {
    const fold = this.unfoldedEvents >= foldBatchEvents || this.unfoldedBytes >= foldBatchBytes;
    const trim = this.compactThrough > 0 && (this.pendingCompaction >= compactionBatchEvents || this.pendingBytes >= compactionBatchBytes);
    if (fold || trim) this.trim();
  }

  /**
   * Folds every event written into `objects`, and trims the log through the
   * revision compact() allowed (the fold comes first, in the same transaction:
   * no event leaves the log before `objects` has it). A failure, such as a
   * full disk, commits nothing and is only retried after the next batch: the
   * write that led to it is already committed, acknowledged and shown to
   * watchers. The same transaction records the newest revision, which the
   * trimmed events may have held.
   */
  trim(): void {
    if (this.closed || (this.compactThrough === 0 && this.newestRevision <= this.folded)) return;
    const through = this.newestRevision;
    try {
      this.maintainTx(through, this.compactThrough);
      this.folded = through;
      this.unfoldedEvents = 0;
      this.unfoldedBytes = 0;
      this.pendingCompaction = 0;
      this.pendingBytes = 0;
    } catch (e) {
      process.stderr.write(`warning: trimming the event log in ${this.dir} failed (${(e as Error).message}); it is tried again later\n`);
      this.pendingCompaction = 0;
      this.unfoldedEvents = 0;
      this.unfoldedBytes = 0;
    }
  }

  /**
   * Brings `objects` up to the log's revision `through` (in maintainTx's transaction): each key's
   * newest value, and the keys whose newest event is a deletion removed (unless written again after it).
   */
  private fold(through: number): void {
    if (through <= this.folded) return;
    this.foldUpserts.run(this.folded, through);
    // all(), not iterate(): the connection runs no other statement while one is being iterated.
    for (const [key, rev] of this.foldedDeletions.raw().all(this.folded, through) as Array<[string, number]>) this.deleteObject.run(key, rev);
    this.setFolded.run(through);
  }

  close(): void {
    if (this.closed) return;
    // A clean stop leaves `objects` whole, so that the next start replays nothing.
    if (this.db.open && this.newestRevision > this.folded) {
      try {
        this.maintainTx(this.newestRevision, 0);
        this.folded = this.newestRevision;
      } catch (e) {
        process.stderr.write(`warning: folding the event log in ${this.dir} on close failed (${(e as Error).message}); the next start replays it\n`);
      }
    }
    this.closed = true;
    // Closing checkpoints the WAL into the database and syncs it: the writes still waiting are durable after it.
    if (this.db.open) this.db.close();
    if (this.syncsInFlight === 0) this.closeWal();
  }
}

/**
 * The object JSON text encodes, parsed and frozen when first read (and the text dropped then).
 * The text is what the store encoded when it wrote that revision (JSON.stringify of the object,
 * which parsing and encoding again gives back unchanged): its bytes are kept as the object's
 * encoding, as the store keeps them for the revisions it writes, instead of encoding it again
 * (in a slab shared with the objects read before it: see slabBytes).
 *
 * Its managedFields share their trees and texts with the other stored objects', as a write
 * shares them before it stores (shareManagedFields): parsed apart, a pod's FieldsV1 tree is more
 * than half of its heap (scratch measurement, 10,000 bench pods: 7.0 KB -> 3.1 KB each), and
 * every full collection of a restarted server holding 100,000 of them marked it all.
 */
function parseOnce(holder: { json?: string; utf8?: Buffer; parsed?: KubeObject }, key: string, rev: number, previous = false): KubeObject {
  if (holder.parsed === undefined) {
    const value = parseStored(holder.json ?? holder.utf8!.toString('utf8'), key, rev, previous);
    shareManagedFields(value.metadata?.managedFields);
    const parsed = Object.freeze(value);
    keepEncoding(parsed, holder.utf8 ?? slabBytes(holder.json!));
    holder.parsed = parsed;
    holder.json = undefined;
    holder.utf8 = undefined;
  }
  return holder.parsed;
}

/**
 * A stored value's JSON, parsed. SQLite checks no value's bytes: a flipped bit in one is found
 * only here, and said as what it is (which object, which revision), not as a bare parse error.
 */
function parseStored(text: string, key: string, rev: number, previous: boolean): KubeObject {
  try {
    return JSON.parse(text) as KubeObject;
  } catch (e) {
    throw new Error(`state.db is damaged: the ${previous ? 'previous value' : 'value'} of ${key} in revision ${rev} is not JSON (${(e as Error).message}); restore the data dir from a backup`);
  }
}

/**
 * A stored object as loaded: its value is parsed when first read, so a restart on 100,000 objects is ready at once.
 * Until then its JSON serves readers that need only its bytes (a list sends them as they are) or a few fields.
 */
class StoredObject implements Versioned, UnparsedValue {
  json?: string;
  /** The text as UTF-8 once a reader asked for the bytes (the text is dropped then). */
  utf8?: Buffer;
  parsed?: KubeObject;
  constructor(
    readonly key: string,
    readonly rev: number,
    json: string,
  ) {
    this.json = json;
  }
  get value(): KubeObject {
    return parseOnce(this, this.key, this.rev);
  }
  get unparsed(): UnparsedValue | undefined {
    return this.parsed === undefined ? this : undefined;
  }
  jsonText(): string {
    return this.json ?? (this.utf8 ?? encodedJson(this.value)).toString('utf8');
  }
  jsonBytes(): Buffer {
    if (this.parsed !== undefined) return encodedJson(this.parsed);
    if (this.utf8 === undefined) {
      this.utf8 = slabBytes(this.json!);
      this.json = undefined;
    }
    return this.utf8;
  }
}

/** A loaded event of the history; its objects are parsed when first read. */
class StoredEvent implements StorageEvent {
  private readonly prevHolder?: { json?: string; parsed?: KubeObject };
  constructor(
    readonly type: StorageEvent['type'],
    readonly rev: number,
    private readonly object: StoredObject,
    readonly size: number,
    prev: string | undefined,
  ) {
    if (prev !== undefined) this.prevHolder = { json: prev };
  }
  get key(): string {
    return this.object.key;
  }
  get value(): KubeObject {
    return this.object.value;
  }
  get prev(): KubeObject | undefined {
    return this.prevHolder && parseOnce(this.prevHolder, this.key, this.rev, true);
  }
}

/**
 * Opens `<dir>/state.db` and sets it up, refusing a storage format newer than this version
 * reads before anything is written to it. A failure closes the file (a process that goes on,
 * such as a test's, must not keep it locked) and says what is wrong with it (see stateDbError).
 */
function openStateDb(dir: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(join(dir, 'state.db'));
    // Before the first access, so that the WAL index is kept in memory (no -shm file to create).
    db.pragma('locking_mode = EXCLUSIVE');
    const format = db.pragma('user_version', { simple: true }) as number;
    if (format > newestReadableFormat) throw newerFormatError(dir, format);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // After a checkpoint the WAL is cut back to this, so bursts of large writes leave no large file behind.
    db.pragma('journal_size_limit = 67108864');
    // A checkpoint runs inside the commit that crosses this many WAL pages, and blocks it on two
    // fsyncs (the WAL's, then the database's). A small object's commit writes three to four pages
    // (four to five while the revision was written at each commit), so SQLite's default of 1,000 made one every ~220 writes: more than half of the time spent in
    // commit (scratch measurement, 8,000 ConfigMaps: ~90-150 us -> ~35-50 us per commit). 4,000
    // pages (16 MiB) makes them four times rarer. Durability is the same: it rests on the WAL's
    // fsync (sync); a restart after kill -9 replays at most that much more WAL.
    db.pragma('wal_autocheckpoint = 4000');
    db.exec(`
      CREATE TABLE IF NOT EXISTS objects (key TEXT PRIMARY KEY, rev INTEGER NOT NULL, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS events (rev INTEGER PRIMARY KEY, type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, prev TEXT);
      CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    `);
    return db;
  } catch (e) {
    db?.close();
    throw e instanceof Database.SqliteError ? stateDbError(dir, e) : e;
  }
}

function isDiskFull(e: unknown): boolean {
  return e instanceof Database.SqliteError && e.code === 'SQLITE_FULL';
}
