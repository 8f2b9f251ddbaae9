/**
 * The garbage collector, after kube's: dependents whose owners are all gone are
 * deleted (Background); an owner deleted with Foreground keeps its
 * `foregroundDeletion` finalizer until its blocking dependents are gone; an
 * owner deleted with Orphan has its references removed from its dependents
 * before its `orphan` finalizer is.
 */
import { StatusError, type KubeObject, type OwnerReference } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { StoreWatch } from '../storage/mvcc-store.js';
import { ownershipOf, type OwnershipMeta } from '../storage/metadata-scan.js';
import type { StorageEvent, Versioned } from '../storage/types.js';
import { storeForKey } from './keys.js';

interface Node {
  key: string;
  owners: string[];
}

export class GarbageCollector {
  /** uid → storage key of every live object. */
  private readonly byUid = new Map<string, Node>();
  /** owner uid → dependent uids. */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly queue = new Set<string>();
  private scheduled = false;
  private watch?: StoreWatch;
  private stopped = false;
  /** Set once the graph holds everything stored at start: only then can an owner's absence mean it is gone. */
  private synced = false;

  constructor(private readonly catalog: ResourceCatalog) {}

  /**
   * Watches from now, and builds the graph of what is stored after start-up, in
   * slices between requests (as kube's GC syncs its graph from informers), so
   * that a restart on a large data dir is ready at once. Nothing is judged an
   * orphan before the whole graph is built.
   */
  start(): void {
    const store = this.catalog.lookup('', 'v1', 'namespaces')!.mvcc;
    const stored = [...store.all()];
    this.watch = store.watch('/', store.revision, (e) => this.onEvent(e));
    // Objects read back from disk are not parsed for this (ownershipOf scans their text for the few
    // fields the graph needs). Those with owners or a deletion can be judged only once the graph is
    // whole: their fields are kept for that last pass.
    const pending = new Map<Versioned, OwnershipMeta>();
    let next = 0;
    const slice = (): void => {
      if (this.stopped) return;
      for (const end = Math.min(next + 2000, stored.length); next < end; next++) {
        const v = stored[next];
        // A later write reached onEvent already (and a deleted object stays out).
        if (store.get(v.key) !== v) continue;
        const meta = ownershipOf(v);
        this.index(v.key, meta);
        if (meta.deletionTimestamp || ownerUids(meta).length) pending.set(v, meta);
      }
      if (next < stored.length) {
        setImmediate(slice);
        return;
      }
      this.synced = true;
      for (const v of store.all()) {
        const meta = pending.get(v);
        if (meta) this.enqueueIfInteresting(meta);
        // Still as read at start and neither owned nor deleted: nothing to do. Anything else was written since.
        else if (!v.unparsed) this.enqueueIfInteresting(v.value.metadata);
      }
    };
    slice();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
  }

  private onEvent(e: StorageEvent): void {
    const uid = e.value.metadata.uid;
    if (!uid) return;
    if (e.type === 'DELETED') {
      this.unindex(uid);
      // Before the graph is whole, its last pass finds what this deletion left behind.
      if (!this.synced) return;
      for (const dep of this.dependents.get(uid) ?? []) this.enqueue(dep);
      for (const owner of ownerUids(e.value.metadata)) this.enqueue(owner);
      return;
    }
    this.index(e.key, e.value.metadata);
    if (this.synced) this.enqueueIfInteresting(e.value.metadata);
  }

  private enqueueIfInteresting(meta: OwnershipMeta): void {
    const uid = meta.uid!;
    const finalizers = meta.finalizers ?? [];
    if (meta.deletionTimestamp && (finalizers.includes('foregroundDeletion') || finalizers.includes('orphan'))) this.enqueue(uid);
    if (ownerUids(meta).some((o) => !this.byUid.has(o) || this.isWaiting(o))) this.enqueue(uid);
  }

  private index(key: string, meta: OwnershipMeta): void {
    const uid = meta.uid!;
    const owners = ownerUids(meta);
    const old = this.byUid.get(uid);
    for (const o of old?.owners ?? []) this.dependents.get(o)?.delete(uid);
    this.byUid.set(uid, { key, owners });
    for (const o of owners) {
      let set = this.dependents.get(o);
      if (!set) this.dependents.set(o, (set = new Set()));
      set.add(uid);
    }
  }

  private unindex(uid: string): void {
    const node = this.byUid.get(uid);
    if (!node) return;
    for (const o of node.owners) {
      const set = this.dependents.get(o);
      set?.delete(uid);
      if (set?.size === 0 && !this.byUid.has(o)) this.dependents.delete(o);
    }
    this.byUid.delete(uid);
  }

  private enqueue(uid: string): void {
    this.queue.add(uid);
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    // Store callbacks run inside a commit; act after it, never re-entrantly.
    setImmediate(() => void this.drain());
  }

  /** Processes queued uids one at a time; events arriving meanwhile queue up for the next round. */
  private async drain(): Promise<void> {
    const uids = [...this.queue];
    this.queue.clear();
    for (const u of uids) {
      if (this.stopped) return;
      try {
        await this.process(u);
      } catch (e) {
        // A conflict or a vanished object: the next event about it brings it back.
        // Anything else is a bug, reported but never allowed to take the server down.
        if (!(e instanceof StatusError)) console.error(`garbage collector: processing ${u}: ${(e as Error).stack ?? String(e)}`);
      }
    }
    this.scheduled = false;
    if (this.queue.size > 0 && !this.stopped) {
      this.scheduled = true;
      setImmediate(() => void this.drain());
    }
  }

  private current(uid: string): KubeObject | undefined {
    const node = this.byUid.get(uid);
    if (!node) return undefined;
    const v = this.catalog.lookup('', 'v1', 'namespaces')!.mvcc.get(node.key);
    return v?.value.metadata.uid === uid ? v.value : undefined;
  }

  private isWaiting(uid: string): boolean {
    const obj = this.current(uid);
    return !!obj?.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).includes('foregroundDeletion');
  }

  private async process(uid: string): Promise<void> {
    const obj = this.current(uid);
    if (!obj) return;
    const finalizers = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && finalizers.includes('orphan')) await this.orphanDependents(obj);
    else if (obj.metadata.deletionTimestamp && finalizers.includes('foregroundDeletion')) await this.deleteForeground(obj);
    const now = this.current(uid);
    if (now && ownerUids(now.metadata).length) await this.attemptToDelete(now);
  }

  /** A dependent: deleted when no owner remains; dangling references dropped when some do. */
  private async attemptToDelete(obj: KubeObject): Promise<void> {
    const refs = obj.metadata.ownerReferences ?? [];
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = this.current(ref.uid);
      if (!owner || !sameOwner(owner, ref)) dangling.push(ref);
      else if (this.isWaiting(ref.uid)) waiting.push(ref);
      else solid.push(ref);
    }
    const key = this.byUid.get(obj.metadata.uid!)!.key;
    const rs = storeForKey(this.catalog, key);
    if (!rs) return;
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name!;
    if (solid.length > 0) {
      if (dangling.length + waiting.length === 0) return;
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.setOwnerReferences(obj, refs.filter((r) => !drop.has(r.uid)));
      return;
    }
    if (obj.metadata.deletionTimestamp) return;
    const hasDependents = (this.dependents.get(obj.metadata.uid!)?.size ?? 0) > 0;
    const policy = waiting.length > 0 && hasDependents ? 'Foreground' : 'Background';
    await rs.delete(ns, name, { dryRun: false, propagationPolicy: policy, preconditions: { uid: obj.metadata.uid } });
  }

  /** An owner deleted in the foreground: delete dependents; drop the finalizer once none blocks. */
  private async deleteForeground(owner: KubeObject): Promise<void> {
    const uid = owner.metadata.uid!;
    let blocking = 0;
    for (const depUid of this.dependents.get(uid) ?? []) {
      const dep = this.current(depUid);
      if (!dep) continue;
      const ref = (dep.metadata.ownerReferences ?? []).find((r) => r.uid === uid);
      if (ref?.blockOwnerDeletion) blocking++;
      await this.attemptToDelete(dep);
    }
    if (blocking === 0) await this.removeFinalizer(owner, 'foregroundDeletion');
  }

  /** An owner deleted with Orphan: remove references to it, then its finalizer. */
  private async orphanDependents(owner: KubeObject): Promise<void> {
    const uid = owner.metadata.uid!;
    for (const depUid of [...(this.dependents.get(uid) ?? [])]) {
      const dep = this.current(depUid);
      if (!dep) continue;
      await this.setOwnerReferences(dep, (dep.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid));
    }
    await this.removeFinalizer(owner, 'orphan');
  }

  private async setOwnerReferences(obj: KubeObject, refs: OwnerReference[]): Promise<void> {
    const rs = storeForKey(this.catalog, this.byUid.get(obj.metadata.uid!)!.key);
    const patch = { metadata: { ownerReferences: refs.length ? refs : null, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion } };
    await rs?.patch(obj.metadata.namespace ?? '', obj.metadata.name!, 'application/merge-patch+json', Buffer.from(JSON.stringify(patch)), { dryRun: false, fieldValidation: 'Ignore' });
  }

  private async removeFinalizer(obj: KubeObject, finalizer: string): Promise<void> {
    const rs = storeForKey(this.catalog, this.byUid.get(obj.metadata.uid!)!.key);
    const finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    const patch = { metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: obj.metadata.resourceVersion } };
    await rs?.patch(obj.metadata.namespace ?? '', obj.metadata.name!, 'application/merge-patch+json', Buffer.from(JSON.stringify(patch)), { dryRun: false, fieldValidation: 'Ignore' });
  }
}

function ownerUids(meta: OwnershipMeta): string[] {
  return (meta.ownerReferences ?? []).map((r) => r.uid).filter((u): u is string => !!u);
}

/** An owner reference points at this object only if kind and name agree too. */
function sameOwner(owner: KubeObject, ref: OwnerReference): boolean {
  return owner.metadata.name === ref.name && owner.kind === ref.kind;
}
