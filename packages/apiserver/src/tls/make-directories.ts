/**
 * Creating the directories on the way to a file of the start path (kubeconfig,
 * pki, the certificate cache), and saying what is wrong with one that cannot be.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** What is wrong with a directory on the way to a file: not a directory, or one that cannot be created. */
export class DirectoryError extends Error {}

/** The reason of a Node file-system error without its code and path: `read-only file system` of `EROFS: read-only file system, mkdir '/x'`. */
export function fileErrorReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return /^[A-Z]+: (.*?), \w+ '.*'$/.exec(message)?.[1] ?? message;
}

/**
 * `mkdir -p`, a directory at a time: Node's recursive mkdir loops forever (synchronously: the
 * whole process) where a directory exists but its child's mkdir says ENOENT, as under /proc.
 * Directories it creates get `mode` (as the recursive mkdir's `mode` applies to each).
 */
export function makeDirectories(dir: string, mode?: number): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      let isDirectory = false;
      try {
        isDirectory = statSync(dir).isDirectory();
      } catch {
        // A dangling symbolic link: not a directory either.
      }
      if (isDirectory) return;
      throw new DirectoryError(`${dir} is not a directory`);
    }
    if (code !== 'ENOENT' || dirname(dir) === dir) throw new DirectoryError(`cannot create ${dir}: ${fileErrorReason(e)}`, { cause: e });
  }
  makeDirectories(dirname(dir), mode);
  try {
    mkdirSync(dir, { mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new DirectoryError(`cannot create ${dir}: ${fileErrorReason(e)}`, { cause: e });
  }
}
