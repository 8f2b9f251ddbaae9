/** Writing one manifest object: created, or (when asked) replacing the one of its name. */
import { isAlreadyExists, type Client, type Kind, type KubeObject } from '@operant/runtime';

/** What to do with an object that exists already. */
export interface InstallOptions {
  /**
   * Replace it (`operant dev` and the demos install again on every run), or
   * fail with the server's AlreadyExists (the default: a test environment
   * starts empty, and an object already there is a mistake).
   */
  replace?: boolean;
}

/**
 * Creates `obj`; with `replace`, an object of that name already there is
 * replaced instead (its resourceVersion taken, so a concurrent change is a
 * Conflict, not lost).
 *
 * @example
 * ```ts
 * import { ServiceAccount, type Client } from '@operant/runtime';
 * import { createOrReplace } from '@operant/testing/install';
 *
 * declare const client: Client;
 * await createOrReplace(client, ServiceAccount, { metadata: { name: 'controller-manager', namespace: 'system' } }, { replace: true });
 * ```
 */
export async function createOrReplace<T extends KubeObject>(client: Client, kind: Kind<T>, obj: T, opts: InstallOptions = {}): Promise<T> {
  try {
    return await client.create(kind, obj);
  } catch (err) {
    if (!opts.replace || !isAlreadyExists(err)) throw err;
    const current = await client.get(kind, obj.metadata.name!, { namespace: obj.metadata.namespace });
    return client.update(kind, { ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion } });
  }
}
