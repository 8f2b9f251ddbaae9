/**
 * The file operations of the server's start (certificate cache, kubeconfig,
 * data dir keys) as promises over node:fs's callbacks: node:fs/promises would
 * load seven of Node's modules (readline among them) at every start, about a
 * millisecond, for the few calls made here.
 */
import { chmod as chmodCb, close as closeCb, fstat as fstatCb, fsync as fsyncCb, lstat as lstatCb, mkdir as mkdirCb, open as openCb, readFile as readFileCb, rename as renameCb, unlink as unlinkCb, writeFile as writeFileCb } from 'node:fs';
import { promisify } from 'node:util';

export const chmod = promisify(chmodCb);
export const close = promisify(closeCb);
export const fstat = promisify(fstatCb);
export const fsync = promisify(fsyncCb);
export const lstat = promisify(lstatCb);
export const mkdir = promisify(mkdirCb);
/** Opens a file; the descriptor must be closed with {@link close}. */
export const open = promisify(openCb);
export const rename = promisify(renameCb);
export const unlink = promisify(unlinkCb);

/** The whole text of a file (by path) or of an open descriptor, as UTF-8. */
export function readText(file: string | number): Promise<string> {
  return new Promise((resolve, reject) => readFileCb(file, 'utf8', (err, text) => (err ? reject(err) : resolve(text))));
}

/** Writes all of `data` to an open descriptor. */
export function writeAll(fd: number, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => writeFileCb(fd, data, (err) => (err ? reject(err) : resolve())));
}
