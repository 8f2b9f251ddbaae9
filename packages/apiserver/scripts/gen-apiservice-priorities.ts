/**
 * Generates `src/registry/apiservice-priorities.json`: the groupPriorityMinimum
 * and versionPriority kube-apiserver gives the local APIService of each
 * built-in group version (its `apiVersionPriorities`, which the autoregister
 * controller writes into `v1.apps`, `v1.`, ...). A group version missing from
 * the table gets no APIService, as in kube.
 *
 * Source: the two Go files of kubernetes/kubernetes that hold the table, the
 * generic part first, then kube-apiserver's, whose entries win (kube merges
 * them in that order):
 *
 *   node --import tsx packages/apiserver/scripts/gen-apiservice-priorities.ts \
 *     <kubernetes>/pkg/controlplane/apiserver/aggregator.go \
 *     <kubernetes>/cmd/kube-apiserver/app/aggregator.go
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: gen-apiservice-priorities.ts <aggregator.go>...');
  process.exit(2);
}

/** `{Group: "apps", Version: "v1"}: {Group: 17800, Version: 15}`, as the Go map literals write each entry. */
const entry = /\{Group:\s*"([^"]*)",\s*Version:\s*"([^"]*)"\}:\s*\{Group:\s*(\d+),\s*Version:\s*(\d+)\}/g;

const priorities: Record<string, { group: number; version: number }> = {};
for (const file of files) {
  let found = 0;
  for (const m of readFileSync(file, 'utf8').matchAll(entry)) {
    priorities[`${m[1]}/${m[2]}`] = { group: Number(m[3]), version: Number(m[4]) };
    found++;
  }
  if (found === 0) throw new Error(`${file}: no priority entries found`);
}
const sorted = Object.fromEntries(Object.entries(priorities).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
const outFile = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'registry', 'apiservice-priorities.json');
/** Where each input sits in kubernetes/kubernetes (the path after a `kubernetes/` directory, when there is one). */
const source = files.map((f) => f.replace(/^.*\/kubernetes\//, ''));
writeFileSync(outFile, `${JSON.stringify({ source, priorities: sorted }, null, 1)}\n`);
console.log(`wrote ${Object.keys(sorted).length} group versions to ${outFile}`);
