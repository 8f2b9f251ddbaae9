/**
 * What is wrong with a data dir, in one line that names it: a path that is a
 * file, cannot be created or written, or a state.db that another server holds,
 * that is not SQLite, is damaged, or was written by a newer storage format.
 * The server refuses to start on any of them and leaves the data as it is.
 *
 * The directory is created here component by component rather than with
 * `mkdir -p` (Node's recursive mkdir): that one loops forever where the parent
 * exists but a child's mkdir still says ENOENT (under /proc), and reports a
 * read-only file system as ENOENT.
 */
import { accessSync, constants, lstatSync, mkdirSync, readlinkSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileErrorReason as reason } from '../tls/make-directories.js';

/**
 * The storage format this version reads: SQLite's `user_version` of state.db. Every data dir
 * written so far has 0; a later format that this version could not read sets it higher.
 */
export const newestReadableFormat = 0;

/** An error about the data dir `dir`: `data dir <dir>: <what>`. */
export function dataDirError(dir: string, what: string): Error {
  return new Error(`data dir ${dir}: ${what}`);
}

function errorCode(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * Makes sure `dir` is a directory this process can write, creating it and its
 * missing parents (mode 0700); otherwise throws {@link dataDirError} saying why not.
 */
export function prepareDataDir(dir: string): void {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let path = target; ; ) {
    let isDirectory: boolean | undefined;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (e) {
      // ENOTDIR: a parent is a file, which the walk up finds.
      if (errorCode(e) !== 'ENOENT' && errorCode(e) !== 'ENOTDIR') throw dataDirError(dir, `cannot read ${path}: ${reason(e)}`);
    }
    if (isDirectory === false) throw dataDirError(dir, path === target ? 'not a directory' : `${path} is not a directory`);
    if (isDirectory) break;
    missing.unshift(path);
    const parent = dirname(path);
    if (parent === path) break;
    path = parent;
  }
  for (const path of missing) {
    try {
      mkdirSync(path, { mode: 0o700 });
    } catch (e) {
      const what = path === target ? 'cannot create it' : `cannot create ${path}`;
      if (errorCode(e) === 'EEXIST' && isSymlink(path)) throw dataDirError(dir, `${what}: it is a symbolic link to ${readlinkSync(path)}, which does not exist`);
      throw dataDirError(dir, `${what}: ${reason(e)}`);
    }
  }
  try {
    accessSync(target, constants.W_OK | constants.X_OK);
  } catch (e) {
    throw dataDirError(dir, `not writable: ${reason(e)}`);
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * What an error opening or reading `<dir>/state.db` means (better-sqlite3's
 * SqliteError, whose `code` is SQLite's): another server holding it, a file
 * that is not SQLite, a damaged one; anything else with SQLite's own words.
 */
export function stateDbError(dir: string, e: unknown): Error {
  const message = e instanceof Error ? e.message : String(e);
  const code = errorCode(e) ?? '';
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) {
    return dataDirError(dir, `in use by another server (state.db is locked): stop that server, or give this one another data dir`);
  }
  if (code === 'SQLITE_NOTADB') return dataDirError(dir, `state.db is not an SQLite database (${message}); it was left as it is`);
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_')) {
    return dataDirError(dir, `state.db is damaged (${message}); it was left as it is: restore it from a backup, or move it away to start empty`);
  }
  return dataDirError(dir, `cannot read state.db: ${message}${code ? ` (${code})` : ''}`);
}

/** The error for a state.db whose storage format (`user_version`) is newer than this version reads. */
export function newerFormatError(dir: string, format: number): Error {
  return dataDirError(
    dir,
    `state.db has storage format ${format}, written by a newer version of Operant (this one reads format ${newestReadableFormat}); it was left as it is: run that version, or give this one another data dir`,
  );
}
