/**
 * The durable store (MvccStore on SqlitePersistence) in a process of its own,
 * so that a test can kill -9 it at a chosen point. Usage:
 * `storage-child.ts <dataDir>`; it prints `loaded <revision>`, then runs the
 * commands read from stdin, one a line, and answers each with one line:
 *
 * - `create <name>` / `delete <name>`: the write, answered `ack <rev>` once durable;
 * - `delete-compact <name>`: the delete, and a compaction through it while its
 *   flush is under way (the flush then trims the whole log), answered `ack <rev>`;
 * - `compact <n>`: n compactions through the current revision, answered
 *   `compacted <rev>` (the log is trimmed after 1,000 of them, at the next flush).
 *
 * The end of stdin closes the store and ends the process.
 */
import { createInterface } from 'node:readline';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { SqlitePersistence } from '../../src/storage/sqlite-persistence.js';

const store = new MvccStore({ persistence: new SqlitePersistence(process.argv[2]!), historyCapacity: 5 });
const key = (name: string): string => `/core/configmaps/default/${name}`;
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { name } });

async function run(line: string): Promise<string> {
  const [command, arg] = line.split(' ');
  switch (command) {
    case 'create': {
      const { rev } = store.create(key(arg!), configMap(arg!));
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
