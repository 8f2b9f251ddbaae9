/**
 * Serves the resources CRDs define: when a CRD is written, its served versions
 * are registered in the catalog at once (in the same tick as the write, so a
 * custom resource can be created right after); a schema change takes effect on
 * the next request; a CRD being deleted has its custom resources deleted, then
 * its cleanup finalizer removed.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import { ResourceStore } from '../registry/resource-store.js';
import type { AdmissionChain } from '../admission/dispatcher.js';
import type { ResourceQuotaAdmission } from '../admission/resource-quota.js';
import { resourcePrefix } from '../registry/keys.js';
import type { MvccStore, StoreWatch } from '../storage/mvcc-store.js';
import { asCrd, crdCleanupFinalizer, type CustomResourceDefinition } from './types.js';
import { isEstablished } from './strategy.js';
import { customResourceDecoder, customResourceInfo, customResourcePatcher, customResourceStrategy, hasDefaults, noneConversion } from './custom-resources.js';
import { webhookConversion } from './webhook-conversion.js';
import { loadCelIf, mentionsCelRules } from '../cel-loader.js';

const crdPrefix = '/apiextensions.k8s.io/customresourcedefinitions/';
const retryMs = 100;

export class CustomResourceServing {
  /** CRD name → the group/version/resource triples registered for it. */
  private readonly registered = new Map<string, Array<{ group: string; version: string; resource: string }>>();
  private readonly terminating = new Set<string>();
  private watch?: StoreWatch;
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** CRDs whose cleanup is scheduled or running. */
  private readonly cleaning = new Set<string>();

  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly store: MvccStore,
    private readonly admission?: AdmissionChain,
    private readonly quota?: ResourceQuotaAdmission,
  ) {}

  /** Serves the stored CRDs (loading CEL first when one has rules), then follows CRD writes. */
  async start(): Promise<void> {
    const stored = this.store.list(crdPrefix).items;
    const loading = loadCelIf(stored.some((v) => mentionsCelRules(v.value.spec)));
    if (loading) await loading;
    for (const v of stored) this.sync(v.value);
    this.watch = this.store.watch(crdPrefix, this.store.revision, (e) => {
      if (e.type === 'DELETED') this.unregister(e.value.metadata.name!);
      else this.sync(e.value);
    });
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    for (const t of this.timers) clearTimeout(t);
  }

  /** Registers (or re-registers) a CRD's served versions. */
  private sync(obj: KubeObject): void {
    const crd = asCrd(obj);
    const name = crd.metadata.name!;
    if (!isEstablished(crd)) {
      this.unregister(name);
      return;
    }
    const storage = crd.spec.versions.find((v) => v.storage)?.name;
    if (!storage) return;
    const location = { group: crd.spec.group, resource: crd.spec.names.plural };
    const previous = this.registered.get(name) ?? [];
    const now: Array<{ group: string; version: string; resource: string }> = [];
    const isTerminating = (): boolean => this.terminating.has(name);
    for (const version of crd.spec.versions) {
      if (!version.served) continue;
      const info = customResourceInfo(crd, version);
      const rs = new ResourceStore(info, location, customResourceStrategy(info, isTerminating), {
        store: this.store,
        decoder: customResourceDecoder(info),
        patcher: customResourcePatcher(),
        admission: this.admission,
        quota: this.quota,
        conversion:
          crd.spec.conversion?.strategy === 'Webhook'
            ? webhookConversion(crd, info, storage, this.store, info.custom?.schema && hasDefaults(info.custom.schema) ? info.custom.schema : undefined)
            : noneConversion(info, storage),
      });
      this.catalog.add(rs);
      now.push({ group: info.group, version: info.version, resource: info.resource });
    }
    for (const p of previous) {
      if (!now.some((n) => n.version === p.version && n.resource === p.resource && n.group === p.group)) this.catalog.remove(p.group, p.version, p.resource);
    }
    this.registered.set(name, now);
    if (crd.metadata.deletionTimestamp) {
      this.terminating.add(name);
      if (!this.cleaning.has(name)) {
        this.cleaning.add(name);
        this.scheduleCleanup(name);
      }
    } else this.terminating.delete(name);
  }

  private unregister(name: string): void {
    for (const r of this.registered.get(name) ?? []) this.catalog.remove(r.group, r.version, r.resource);
    this.registered.delete(name);
    this.terminating.delete(name);
  }

  private scheduleCleanup(name: string, delay = 0): void {
    if (this.stopped) return;
    // Store callbacks run inside a commit: act after it.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopped) return;
      this.cleanup(name).then(
        (done) => {
          if (done) this.cleaning.delete(name);
          else this.scheduleCleanup(name, retryMs);
        },
        (e: unknown) => {
          if (!(e instanceof StatusError)) console.error(`CRD cleanup of ${name}: ${(e as Error).stack ?? String(e)}`);
          this.scheduleCleanup(name, retryMs);
        },
      );
    }, delay);
    this.timers.add(timer);
  }

  /** Deletes the CRD's custom resources; once none is left, removes the cleanup finalizer. Returns true when done. */
  private async cleanup(name: string): Promise<boolean> {
    const crdStore = this.catalog.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    let crd: CustomResourceDefinition;
    try {
      crd = asCrd(await crdStore.get('', name));
    } catch {
      return true;
    }
    if (!crd.metadata.deletionTimestamp) return true;
    const served = this.registered.get(name)?.[0];
    const rs = served && this.catalog.lookup(served.group, served.version, served.resource);
    if (rs) {
      // Stored objects, read without conversion: only their names matter here.
      const prefix = resourcePrefix(rs.location);
      for (const v of this.store.list(prefix).items) {
        const item = v.value;
        if (item.metadata.deletionTimestamp) continue;
        try {
          await rs.delete(item.metadata.namespace ?? '', item.metadata.name!, { dryRun: false, propagationPolicy: 'Background' });
        } catch (e) {
          if (!(e instanceof StatusError && e.code === 404)) throw e;
        }
      }
      if (this.store.list(prefix).items.length > 0) return false;
    }
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== crdCleanupFinalizer);
    const patch = { metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: crd.metadata.resourceVersion } };
    await crdStore.patch('', name, 'application/merge-patch+json', Buffer.from(JSON.stringify(patch)), { dryRun: false, fieldValidation: 'Ignore' });
    return true;
  }
}
