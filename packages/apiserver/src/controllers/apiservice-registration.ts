/**
 * The APIServices a kube-apiserver keeps for itself, as four of its
 * controllers do there:
 *
 * - autoregister: a local APIService for every built-in group version served
 *   (`v1.apps`, `v1.` for core), with kube's priorities, labelled
 *   `kube-aggregator.kubernetes.io/automanaged: onstart`; one left from an
 *   earlier start whose group version is no longer served goes at start;
 * - crdregistration: one for every served version of a CRD group, priorities
 *   1000/100, labelled `automanaged: true`, removed with the version;
 * - the local and remote availability controllers: `Available` True (Local)
 *   for local ones; for one with a service, kube's checks of the Service and
 *   its Endpoints, and, since this server does not proxy to aggregated API
 *   servers, FailedDiscoveryCheck once those pass.
 *
 * An APIService without the automanaged label is the user's: it is never
 * rewritten or removed, only given its status. Writes go through the
 * registry like any client's; the work is level-triggered and coalesced.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { ResourceInfo } from '../registry/resource-info.js';
import { resourcePrefix } from '../registry/keys.js';
import { nowTimestamp } from '../registry/object-meta.js';
import type { WriteOptions } from '../registry/options.js';
import { localAvailableCondition } from '../registry/apiregistration-strategies.js';
import type { StoreWatch } from '../storage/mvcc-store.js';
import { CoalescedSync } from './coalesced-sync.js';
import { builtinApiServicePriority } from '../registry/apiservice-priorities.js';
import { asObj } from '../registry/defaults/json-fields.js';

type Json = Record<string, unknown>;

export const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';
/** What crdregistration gives a CRD's group version: low, below every built-in group. */
const crdPriority = { group: 1000, version: 100 };
const writeOptions: WriteOptions = { dryRun: false, fieldValidation: 'Ignore', fieldManager: 'kube-apiserver' };

interface Desired {
  spec: Json;
  /** `onstart` for built-in group versions, `true` for CRDs'. */
  automanaged: 'onstart' | 'true';
}

/** The APIService each served group version should have, by name (`<version>.<group>`). */
function desiredAPIServices(infos: ResourceInfo[]): Map<string, Desired> {
  const out = new Map<string, Desired>();
  for (const info of infos) {
    const name = `${info.version}.${info.group}`;
    if (out.has(name)) continue;
    const priority = info.custom ? crdPriority : builtinApiServicePriority(`${info.group}/${info.version}`);
    // kube registers no APIService for a built-in group version it has no priority for.
    if (!priority) continue;
    out.set(name, {
      // Go's encoding leaves out the core group's empty name (omitempty).
      spec: { ...(info.group ? { group: info.group } : {}), version: info.version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
      automanaged: info.custom ? 'true' : 'onstart',
    });
  }
  return out;
}

export class APIServiceRegistrationController {
  private readonly watches: StoreWatch[] = [];
  private unsubscribe?: () => void;
  private readonly loop = new CoalescedSync('apiservice registration controller', () => this.sync());
  /** Until the first pass is over: onstart APIServices no longer served are deleted then only, as kube does. */
  private firstPass = true;
  /** Whether the last pass saw an APIService with a service (whose availability follows Services and Endpoints). */
  private serviceBacked = false;

  constructor(private readonly catalog: ResourceCatalog) {}

  private store(group: string, resource: string): ResourceStore {
    const rs = this.catalog.lookup(group, 'v1', resource);
    if (!rs) throw new Error(`${resource} are not served`);
    return rs;
  }

  start(): void {
    const apiServices = this.store('apiregistration.k8s.io', 'apiservices');
    const mvcc = apiServices.mvcc;
    this.watches.push(mvcc.watch(resourcePrefix(apiServices.location), mvcc.revision, () => this.loop.schedule()));
    // Services and Endpoints change often in a simulated cluster: they matter only to APIServices with a service.
    for (const rs of [this.store('', 'services'), this.store('', 'endpoints')]) {
      this.watches.push(mvcc.watch(resourcePrefix(rs.location), mvcc.revision, () => this.serviceBacked && this.loop.schedule()));
    }
    this.unsubscribe = this.catalog.onChange(() => this.loop.schedule());
    this.loop.schedule();
  }

  stop(): Promise<void> {
    for (const w of this.watches) w.stop();
    this.unsubscribe?.();
    return this.loop.stop();
  }

  /** One pass over every APIService; true when a write failed (tried again later). */
  private async sync(): Promise<boolean> {
    const rs = this.store('apiregistration.k8s.io', 'apiservices');
    const desired = desiredAPIServices(this.catalog.infos());
    const existing = new Map(rs.mvcc.list(resourcePrefix(rs.location)).items.map((v) => [v.value.metadata.name ?? '', v.value]));
    const atStart = this.firstPass;
    this.firstPass = false;
    let failed = false;
    const attempt = async (what: string, write: () => Promise<unknown>): Promise<void> => {
      // Stopping: the writes left of the pass are not made (storage is about to close).
      if (this.loop.isStopped) return;
      try {
        await write();
      } catch (e) {
        // Gone or changed meanwhile: the next pass sees the new state.
        if (e instanceof StatusError && (e.code === 404 || e.code === 409)) return;
        console.error(`apiservice registration controller: ${what}: ${String(e)}`);
        failed = true;
      }
    };

    for (const [name, want] of desired) {
      const current = existing.get(name);
      if (!current) {
        const obj = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, labels: { [automanagedLabel]: want.automanaged } }, spec: want.spec };
        await attempt(`creating ${name}`, () => rs.create('', obj as unknown as KubeObject, writeOptions));
        continue;
      }
      const label = current.metadata.labels?.[automanagedLabel];
      if (label === undefined) continue;
      if (label === want.automanaged && JSON.stringify(current.spec) === JSON.stringify(want.spec)) continue;
      const updated = { ...structuredClone(current), spec: want.spec };
      updated.metadata.labels = { ...updated.metadata.labels, [automanagedLabel]: want.automanaged };
      await attempt(`updating ${name}`, () => rs.update('', name, updated, writeOptions));
    }
    for (const [name, current] of existing) {
      const label = current.metadata.labels?.[automanagedLabel];
      if (desired.has(name) || (label !== 'true' && !(label === 'onstart' && atStart))) continue;
      await attempt(`deleting ${name}`, () => rs.delete('', name, { dryRun: false, preconditions: { uid: current.metadata.uid } }));
    }

    const all = rs.mvcc.list(resourcePrefix(rs.location)).items.map((v) => v.value);
    this.serviceBacked = all.some((o) => asObj(o.spec).service);
    for (const current of all) {
      const available = this.availability(current);
      const conditions = (asObj(current.status).conditions as Json[] | undefined) ?? [];
      const before = conditions.find((c) => c.type === 'Available');
      if (before && before.status === available.status && before.reason === available.reason && before.message === available.message) continue;
      const condition = { ...available, lastTransitionTime: before && before.status === available.status ? before.lastTransitionTime : nowTimestamp() };
      const status = { ...asObj(current.status), conditions: [...conditions.filter((c) => c.type !== 'Available'), condition] };
      const name = current.metadata.name ?? '';
      await attempt(`updating the status of ${name}`, () => rs.update('', name, { ...structuredClone(current), status } as KubeObject, writeOptions, 'status'));
    }
    return failed;
  }

  /** The Available condition (without its transition time) kube's availability controllers would give. */
  private availability(apiService: KubeObject): Json {
    const spec = asObj(apiService.spec);
    if (spec.service === undefined || spec.service === null) {
      const { lastTransitionTime: _, ...local } = localAvailableCondition();
      return local;
    }
    const ref = asObj(spec.service);
    const [name, namespace, port] = [String(ref.name ?? ''), String(ref.namespace ?? ''), Number(ref.port ?? 443)];
    const unavailable = (reason: string, message: string): Json => ({ type: 'Available', status: 'False', reason, message });
    const services = this.store('', 'services');
    const service = services.mvcc.get(services.key(namespace, name))?.value;
    if (!service) return unavailable('ServiceNotFound', `service/${name} in ${JSON.stringify(namespace)} is not present`);
    const serviceSpec = asObj(service.spec);
    if ((serviceSpec.type ?? 'ClusterIP') === 'ClusterIP') {
      const ports = (serviceSpec.ports as Json[] | undefined) ?? [];
      const servicePort = ports.find((p) => p.port === port);
      if (!servicePort) return unavailable('ServicePortError', `service/${name} in ${JSON.stringify(namespace)} is not listening on port ${port}`);
      const portName = String(servicePort.name ?? '');
      const endpointsStore = this.store('', 'endpoints');
      const endpoints = endpointsStore.mvcc.get(endpointsStore.key(namespace, name))?.value;
      if (!endpoints) return unavailable('EndpointsNotFound', `cannot find endpoints for service/${name} in ${JSON.stringify(namespace)}`);
      const subsets = (endpoints.subsets as Json[] | undefined) ?? [];
      const active = subsets.some((s) => ((s.addresses as unknown[] | undefined) ?? []).length > 0 && ((s.ports as Json[] | undefined) ?? []).some((p) => (p.name ?? '') === portName));
      if (!active) return unavailable('MissingEndpoints', `endpoints for service/${name} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}`);
    }
    const path = apiService.metadata.name === 'v1.' ? `/api/${String(spec.version)}` : `/apis/${String(spec.group)}/${String(spec.version)}`;
    return unavailable('FailedDiscoveryCheck', `failing or missing response from https://${name}.${namespace}.svc:${port}${path}: this server does not proxy to aggregated API servers`);
  }
}
