/** Reads PEM material given inline (base64 `*-data` fields) or as files. */
import { readFile } from 'node:fs/promises';
import { KubeConfigError, fileProblem } from './errors.js';

/** Decodes a kubeconfig `*-data` field (base64 of PEM), failing with the field's name. */
export function decodePemData(source: string, field: string, data: string): string {
  const text = Buffer.from(data.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (!text.includes('-----BEGIN ')) throw new KubeConfigError(source, `${field} is not base64-encoded PEM`);
  return text;
}

/** Reads a PEM file named by a kubeconfig field, failing with the field's name and the file's problem. */
export async function readPemFile(source: string, field: string, path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new KubeConfigError(source, `${field} ${path}: ${fileProblem(e)}`, { cause: e });
  }
  if (!text.includes('-----BEGIN ')) throw new KubeConfigError(source, `${field} ${path} does not contain PEM data`);
  return text;
}
