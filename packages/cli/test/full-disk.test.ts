/**
 * A full disk under `operant server --data-dir`, for real: the data dir is on a
 * 16 MiB tmpfs mounted in a user and mount namespace (`unshare -Urm`, no root
 * needed), and the test fills it with a ballast file. Writes then answer etcd's
 * NOSPACE error as kube-apiserver passes it on (a 500 with
 * "etcdserver: mvcc: database space exceeded"), and nothing of them is stored
 * or shown to watchers; reads and watches go on; a restart on the full disk
 * starts read-only and says why; and once the ballast is removed, writes are
 * accepted again. Skipped where user namespaces are not allowed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startServer, type ServerProcess } from './harness.js';
import { Client, cmPath, configMap, recordEvents, waitFor, type SeenEvent } from './https-client.js';

const noSpace = 'etcdserver: mvcc: database space exceeded';
const namespacesAllowed = spawnSync('unshare', ['-Urm', 'true']).status === 0 && spawnSync('nsenter', ['--version']).status === 0;

/** Fills the file system holding `path` with one file; returns how many bytes it took. */
function fillDisk(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  return written;
}

test('a full disk: writes get NOSPACE, reads and watches go on, a restart is read-only, and writes resume once space frees', { skip: !namespacesAllowed && 'needs unprivileged user namespaces (unshare -Urm)' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-full-disk-'));
  const disk = join(dir, 'disk');
  mkdirSync(disk);
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  // The namespace lives as long as this holder process; the servers join it with nsenter.
  const holder = spawn('unshare', ['-Urm', 'sh', '-c', 'mount -t tmpfs -o size=16m tmpfs "$0" && echo mounted && exec cat', disk], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => holder.kill());
  const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
  assert.equal(line.toString().trim(), 'mounted');
  const wrapper = ['nsenter', '-t', String(holder.pid), '-U', '-m', '--preserve-credentials', '--'];
  /** The test's own path to a file on the tmpfs. */
  const onDisk = (name: string): string => join(`/proc/${holder.pid}/root`, disk, name);
  const dataDir = join(disk, 'data');

  let server: ServerProcess = await startServer({ dataDir, dir, wrapper });
  let client = new Client(server);
  t.after(async () => {
    client.close();
    if (server.child.exitCode === null && server.child.signalCode === null) await server.kill();
  });

  const kept: Record<string, number> = {};
  for (let i = 0; i < 3; i++) {
    const res = await client.send('POST', cmPath(), configMap(`kept-${i}`, { i: String(i) }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    kept[`kept-${i}`] = Number(res.body.metadata.resourceVersion);
  }
  const seen: SeenEvent[] = [];
  const errors: string[] = [];
  const record = recordEvents(seen, errors);
  const startRv = Math.max(...Object.values(kept));
  const watch = await client.watch(`${cmPath()}?watch=true&resourceVersion=${startRv}`, record);
  assert.equal(watch.status, 200);

  const ballast = onDisk('ballast');
  t.diagnostic(`ballast: ${fillDisk(ballast)} bytes`);

  // The WAL may still have room of its own; writes go on until it needs more from the disk.
  const stored: string[] = [];
  let refused: { name: string; status: number; body: any } | undefined;
  for (let i = 0; i < 400 && !refused; i++) {
    const name = `big-${i}`;
    const res = await client.send('POST', cmPath(), configMap(name, { blob: 'z'.repeat(32 * 1024) }));
    if (res.status === 201) stored.push(name);
    else refused = { name, status: res.status, body: res.body };
  }
  assert.ok(refused, 'a write was refused on the full disk');
  assert.equal(refused.status, 500, JSON.stringify(refused.body));
  assert.equal(refused.body.kind, 'Status');
  assert.equal(refused.body.message, noSpace);
  assert.equal(refused.body.reason, undefined);
  const again = await client.send('PUT', cmPath('kept-0'), configMap('kept-0', { i: 'changed', blob: 'z'.repeat(32 * 1024) }, String(kept['kept-0'])));
  assert.equal(again.status, 500);
  assert.equal(again.body.message, noSpace);

  // Reads go on, and nothing of the refused writes is there.
  assert.equal((await client.send('GET', cmPath(refused.name))).status, 404);
  const got = await client.send('GET', cmPath('kept-0'));
  assert.equal(got.status, 200);
  assert.deepEqual(got.body.data, { i: '0' });
  const list = await client.send('GET', cmPath());
  assert.equal(list.status, 200);
  const names = new Set(list.body.items.map((o: any) => o.metadata.name));
  for (const name of [...Object.keys(kept), ...stored]) assert.ok(names.has(name), `${name} missing from the list`);
  await waitFor(() => seen.length >= stored.length || errors.length > 0, 10_000, 'the watch to see the stored writes');
  assert.deepEqual(errors, []);
  assert.deepEqual(
    seen.map((e) => e.name),
    stored,
    'the watch saw exactly the stored writes, not the refused ones',
  );
  watch.close();
  const lastSeen = seen.length ? seen[seen.length - 1].rv : startRv;

  // kill -9, and a restart on the full disk: it starts, read-only, and says why.
  await server.kill();
  client.close();
  server = await startServer({ dataDir, dir, wrapper });
  client = new Client(server);
  assert.match(server.stderr(), /starting read-only: the data dir is full \(etcdserver: mvcc: database space exceeded\)/);
  const afterRestart = await client.send('GET', cmPath());
  assert.equal(afterRestart.status, 200);
  assert.equal(afterRestart.body.items.length, list.body.items.length);
  const resumed: typeof seen = [];
  const resumedWatch = await client.watch(`${cmPath()}?watch=true&resourceVersion=${lastSeen}`, recordEvents(resumed, errors));
  assert.equal(resumedWatch.status, 200);
  const stillFull = await client.send('POST', cmPath(), configMap('still-full', { blob: 'z'.repeat(32 * 1024) }));
  assert.equal(stillFull.status, 500);
  assert.equal(stillFull.body.message, noSpace);

  // Space frees: the next write is accepted, with a newer resourceVersion, and the watch sees it.
  unlinkSync(ballast);
  const freed = await client.send('POST', cmPath(), configMap('after-space-freed', { ok: 'yes' }));
  assert.equal(freed.status, 201, JSON.stringify(freed.body));
  assert.ok(Number(freed.body.metadata.resourceVersion) > lastSeen);
  await waitFor(() => resumed.some((e) => e.name === 'after-space-freed') || errors.length > 0, 10_000, 'the watch to see the write after space freed');
  resumedWatch.close();
  assert.deepEqual(errors, []);
  assert.deepEqual(
    resumed.map((e) => e.name),
    ['after-space-freed'],
    'after the restart the watch saw only the write made once space freed',
  );
  client.close();
  assert.equal(await server.stop(), 0);
});
