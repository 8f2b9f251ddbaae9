/**
 * The durable store (MvccStore on SqlitePersistence) in a process of its own,
 * so that a test can kill -9 it at a chosen point. Usage:
 * `storage-child.ts <dataDir>`; it prints `loaded <revision>`, then runs the
 * commands read from stdin, one a line, and answers each with one line:
 *
 * - `create <name>` / `delete <name>`: the write, answered `ack <rev>` once durable;
 * - `update <name> <blob>`: the object's `data.blob` set to `<blob>`, answered `ack <rev>` once durable;
 * - `delete-compact <name>`: the delete, and a compaction through it while its
 *   flush is under way (the flush then trims the whole log), answered `ack <rev>`;
 * - `compact <n>`: n compactions through the current revision, answered
 *   `compacted <rev>` (the log is trimmed after 1,000 of them, at the next flush);
 * - `create-many <name>:<bytes> ...`: the creates (each with a value of that
 *   many bytes), the first in a turn of the event loop of its own, the rest
 *   while its flush is under way, and a list made right after them, answered
 *   with one line of JSON once all have settled: each create's revision or
 *   error, and the list's error or revision;
 * - `list`: a list at the current revision, answered once that revision is on
 *   disk: `{"revision":n}` or `{"error":...}`;
 * - `state <fromRev>`: one line of JSON: the revision, the names stored, the
 *   names a watch from `fromRev` replays, the names the watch opened at the
 *   start has been given, and each stored object's `data.blob` and revision
 *   (`blobs`: name -> `<blob>@<rev>`).
 *
 * The end of stdin closes the store and ends the process.
 */
import { createInterface } from 'node:readline';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { StoreError } from '../../src/storage/types.js';
import { SqlitePersistence } from '../../src/storage/sqlite-persistence.js';

const store = new MvccStore({ persistence: new SqlitePersistence(process.argv[2]!), historyCapacity: 5 });
const key = (name: string): string => `/core/configmaps/default/${name}`;
const configMap = (name: string, blob = '') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { name, blob } });
const prefix = '/core/configmaps/default/';
/** What the watch opened at the start was given. */
const watched: string[] = [];
store.watch(prefix, store.revision, (e) => watched.push(`${e.type} ${e.value.metadata.name}`));

/** A store error as the child reports it: its code and message. */
function reported(e: unknown): string {
  return e instanceof StoreError ? `${e.code}: ${e.message}` : String(e);
}

/** Runs `write` and the wait for it to be on disk: its revision, or the error either gave. */
async function settle(write: () => { rev: number }): Promise<{ rev?: number; error?: string }> {
  let rev: number;
  try {
    rev = write().rev;
  } catch (e) {
    return { error: reported(e) };
  }
  try {
    await store.durable(rev);
    return { rev };
  } catch (e) {
    return { error: reported(e) };
  }
}

async function run(line: string): Promise<string> {
  const [command, arg] = line.split(' ');
  switch (command) {
    case 'create': {
      const { rev } = store.create(key(arg!), configMap(arg!));
      await store.durable(rev);
      return `ack ${rev}`;
    }
    case 'update': {
      const current = store.get(key(arg!))!;
      const { rev } = store.update(key(arg!), current.rev, configMap(arg!, line.split(' ')[2]));
      await store.durable(rev);
      return `ack ${rev}`;
    }
    case 'delete': {
      const { rev } = store.delete(key(arg!));
      await store.durable(rev);
      return `ack ${rev}`;
    }
    case 'delete-compact': {
      const { rev } = store.delete(key(arg!));
      store.compact();
      await store.durable(rev);
      return `ack ${rev}`;
    }
    case 'compact': {
      let rev = 0;
      for (let i = 0; i < Number(arg); i++) rev = store.compact();
      return `compacted ${rev}`;
    }
    case 'create-many': {
      // The first write alone in its turn of the event loop, whose end starts its flush; the rest
      // right after that (in the same check phase, before the flush can end), so that they wait for
      // it to end and are written together by the next.
      const [first, ...rest] = line
        .split(' ')
        .slice(1)
        .map((spec) => {
          const [name, bytes] = spec.split(':');
          return () => settle(() => store.create(key(name!), configMap(name!, 'z'.repeat(Number(bytes)))));
        });
      const writes = [first!()];
      if (rest.length > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        for (const write of rest) writes.push(write());
      }
      // A read that sees them all, answered once they are on disk.
      const snapshot = store.list(prefix);
      const list = store.durable(snapshot.revision).then(
        () => ({ revision: snapshot.revision }),
        (e: unknown) => ({ error: reported(e) }),
      );
      return JSON.stringify({ writes: await Promise.all(writes), list: await list });
    }
    case 'list': {
      // A read at the current revision, answered once that revision is on disk.
      const snapshot = store.list(prefix);
      return JSON.stringify(
        await store.durable(snapshot.revision).then(
          () => ({ revision: snapshot.revision }),
          (e: unknown) => ({ error: reported(e) }),
        ),
      );
    }
    case 'state': {
      const replayed: string[] = [];
      store.watch(prefix, Number(arg), (e) => replayed.push(`${e.type} ${e.value.metadata.name}`)).stop();
      const items = store.list(prefix).items;
      const names = items.map((v) => v.value.metadata.name);
      const blobs = Object.fromEntries(items.map((v) => [v.value.metadata.name, `${(v.value as unknown as { data: { blob: string } }).data.blob}@${v.rev}`]));
      return JSON.stringify({ revision: store.revision, names, replayed, watched, blobs });
    }
    default:
      throw new Error(`unknown command ${line}`);
  }
}

process.stdout.write(`loaded ${store.revision}\n`);
// One command at a time, in order.
let queue = Promise.resolve();
createInterface({ input: process.stdin })
  .on('line', (line) => {
    queue = queue.then(async () => {
      process.stdout.write(`${await run(line)}\n`);
    });
  })
  // The end of stdin stops it cleanly.
  .on('close', () => void queue.then(() => store.close()));
