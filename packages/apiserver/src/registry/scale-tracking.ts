/**
 * Field ownership through the scale subresource, as kube's scale REST storage
 * keeps it: the write is tracked on an autoscaling/v1 Scale by a FieldManager
 * of the `scale` endpoint, whose managedFields are the object's owners of its
 * replicas (kube's ScaleHandler maps them there and back). So `kubectl scale`
 * takes the replicas from whoever owned them, and an apply to the Scale
 * conflicts with an apply that owns the object's replicas, unless forced.
 */
import { deepCopy, type KubeObject } from '@operant/apimachinery';
import { FieldManager, ScaleHandler, replicasPathOf, type FieldPath } from '@operant/apimachinery/managedfields';
import { checkedReplicas, scaleOf, setReplicas } from '../http/scale.js';
import { emptyScale, scaleMergeType } from './merge-types.js';
import type { ResourceInfo } from './resource-info.js';

/** What a write to `<resource>/scale` asks for. */
export type ScaleWrite =
  /** A server-side apply of an autoscaling/v1 Scale configuration. */
  | { apply: Record<string, unknown> }
  /** A PUT or patch: the Scale it makes of the current one. */
  | { update: (oldScale: KubeObject) => KubeObject };

/** The replicas paths of the built-in kinds with a scale subresource (deployments, replica sets, stateful sets). */
const builtinReplicasPaths: ReadonlyMap<string, FieldPath | null> = new Map([['apps/v1', replicasPathOf('.spec.replicas')]]);

/** The scale subresource's field tracking for one resource. */
export class ScaleTracking {
  private readonly fieldManager = new FieldManager({
    type: scaleMergeType(),
    group: 'autoscaling',
    version: 'v1',
    kind: 'Scale',
    subresource: 'scale',
    emptyObject: emptyScale,
  });
  private readonly mappings: ReadonlyMap<string, FieldPath | null>;

  constructor(
    private readonly info: ResourceInfo,
    private readonly apiVersion: string,
  ) {
    const paths = info.custom?.replicasPaths;
    this.mappings = paths ? new Map(Object.entries(paths).map(([v, p]) => [v, p === null ? null : replicasPathOf(p)])) : builtinReplicasPaths;
  }

  /** The Scale view of `obj` (as served), as a GET of the subresource answers it: no managedFields. */
  scaleOf(obj: KubeObject): KubeObject {
    return scaleOf(obj, this.info.custom?.scale) as KubeObject;
  }

  /**
   * The Scale `write` by `who.manager` makes of `obj`'s, with the write tracked
   * on it (409 for an apply's conflicts, unless `who.force`), and the object with the
   * replicas it asks for and the owners mapped back; `admit` may change the
   * Scale's replicas.
   */
  async write(
    obj: KubeObject,
    write: ScaleWrite,
    who: { manager: string; force: boolean },
    admit: (oldScale: KubeObject, newScale: KubeObject) => Promise<KubeObject>,
  ): Promise<{ object: KubeObject; requested: KubeObject }> {
    const handler = new ScaleHandler(obj.metadata.managedFields, this.apiVersion, this.mappings);
    const oldScale = this.scaleOf(obj);
    setManagedFields(oldScale, handler.toSubresource());
    let requested: KubeObject;
    if ('apply' in write) {
      requested = this.fieldManager.apply(oldScale, write.apply, who.manager, who.force).object;
    } else {
      requested = write.update(deepCopy(oldScale));
      setManagedFields(requested, this.fieldManager.update(oldScale, requested, who.manager));
    }
    checkedReplicas(requested);
    const admitted = await admit(oldScale, requested);
    const replicas = checkedReplicas(admitted);
    const object = deepCopy(obj);
    setReplicas(object, replicas, this.info.custom?.scale);
    setManagedFields(object, handler.toParent(requested.metadata.managedFields));
    const rv = requested.metadata.resourceVersion;
    if (rv !== undefined) object.metadata.resourceVersion = rv;
    return { object, requested };
  }
}

function setManagedFields(obj: KubeObject, entries: unknown[] | undefined): void {
  if (entries) obj.metadata.managedFields = entries as KubeObject['metadata']['managedFields'];
  else delete obj.metadata.managedFields;
}
