/**
 * `operant server --data-dir` on a data dir it cannot use, for real: the CLI
 * exits 1 with one line that names the data dir and says what is wrong (a
 * file, a dangling symbolic link, a path that cannot be created, a read-only
 * file system, a state.db that is not SQLite, is damaged, is held by a running
 * server, or was written by a newer storage format), never a stack trace or a
 * hang, and leaves state.db as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './harness.js';

const cliMain = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'operant.js');
const namespacesAllowed = spawnSync('unshare', ['-Urm', 'true']).status === 0;

/** `operant server --data-dir <dataDir>` to its end; a server that starts instead is stopped by the timeout (and fails the test). */
function serve(dataDir: string, wrapper: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const [command, ...args] = [...wrapper, process.execPath, cliMain, 'server', '--port', '0', '--data-dir', dataDir];
  const r = spawnSync(command!, args, { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertRefused(r: ReturnType<typeof serve>, line: string): void {
  assert.equal(r.stdout, '', 'the server must not start');
  assert.equal(r.stderr, `${line}\n`);
  assert.equal(r.status, 1);
}

const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

test('a data dir path that cannot be a directory', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-data-dir-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'file');
  writeFileSync(file, 'not a directory\n');
  assertRefused(serve(file), `error: data dir ${file}: not a directory`);
  assertRefused(serve(join(file, 'data')), `error: data dir ${join(file, 'data')}: ${file} is not a directory`);
  assert.equal(readFileSync(file, 'utf8'), 'not a directory\n');

  const dangling = join(dir, 'dangling');
  symlinkSync(join(dir, 'unmounted'), dangling);
  assertRefused(serve(dangling), `error: data dir ${dangling}: cannot create it: it is a symbolic link to ${join(dir, 'unmounted')}, which does not exist`);
  // Node's recursive mkdir looped forever here (the parent exists, the child's mkdir says ENOENT).
  assertRefused(serve('/proc/operant-data'), 'error: data dir /proc/operant-data: cannot create it: no such file or directory');
});

test('a data dir on a read-only file system', { skip: !namespacesAllowed && 'needs unprivileged user namespaces (unshare -Urm)' }, (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-data-dir-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const mount = join(dir, 'ro');
  mkdirSync(mount);
  // The server runs in a mount namespace of its own where the directory is bound read-only.
  const wrapper = ['unshare', '-Urm', 'sh', '-c', 'mount --bind -o ro "$0" "$0" && exec "$@"', mount];
  assertRefused(serve(mount, wrapper), `error: data dir ${mount}: not writable: read-only file system`);
  assertRefused(serve(join(mount, 'data'), wrapper), `error: data dir ${join(mount, 'data')}: cannot create it: read-only file system`);
});

test('a state.db that is not SQLite, is damaged, is in use, or has a newer format: refused, and left as it was', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'operant-data-dir-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const good = join(dir, 'good');
  const first = await startServer({ dataDir: good, dir });
  t.after(() => first.kill());

  // A second server on the same data dir, while the first one runs.
  const before = hash(join(good, 'state.db'));
  assertRefused(serve(good), `error: data dir ${good}: in use by another server (state.db is locked): stop that server, or give this one another data dir`);
  assert.equal(hash(join(good, 'state.db')), before);
  assert.equal(await first.stop(), 0);

  const copy = (name: string): string => {
    const path = join(dir, name);
    cpSync(good, path, { recursive: true });
    return path;
  };
  const notSqlite = copy('not-sqlite');
  writeFileSync(join(notSqlite, 'state.db'), 'these are not the droids\n');
  assertRefused(serve(notSqlite), `error: data dir ${notSqlite}: state.db is not an SQLite database (file is not a database); it was left as it is`);
  assert.equal(readFileSync(join(notSqlite, 'state.db'), 'utf8'), 'these are not the droids\n');

  const damaged = copy('damaged');
  truncateSync(join(damaged, 'state.db'), 6000);
  const damagedHash = hash(join(damaged, 'state.db'));
  assertRefused(
    serve(damaged),
    `error: data dir ${damaged}: state.db is damaged (database disk image is malformed); it was left as it is: restore it from a backup, or move it away to start empty`,
  );
  assert.equal(hash(join(damaged, 'state.db')), damagedHash);

  // SQLite's user_version, bytes 60-63 of the header: what a later storage format sets.
  const newer = copy('newer');
  const fd = openSync(join(newer, 'state.db'), 'r+');
  writeSync(fd, Buffer.from([0, 0, 0, 2]), 0, 4, 60);
  closeSync(fd);
  const newerHash = hash(join(newer, 'state.db'));
  assertRefused(
    serve(newer),
    `error: data dir ${newer}: state.db has storage format 2, written by a newer version of Operant (this one reads format 0); it was left as it is: run that version, or give this one another data dir`,
  );
  assert.equal(hash(join(newer, 'state.db')), newerHash);

  // And the good one still starts, with its data.
  const again = await startServer({ dataDir: good, dir });
  assert.equal(await again.stop(), 0);
});
