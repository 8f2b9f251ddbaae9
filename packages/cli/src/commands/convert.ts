/**
 * `operant convert -f FILE`: rewrites the apiextensions.k8s.io/v1beta1
 * CustomResourceDefinitions of a manifest as v1, on stdout (other documents
 * pass through unchanged); what it had to invent or drop goes to stderr.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import { convertCrd, isV1beta1Crd } from '../convert/crd-v1beta1.js';

export function runConvert(flags: { filename: string }): void {
  const text = flags.filename === '-' ? readFileSync(0, 'utf8') : readFileSync(flags.filename, 'utf8');
  const docs = parseAllDocuments(text);
  const out: string[] = [];
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      throw new Error(`${flags.filename}:${e.linePos?.[0]?.line ?? '?'}:${e.linePos?.[0]?.col ?? '?'}: ${e.message.split('\n')[0]}`);
    }
    const obj = doc.toJS() as unknown;
    if (obj === null || obj === undefined) continue;
    if (!isV1beta1Crd(obj)) {
      out.push(stringify(obj));
      continue;
    }
    const { object, notes } = convertCrd(obj);
    for (const n of notes) process.stderr.write(`note: ${n}\n`);
    out.push(stringify(object, { lineWidth: 0 }));
  }
  process.stdout.write(out.join('---\n'));
}
