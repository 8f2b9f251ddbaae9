/**
 * The durable store (MvccStore on SqlitePersistence) under 16 writers that
 * create, update and delete 400 keys at random (seeded), each with one write
 * in flight, until the process is killed. Usage: `random-writer.ts <dataDir>
 * <seed> <journal>`. It prints `loaded <revision>`, then one line of JSON per write:
 * `{"sent":name,"v":value}` before it (v null for a delete), and
 * `{"acked":name,"v":value,"rev":n}` once it is on disk. Each line goes to the
 * journal file first, written synchronously, so that a kill -9 cannot take a
 * line back once the write it announces has started: stdout is a socket that
 * Node writes asynchronously, and a loaded reader leaves lines queued in this
 * process, lost with it while their writes were already on disk.
 */
import { openSync, writeSync } from 'node:fs';
import { MvccStore } from '../../src/storage/mvcc-store.js';
import { SqlitePersistence } from '../../src/storage/sqlite-persistence.js';

const [dataDir, seedText, journalPath] = process.argv.slice(2);
const journal = openSync(journalPath!, 'a');
let seed = Number(seedText);
/** A linear congruential generator: the same seed, the same writes (until the timing differs). */
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
// A short history, so that compactions come often and the log is trimmed (and folded first) as the writes go on.
const store = new MvccStore({ persistence: new SqlitePersistence(dataDir!), historyCapacity: 300 });
const key = (name: string): string => `/core/configmaps/default/${name}`;
const configMap = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });
const say = (line: object): void => {
  const text = `${JSON.stringify(line)}\n`;
  writeSync(journal, text);
  process.stdout.write(text);
};

process.stdout.write(`loaded ${store.revision}\n`);
let n = 0;
async function writer(w: number): Promise<never> {
  for (;;) {
    const name = `k${Math.floor(random() * 400)}`;
    const current = store.get(key(name));
    const v = `w${w}-${n++}`;
    const op = !current ? 'create' : random() < 0.3 ? 'delete' : 'update';
    say({ sent: name, v: op === 'delete' ? null : v });
    const { rev } = op === 'create' ? store.create(key(name), configMap(name, v)) : op === 'delete' ? store.delete(key(name)) : store.update(key(name), current!.rev, configMap(name, v));
    await store.durable(rev);
    say({ acked: name, v: op === 'delete' ? null : v, rev });
  }
}
await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
