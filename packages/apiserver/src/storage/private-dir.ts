/**
 * The data directory holds Secrets as plain JSON (base64 is not encryption),
 * so, as etcd does, it is kept private: created 0700 with its files 0600, and
 * an existing one that others can read is fixed at start, with a warning that
 * says what it was.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/** Makes `dir` private (directories 0700, files 0600, all the way down); returns the warnings about what was open before. */
export function ensurePrivateDir(dir: string): string[] {
  const warnings: string[] = [];
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode;
  if (mode & 0o077) {
    warnings.push(`data dir ${dir} had permission ${octal(mode)}; set to 0700 so that other users cannot read its data (Secrets among it)`);
    chmodSync(dir, 0o700);
  }
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) {
        if (st.mode & 0o077) {
          warnings.push(`${path} had permission ${octal(st.mode)}; set to 0700`);
          chmodSync(path, 0o700);
        }
        walk(path);
      } else if (st.isFile() && st.mode & 0o077) {
        warnings.push(`${path} had permission ${octal(st.mode)}; set to 0600`);
        chmodSync(path, 0o600);
      }
    }
  };
  walk(dir);
  return warnings;
}

/** Creates `path` with mode 0600 if it does not exist (SQLite gives its -wal and -shm files the database file's mode). */
export function touchPrivate(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
}
