/**
 * The namespace lifecycle controller: a namespace marked for deletion has all
 * its contents deleted, then its `kubernetes` finalizer removed, after which
 * the namespace itself goes. Every active namespace has its `default`
 * ServiceAccount, as kube's ServiceAccounts controller keeps it: made when the
 * namespace appears, and made again when it is deleted.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { listPrefix, resourcePrefix } from '../registry/keys.js';
import type { StoreWatch } from '../storage/mvcc-store.js';

const retryMs = 100;

export class NamespaceController {
  private watch?: StoreWatch;
  private serviceAccountWatch?: StoreWatch;
  private readonly pending = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly catalog: ResourceCatalog) {}

  private get namespaces() {
    return this.catalog.lookup('', 'v1', 'namespaces')!;
  }

  private get serviceAccounts() {
    return this.catalog.lookup('', 'v1', 'serviceaccounts')!;
  }

  start(): void {
    const store = this.namespaces.mvcc;
    for (const v of store.list('/core/namespaces/').items) this.observe(v.value);
    this.watch = store.watch('/core/namespaces/', store.revision, (e) => {
      if (e.type !== 'DELETED') this.observe(e.value);
    });
    const accounts = this.serviceAccounts.mvcc;
    this.serviceAccountWatch = accounts.watch('/core/serviceaccounts/', accounts.revision, (e) => {
      if (e.type === 'DELETED' && e.value.metadata.name === 'default') this.restoreDefaultServiceAccount(e.value.metadata.namespace!);
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.serviceAccountWatch?.stop();
    if (this.timer) clearTimeout(this.timer);
  }

  private observe(ns: KubeObject): void {
    const name = ns.metadata.name!;
    if (ns.metadata.deletionTimestamp) this.schedule(name);
    else setImmediate(() => this.ensureDefaultServiceAccount(name));
  }

  private schedule(name: string, delay = 0): void {
    if (this.stopped) return;
    this.pending.add(name);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const names = [...this.pending];
      this.pending.clear();
      for (const n of names) {
        this.sync(n).catch((e: unknown) => {
          // The server stopped under the sync (its store closed): nothing failed, and nothing is left to retry.
          if (this.stopped) return;
          // Retried shortly; a failure here must never take the server down.
          console.error(`namespace controller: syncing ${n}: ${(e as Error).stack ?? String(e)}`);
          this.schedule(n, retryMs);
        });
      }
    }, delay);
  }

  /** A deleted `default` ServiceAccount comes back while its namespace is active (not terminating). */
  private restoreDefaultServiceAccount(namespace: string): void {
    const ns = this.namespaces.mvcc.get(this.namespaces.key('', namespace));
    if (ns && !ns.value.metadata.deletionTimestamp) setImmediate(() => this.ensureDefaultServiceAccount(namespace));
  }

  private ensureDefaultServiceAccount(namespace: string): void {
    if (this.stopped) return;
    const sa = this.serviceAccounts;
    // As kube's ServiceAccounts controller, which looks in its cache first: most namespaces have it already
    // (a new store's come precomputed with the bootstrap objects, a restart finds them stored), and a create
    // refused as AlreadyExists runs the whole write path first, ~2 ms each of a cold start.
    if (sa.mvcc.get(sa.key(namespace, 'default'))) return;
    sa.create(namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, { dryRun: false, fieldValidation: 'Ignore' }).catch(
      (e: unknown) => {
        // Already there, or the namespace went away meanwhile.
        if (!(e instanceof StatusError)) console.error(`namespace controller: default service account in ${namespace}: ${String(e)}`);
      },
    );
  }

  /** One registry per stored resource (several served versions share one storage). */
  private namespacedStores(): ResourceStore[] {
    const seen = new Set<string>();
    return this.catalog.stores().filter((rs) => {
      const where = resourcePrefix(rs.location);
      if (!rs.info.namespaced || rs.info.virtual || seen.has(where)) return false;
      seen.add(where);
      return true;
    });
  }

  /** Deletes what is left in a terminating namespace; finalizes it once empty. */
  private async sync(name: string): Promise<void> {
    if (this.stopped) return;
    const nsStore = this.namespaces;
    let ns: KubeObject;
    try {
      ns = await nsStore.get('', name);
    } catch {
      return;
    }
    if (!ns.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const rs of this.namespacedStores()) {
      // Stored objects, read without conversion: only their names matter here.
      for (const v of rs.mvcc.list(listPrefix(rs.location, rs.info, name)).items) {
        remaining++;
        if (v.value.metadata.deletionTimestamp) continue;
        if (this.stopped) return;
        try {
          await rs.delete(name, v.value.metadata.name!, { dryRun: false, propagationPolicy: 'Background' });
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
        }
      }
    }
    if (remaining > 0 && this.anyLeft(name)) {
      this.schedule(name, retryMs);
      return;
    }
    const finalizers = ((ns.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).filter((f) => f !== 'kubernetes');
    await nsStore.update('', name, { ...ns, spec: { ...(ns.spec as object), finalizers } } as KubeObject, { dryRun: false, fieldValidation: 'Ignore' }, 'finalize');
  }

  private anyLeft(namespace: string): boolean {
    return this.namespacedStores().some((rs) => rs.mvcc.list(listPrefix(rs.location, rs.info, namespace)).items.length > 0);
  }
}
