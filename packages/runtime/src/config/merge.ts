/** Merging the files of `KUBECONFIG` into one configuration, by kubectl's rules. */
import { emptyDocument, type KubeConfigDocument } from './kubeconfig-document.js';

/**
 * Merges documents as kubectl merges the files of `KUBECONFIG`: the first file
 * to define a cluster, user or context name wins, and so does the first
 * non-empty `current-context`.
 *
 * @example
 * ```ts
 * import { mergeKubeConfigs, type KubeConfigDocument } from '@operant/runtime';
 *
 * declare const first: KubeConfigDocument, second: KubeConfigDocument;
 * const merged = mergeKubeConfigs([first, second]); // first's entries win
 * ```
 */
export function mergeKubeConfigs(docs: readonly KubeConfigDocument[]): KubeConfigDocument {
  const out = emptyDocument(docs[0]?.file);
  for (const doc of docs) {
    for (const [name, entry] of doc.clusters) if (!out.clusters.has(name)) out.clusters.set(name, entry);
    for (const [name, entry] of doc.users) if (!out.users.has(name)) out.users.set(name, entry);
    for (const [name, entry] of doc.contexts) if (!out.contexts.has(name)) out.contexts.set(name, entry);
    if (out.currentContext === '' && doc.currentContext !== '') {
      out.currentContext = doc.currentContext;
      out.file = doc.file;
    }
  }
  return out;
}
