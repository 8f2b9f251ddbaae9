/** Finding the registry of a stored object from its storage key. */
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';

/** The registry that serves objects stored under `key` (`/<group|core>/<resource>/...`). */
export function storeForKey(catalog: ResourceCatalog, key: string): ResourceStore | undefined {
  const [, group, resource] = key.split('/');
  return catalog.lookupAnyVersion(group === 'core' ? '' : group, resource);
}
