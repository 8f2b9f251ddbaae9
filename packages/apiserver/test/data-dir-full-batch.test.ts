/**
 * A batch of writes that SQLite refuses on a full disk leaves no trace. The
 * store writes the writes made while its flushes are under way as one
 * transaction when the next flush starts; by then they are applied in memory.
 * When the disk is full that transaction fails, and every write of it must be
 * taken back: each writer gets etcd's NOSPACE error (which kube-apiserver
 * passes on as a 500), a read that saw them gets it too, and no watch, read
 * or restart shows any of them.
 *
 * The disk is real and really full: a 16 MiB tmpfs in a user and mount
 * namespace (`unshare -Urm`, no root needed), filled with a ballast file, and
 * the store runs in a child process (support/storage-child.ts) inside it.
 * Skipped where user namespaces are not allowed.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, ftruncateSync, fstatSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { StoreProcess, type SpawnStore } from './support/store-process.js';

const noSpace = 'NoSpace: etcdserver: mvcc: database space exceeded';
const namespacesAllowed = spawnSync('unshare', ['-Urm', 'true']).status === 0 && spawnSync('nsenter', ['--version']).status === 0;
const root = mkdtempSync(join(tmpdir(), 'operant-full-batch-'));
/** The process holding the namespace with the small disk. */
let holder: ChildProcess | undefined;
after(() => {
  StoreProcess.killAll();
  if (holder?.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** Fills the file system holding `path` with one file, then frees `room` bytes of it. */
function fillDiskBut(path: string, room: number): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  }
  try {
    ftruncateSync(fd, fstatSync(fd).size - room);
  } finally {
    closeSync(fd);
  }
}

interface Settled {
  rev?: number;
  error?: string;
}

it('a batch refused on a full disk is taken back whole: its writers and the reads that saw it get NOSPACE; no read, watch or restart shows it', { skip: !namespacesAllowed && 'needs unprivileged user namespaces (unshare -Urm)' }, async () => {
  const disk = join(root, 'disk');
  mkdirSync(disk);
  holder = spawn('unshare', ['-Urm', 'sh', '-c', 'mount -t tmpfs -o size=16m tmpfs "$0" && echo mounted && exec cat', disk], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
  assert.equal(line.toString().trim(), 'mounted');
  const dataDir = join(disk, 'data');
  const ballast = join(`/proc/${holder.pid}/root`, disk, 'ballast');
  // The store inside the namespace, its stderr kept for the assertions.
  const inNamespace: SpawnStore = (argv) =>
    spawn('nsenter', ['-t', String(holder!.pid), '-U', '-m', '--preserve-credentials', `--wd=${process.cwd()}`, '--', process.execPath, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] });

  const first = await StoreProcess.start(dataDir, inNamespace);
  let store = first.store;
  const loaded = first.loaded;
  const kept = await store.write('create kept');

  // Room for a few small writes, not for the large ones.
  fillDiskBut(ballast, 256 * 1024);
  // The first create's flush writes it alone (it fits); the three large ones, made while that flush
  // is under way, wait for it to end and are then written together, and refused.
  const outcome = JSON.parse(await store.send('create-many small-0:10 big-0:300000 big-1:300000 big-2:300000')) as { writes: Settled[]; list: Settled };
  const [small0, ...bigs] = outcome.writes;
  assert.ok(small0!.rev, `the small create is acknowledged: ${JSON.stringify(outcome.writes)}`);
  assert.ok(small0!.rev > kept);
  assert.deepEqual(
    bigs.map((w) => w.error),
    [noSpace, noSpace, noSpace],
    'each write of the refused batch answers NOSPACE',
  );
  assert.deepEqual(outcome.list, { error: noSpace }, 'the list that saw the refused writes is not answered with them');
  assert.match(store.stderr, /storage in .* is full/);

  // Nothing of them in memory: reads, the watch open all along, a watch replayed from before them,
  // and the revision (the state is the one after small-0's write).
  const expected = {
    names: ['kept', 'small-0'],
    replayed: ['ADDED kept', 'ADDED small-0'],
  };
  let state = await store.state(loaded);
  assert.equal(state.revision, small0!.rev);
  assert.deepEqual(state.names, expected.names);
  assert.deepEqual(state.replayed, expected.replayed);
  assert.deepEqual(state.watched, expected.replayed);

  // Still full: a write alone is refused too (and the read that saw it), and the store goes on as
  // before it: a read made right after it is answered, at the revision of the last write stored.
  const alone = JSON.parse(await store.send('create-many big-3:300000')) as { writes: Settled[]; list: Settled };
  assert.deepEqual(alone.writes, [{ error: noSpace }]);
  assert.deepEqual(alone.list, { error: noSpace });
  assert.deepEqual(JSON.parse(await store.send('list')), { revision: small0!.rev });
  state = await store.state(loaded);
  assert.equal(state.revision, small0!.rev);
  assert.deepEqual(state.names, expected.names);

  // kill -9, space frees, and a restart: the disk has none of the refused writes either.
  await store.kill9();
  unlinkSync(ballast);
  const restarted = await StoreProcess.start(dataDir, inNamespace);
  store = restarted.store;
  assert.equal(restarted.loaded, small0!.rev, 'the restart continues from the last acknowledged write');
  state = await store.state(loaded);
  assert.deepEqual(state.names, expected.names);
  assert.deepEqual(state.replayed, expected.replayed);

  // Writes are accepted again, after every acknowledged revision, and watched.
  const next = JSON.parse(await store.send('create-many big-0:300000')) as { writes: Settled[] };
  assert.ok(next.writes[0]!.rev! > small0!.rev, JSON.stringify(next.writes));
  state = await store.state(loaded);
  assert.deepEqual(state.names, ['big-0', ...expected.names]);
  assert.deepEqual(state.watched, ['ADDED big-0']);
  await store.kill9();
});
