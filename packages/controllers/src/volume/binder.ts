/**
 * The persistent volume binder (kube's pkg/controller/volume/persistentvolume),
 * with a simulated provisioner standing in for the external CSI provisioners:
 *
 * - a Pending claim binds to an Available volume of its class that offers
 *   its access modes and at least its storage (the smallest such volume);
 * - failing that, a claim whose StorageClass names a provisioner gets a new
 *   volume `pvc-<claim uid>` of the requested size (Immediate binding at
 *   once; WaitForFirstConsumer once a scheduled pod uses the claim), with the
 *   class's reclaim policy, then binds to it;
 * - binding writes the volume's claimRef and Bound phase, then the claim's
 *   volumeName, kube's bind annotations and Bound status (capacity, access modes);
 * - a deleted claim's volume is deleted (Delete policy) or Released (Retain);
 * - a new volume no claim has taken becomes Available.
 */
import { deepCopy } from '@operant/apimachinery';
import {
  ignoreNotFound,
  isAlreadyExists,
  objectReference,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
  type Manager,
  type Request,
  type Typed,
} from '@operant/runtime';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as storagev1 from 'kubernetes-types/storage/v1.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import type { PodObject, Writable } from '../objects.js';
import { milliValue } from '../quantity.js';

type ClaimObject = Typed<corev1.PersistentVolumeClaim>;
type VolumeObject = Typed<corev1.PersistentVolume>;

/** The annotations kube's binder and provisioners write. */
export const bindCompletedAnnotation = 'pv.kubernetes.io/bind-completed';
export const boundByControllerAnnotation = 'pv.kubernetes.io/bound-by-controller';
export const provisionedByAnnotation = 'pv.kubernetes.io/provisioned-by';
export const storageProvisionerAnnotation = 'volume.kubernetes.io/storage-provisioner';

/**
 * Adds the persistent volume binder and simulated provisioner to a manager.
 *
 * @example
 * ```ts
 * import { addPersistentVolumeBinder } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addPersistentVolumeBinder(mgr);
 * await mgr.start(handleSignals());
 * ```
 */
export function addPersistentVolumeBinder(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const ctx: Context = { client: mgr.client, recorder: mgr.eventRecorderFor('persistentvolume-controller'), now: () => (clock ?? Date).now() };
  const claimOf = (pv: VolumeObject): Request[] => {
    const ref = pv.spec?.claimRef;
    return ref?.name ? [{ namespace: ref.namespace ?? '', name: ref.name }] : [];
  };
  mgr
    .controller('persistentvolume-binder', clock ? { clock } : {})
    .for(PersistentVolumeClaim)
    .watches(PersistentVolume, (pv) => claimOf(pv as VolumeObject))
    // A scheduled pod is the first consumer a WaitForFirstConsumer claim waits for.
    .watches(Pod, (pod) =>
      ((pod as PodObject).spec?.nodeName ? ((pod as PodObject).spec?.volumes ?? []) : []).flatMap((v) =>
        v.persistentVolumeClaim ? [{ namespace: pod.metadata.namespace ?? '', name: v.persistentVolumeClaim.claimName }] : [],
      ),
    )
    .maxConcurrentReconciles(options.workers ?? 2)
    .reconcile((req) => syncClaim(ctx, req));
  // kube's syncVolume for a volume no claim has taken: it is Available.
  mgr
    .controller('persistentvolume-phase', clock ? { clock } : {})
    .for(PersistentVolume)
    .reconcile(async (req) => {
      const pv = (await ctx.client.get(PersistentVolume, req.name).catch(ignoreNotFound)) as VolumeObject | undefined;
      if (!pv || pv.metadata.deletionTimestamp || pv.spec?.claimRef || pv.status?.phase !== 'Pending') return;
      await ctx.client.updateStatus(PersistentVolume, { ...pv, status: { phase: 'Available' } } as VolumeObject);
    });
}

const storageOf = (q: string | number | undefined): number => milliValue(q) ?? 0;

async function syncClaim(ctx: Context, req: Request): Promise<void> {
  const found = (await ctx.client.get(PersistentVolumeClaim, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as ClaimObject | undefined;
  const volumes = (await ctx.client.list(PersistentVolume)).items as VolumeObject[];
  if (!found) {
    await releaseVolumes(ctx, volumes, req);
    return;
  }
  const claim = deepCopy(found) as ClaimObject;
  if (claim.metadata.deletionTimestamp || claim.status?.phase === 'Bound') return;
  const bound = claim.spec?.volumeName ? volumes.find((v) => v.metadata.name === claim.spec?.volumeName) : undefined;
  const volume = bound ?? matchingVolume(claim, volumes) ?? (await provision(ctx, claim));
  if (volume) await bind(ctx, claim, volume);
}

/** kube's findBestMatchForClaim: an Available volume of the claim's class with its modes and the least storage that is enough. */
function matchingVolume(claim: ClaimObject, volumes: VolumeObject[]): VolumeObject | undefined {
  const wanted = storageOf(claim.spec?.resources?.requests?.storage);
  const className = claim.spec?.storageClassName ?? '';
  const candidates = volumes.filter((v) => {
    if (v.metadata.deletionTimestamp || (v.status?.phase !== 'Available' && v.status?.phase !== 'Pending')) return false;
    const ref = v.spec?.claimRef;
    if (ref && !(ref.namespace === claim.metadata.namespace && ref.name === claim.metadata.name)) return false;
    if ((v.spec?.storageClassName ?? '') !== className) return false;
    if ((v.spec?.volumeMode ?? 'Filesystem') !== (claim.spec?.volumeMode ?? 'Filesystem')) return false;
    if (!(claim.spec?.accessModes ?? []).every((m) => (v.spec?.accessModes ?? []).includes(m))) return false;
    return storageOf(v.spec?.capacity?.storage) >= wanted;
  });
  candidates.sort((a, b) => storageOf(a.spec?.capacity?.storage) - storageOf(b.spec?.capacity?.storage));
  return candidates[0];
}

/** The simulated external provisioner: a volume for a claim whose class has a provisioner. */
async function provision(ctx: Context, claim: ClaimObject): Promise<VolumeObject | undefined> {
  const className = claim.spec?.storageClassName;
  if (!className) return undefined;
  const sc = (await ctx.client.get(StorageClass, className).catch(ignoreNotFound)) as Typed<storagev1.StorageClass> | undefined;
  const regarding = objectReference(claim, PersistentVolumeClaim);
  if (!sc) {
    ctx.recorder.event(regarding, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
    return undefined;
  }
  if (sc.volumeBindingMode === 'WaitForFirstConsumer') {
    const pods = ((await ctx.client.list(Pod, { namespace: claim.metadata.namespace })).items as PodObject[]).filter(
      (p) => p.spec?.nodeName && (p.spec.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claim.metadata.name),
    );
    if (pods.length === 0) {
      ctx.recorder.event(regarding, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      return undefined;
    }
  }
  const name = `pvc-${claim.metadata.uid}`;
  const volume: VolumeObject = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { [provisionedByAnnotation]: sc.provisioner } },
    spec: {
      capacity: { storage: claim.spec?.resources?.requests?.storage ?? '0' },
      accessModes: claim.spec?.accessModes,
      persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
      storageClassName: className,
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      csi: { driver: sc.provisioner, volumeHandle: name },
      claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid },
    },
  };
  try {
    const created = (await ctx.client.create(PersistentVolume, volume)) as VolumeObject;
    ctx.recorder.event(regarding, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`);
    return created;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    return (await ctx.client.get(PersistentVolume, name)) as VolumeObject;
  }
}

/** kube's bind: the volume first (claimRef, Bound), then the claim (volumeName, annotations, Bound status). */
async function bind(ctx: Context, claim: ClaimObject, volume: VolumeObject): Promise<void> {
  const pv = deepCopy(volume) as Writable<VolumeObject>;
  const spec = (pv.spec ?? {}) as Writable<corev1.PersistentVolumeSpec>;
  const ref = spec.claimRef;
  if (!ref || ref.uid !== claim.metadata.uid) {
    spec.claimRef = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid };
    pv.metadata.annotations = { ...(pv.metadata.annotations ?? {}), [boundByControllerAnnotation]: 'yes' };
    pv.spec = spec;
    Object.assign(pv, await ctx.client.update(PersistentVolume, pv as VolumeObject));
  }
  if (pv.status?.phase !== 'Bound') {
    pv.status = { phase: 'Bound' };
    await ctx.client.updateStatus(PersistentVolume, pv as VolumeObject);
  }
  const pvc = deepCopy(claim) as Writable<ClaimObject>;
  if (pvc.spec?.volumeName !== pv.metadata.name) {
    pvc.spec = { ...pvc.spec, volumeName: pv.metadata.name };
    const provisioner = pv.metadata.annotations?.[provisionedByAnnotation];
    pvc.metadata.annotations = {
      ...(pvc.metadata.annotations ?? {}),
      [bindCompletedAnnotation]: 'yes',
      [boundByControllerAnnotation]: 'yes',
      ...(provisioner ? { [storageProvisionerAnnotation]: provisioner, 'volume.beta.kubernetes.io/storage-provisioner': provisioner } : {}),
    };
    Object.assign(pvc, await ctx.client.update(PersistentVolumeClaim, pvc as ClaimObject));
  }
  pvc.status = { phase: 'Bound', accessModes: pv.spec?.accessModes, capacity: pv.spec?.capacity };
  await ctx.client.updateStatus(PersistentVolumeClaim, pvc as ClaimObject);
}

/** A claim is gone: its volumes are deleted (Delete) or Released (Retain), as kube reclaims them. */
async function releaseVolumes(ctx: Context, volumes: VolumeObject[], req: Request): Promise<void> {
  for (const pv of volumes) {
    const ref = pv.spec?.claimRef;
    if (ref?.namespace !== req.namespace || ref?.name !== req.name || pv.status?.phase !== 'Bound') continue;
    if (pv.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      await ctx.client.delete(PersistentVolume, pv.metadata.name!).catch(ignoreNotFound);
    } else {
      await ctx.client.updateStatus(PersistentVolume, { ...pv, status: { phase: 'Released' } } as VolumeObject);
    }
  }
}
