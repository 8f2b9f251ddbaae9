/**
 * The one status kube's priority-and-fairness config controller writes
 * (k8s.io/apiserver pkg/util/flowcontrol/apf_controller.go): each
 * FlowSchema's `Dangling` condition says whether the
 * PriorityLevelConfiguration it names exists (False, Found) or not (True,
 * NotFound), which `kubectl get flowschemas` prints as MISSINGPL. The server
 * does not apply priority and fairness; it keeps this condition true to the
 * stored objects.
 */
import { StatusError, type KubeObject } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { resourcePrefix } from '../registry/keys.js';
import { nowTimestamp } from '../registry/object-meta.js';
import type { StoreWatch } from '../storage/mvcc-store.js';
import { CoalescedSync } from './coalesced-sync.js';

type Condition = { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string };

/** The Dangling condition kube's controller wants for a FlowSchema naming `level` (without its time). */
export function danglingCondition(level: string, exists: boolean): Condition {
  return exists
    ? { type: 'Dangling', status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} and it exists` }
    : { type: 'Dangling', status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(level)} but there is no such object` };
}

export class FlowSchemaStatusController {
  private readonly watches: StoreWatch[] = [];
  private readonly loop = new CoalescedSync('flowschema status controller', () => this.sync());

  constructor(private readonly catalog: ResourceCatalog) {}

  private store(resource: string): ResourceStore {
    const rs = this.catalog.lookup('flowcontrol.apiserver.k8s.io', 'v1', resource);
    if (!rs) throw new Error(`${resource} are not served`);
    return rs;
  }

  start(): void {
    for (const rs of [this.store('flowschemas'), this.store('prioritylevelconfigurations')]) {
      this.watches.push(rs.mvcc.watch(resourcePrefix(rs.location), rs.mvcc.revision, () => this.loop.schedule()));
    }
    this.loop.schedule();
  }

  stop(): Promise<void> {
    for (const w of this.watches) w.stop();
    return this.loop.stop();
  }

  private async sync(): Promise<boolean> {
    const schemas = this.store('flowschemas');
    const levels = this.store('prioritylevelconfigurations');
    const levelNames = new Set(levels.mvcc.list(resourcePrefix(levels.location)).items.map((v) => v.value.metadata.name));
    let failed = false;
    for (const { value: fs } of schemas.mvcc.list(resourcePrefix(schemas.location)).items) {
      const level = String((fs.spec as { priorityLevelConfiguration?: { name?: string } } | undefined)?.priorityLevelConfiguration?.name ?? '');
      const want = danglingCondition(level, levelNames.has(level));
      const status = (fs.status ?? {}) as { conditions?: Condition[] };
      const have = status.conditions?.find((c) => c.type === 'Dangling');
      if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) continue;
      // Stopping: the writes left of the pass are not made (storage is about to close).
      if (this.loop.isStopped) break;
      // kube stamps the time of every change of the condition, not only of its status.
      const conditions = [...(status.conditions ?? []).filter((c) => c.type !== 'Dangling'), { ...want, lastTransitionTime: nowTimestamp() }];
      const name = fs.metadata.name ?? '';
      try {
        const updated = { ...structuredClone(fs), status: { ...status, conditions } } as KubeObject;
        await schemas.update('', name, updated, { dryRun: false, fieldValidation: 'Ignore', fieldManager: 'api-priority-and-fairness-config-consumer-v1' }, 'status');
      } catch (e) {
        if (e instanceof StatusError && (e.code === 404 || e.code === 409)) continue;
        console.error(`flowschema status controller: ${name}: ${String(e)}`);
        failed = true;
      }
    }
    return failed;
  }
}
