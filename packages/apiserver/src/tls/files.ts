/**
 * The file operations of the server's start (certificate cache, kubeconfig,
 * data dir keys) as promises over node:fs's callbacks: node:fs/promises would
 * load seven of Node's modules (readline among them) at every start, about a
 * millisecond, for the few calls made here.
 */
import { mkdir as mkdirCb, readFile as readFileCb } from 'node:fs';
import { promisify } from 'node:util';

export const mkdir = promisify(mkdirCb);

/** The whole text of a file (by path) or of an open descriptor, as UTF-8. */
export function readText(file: string | number): Promise<string> {
  return new Promise((resolve, reject) => readFileCb(file, 'utf8', (err, text) => (err ? reject(err) : resolve(text))));
}
