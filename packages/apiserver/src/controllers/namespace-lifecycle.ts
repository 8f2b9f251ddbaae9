/**
 * The namespace lifecycle controller: a namespace marked for deletion has all
 * its contents deleted, then its `kubernetes` finalizer removed, after which
 * the namespace itself goes. Every new namespace gets its `default`
 * ServiceAccount, as kube's service account controller gives it.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { StoreWatch } from '../storage/mvcc-store.js';

const retryMs = 100;

export class NamespaceController {
  private watch?: StoreWatch;
  private readonly pending = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly catalog: ResourceCatalog) {}

  private get namespaces() {
    return this.catalog.lookup('', 'v1', 'namespaces')!;
  }

  start(): void {
    const store = this.namespaces.mvcc;
    for (const v of store.list('/core/namespaces/').items) this.observe(v.value);
    this.watch = store.watch('/core/namespaces/', store.revision, (e) => {
      if (e.type !== 'DELETED') this.observe(e.value);
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    if (this.timer) clearTimeout(this.timer);
  }

  private observe(ns: KubeObject): void {
    const name = ns.metadata.name!;
    if (ns.metadata.deletionTimestamp) this.schedule(name);
    else setImmediate(() => this.ensureDefaultServiceAccount(name));
  }

  private schedule(name: string, delay = 0): void {
    this.pending.add(name);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const names = [...this.pending];
      this.pending.clear();
      for (const n of names) {
        try {
          this.sync(n);
        } catch (e) {
          // Retried shortly; a failure here must never take the server down.
          console.error(`namespace controller: syncing ${n}: ${(e as Error).stack ?? String(e)}`);
          this.schedule(n, retryMs);
        }
      }
    }, delay);
  }

  private ensureDefaultServiceAccount(namespace: string): void {
    if (this.stopped) return;
    const sa = this.catalog.lookup('', 'v1', 'serviceaccounts')!;
    try {
      sa.create(namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, { dryRun: false, fieldValidation: 'Ignore' });
    } catch (e) {
      // Already there, or the namespace went away meanwhile.
      if (!(e instanceof StatusError)) console.error(`namespace controller: default service account in ${namespace}: ${String(e)}`);
    }
  }

  /** Deletes what is left in a terminating namespace; finalizes it once empty. */
  private sync(name: string): void {
    if (this.stopped) return;
    const nsStore = this.namespaces;
    let ns: KubeObject;
    try {
      ns = nsStore.get('', name);
    } catch {
      return;
    }
    if (!ns.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const rs of this.catalog.stores()) {
      if (!rs.info.namespaced || rs.info.virtual) continue;
      const list = rs.list(name, {}) as unknown as { items: KubeObject[] };
      for (const item of list.items) {
        remaining++;
        if (item.metadata.deletionTimestamp) continue;
        try {
          rs.delete(name, item.metadata.name!, { dryRun: false, propagationPolicy: 'Background' });
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
    nsStore.update('', name, { ...ns, spec: { ...(ns.spec as object), finalizers } } as KubeObject, { dryRun: false, fieldValidation: 'Ignore' }, 'finalize');
  }

  private anyLeft(namespace: string): boolean {
    for (const rs of this.catalog.stores()) {
      if (!rs.info.namespaced || rs.info.virtual) continue;
      if ((rs.list(namespace, { limit: 1 }) as unknown as { items: unknown[] }).items.length) return true;
    }
    return false;
  }
}
