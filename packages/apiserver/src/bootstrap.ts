/** The objects every cluster starts with: the default, kube-system, kube-public and kube-node-lease namespaces. */
import { StatusError } from '@operant/apimachinery';
import type { ResourceCatalog } from './registry/catalog.js';

const initialNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function bootstrap(catalog: ResourceCatalog): void {
  const namespaces = catalog.lookup('', 'v1', 'namespaces')!;
  for (const name of initialNamespaces) {
    try {
      namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false, fieldValidation: 'Ignore' });
    } catch (e) {
      // Already there after a restart with --data-dir.
      if (!(e instanceof StatusError && e.code === 409)) throw e;
    }
  }
}
