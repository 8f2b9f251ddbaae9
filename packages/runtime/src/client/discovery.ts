/**
 * Whether the server serves a kind, by its discovery document. A list that
 * answers 404 has two readings: the resource is not served (a CRD not
 * installed), or something else went wrong on the way. Only discovery tells
 * them apart for certain, so it is asked only then, and only the first
 * reading becomes a {@link NoKindMatchError}. Internal.
 */
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import type { Kind } from '../kind.js';
import { isNotFound } from './api-error.js';

/**
 * True when the APIResourceList of the kind's group/version lists its
 * resource; false when it does not, or the group/version itself is not
 * served (404). Other failures reject, to be retried like the list.
 */
export async function servesResource(kind: Kind, getJson: (path: string) => Promise<unknown>): Promise<boolean> {
  const path = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  let document: unknown;
  try {
    document = await getJson(path);
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
  const resources = (document as Partial<APIResourceList> | null)?.resources;
  return Array.isArray(resources) && resources.some((r) => r.name === kind.plural);
}
