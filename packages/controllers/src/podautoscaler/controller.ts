/**
 * The horizontal pod autoscaler (kube's pkg/controller/podautoscaler,
 * `horizontalpodautoscaling` in kube-controller-manager), on simulated
 * metrics (metrics.ts) instead of metrics-server. Every 15 s of cluster time
 * (`--horizontal-pod-autoscaler-sync-period`) and on every change of an HPA:
 *
 * 1. read the target's Scale (AbleToScale False `FailedGetScale` if it cannot);
 * 2. outside min/max, go to the nearest bound; at 0 replicas with a
 *    non-zero minimum, do nothing (ScalingActive False `ScalingDisabled`);
 * 3. otherwise each metric proposes `ceil(usage / target * pods)` (within
 *    a 0.1 tolerance, the current count); the largest proposal wins
 *    (ScalingActive True `ValidMetricFound`, or False with the first metric's
 *    failure when none could be computed);
 * 4. stabilize and limit it (normalize.ts: AbleToScale's `ScaleDownStabilized`
 *    or `ReadyForNewScale`, ScalingLimited's `TooManyReplicas`...);
 * 5. write the new replicas through the target's `scale` subresource
 *    (`SuccessfulRescale`, `New size: 4; reason: cpu resource utilization
 *    (percentage of request) above target`), then the status: current and
 *    desired replicas, currentMetrics, lastScaleTime, the conditions.
 */
import { deepCopy, parseLabelSelector, type LabelSelector } from '@operant/apimachinery';
import { ignoreNotFound, objectReference, Pod, type Kind, type Manager, type ReconcileResult, type Request, type Scale } from '@operant/runtime';
import type * as autoscalingv2 from 'kubernetes-types/autoscaling/v2.js';
import { rfc3339 } from '../clock.js';
import type { ControllerContext as Context, WorkloadControllerOptions } from '../context.js';
import { canonicalJson } from '../json.js';
import { HorizontalPodAutoscaler, type HorizontalPodAutoscalerObject } from '../kinds.js';
import type { PodObject } from '../objects.js';
import { kindOf } from '../custom-kinds.js';
import { computeReplicasForMetric, MetricFailure, type MetricProposal } from './metric-replicas.js';
import { ReplicaNormalizer } from './normalize.js';

/** kube's default `--horizontal-pod-autoscaler-sync-period`. */
export const hpaSyncPeriodMs = 15_000;

type Hpa = HorizontalPodAutoscalerObject;
type HpaStatus = autoscalingv2.HorizontalPodAutoscalerStatus;
type HpaCondition = autoscalingv2.HorizontalPodAutoscalerCondition;
type MetricStatus = autoscalingv2.MetricStatus;
type HpaContext = Context & { selectors: HpaSelectors };

/**
 * Adds kube's horizontal pod autoscaler to a manager.
 *
 * @example
 * ```ts
 * import { acceleratedClock, addHorizontalPodAutoscalerController } from '@operant/controllers';
 * import { handleSignals, Manager } from '@operant/runtime';
 *
 * const mgr = await Manager.create({ client: { readYourWrites: true } });
 * addHorizontalPodAutoscalerController(mgr, { clock: acceleratedClock(60) }); // syncs every 250 ms of wall time
 * await mgr.start(handleSignals());
 * ```
 */
export function addHorizontalPodAutoscalerController(mgr: Manager, options: WorkloadControllerOptions = {}): void {
  const clock = options.clock;
  const now = (): number => (clock ?? Date).now();
  const selectors = new HpaSelectors();
  const ctx: HpaContext = { client: mgr.client, recorder: mgr.eventRecorderFor('horizontal-pod-autoscaler'), now, selectors };
  const normalizer = new ReplicaNormalizer(now);
  mgr
    .controller('horizontalpodautoscaling', clock ? { clock } : {})
    .for(HorizontalPodAutoscaler)
    .maxConcurrentReconciles(options.workers ?? 5)
    .reconcile(async (req) => {
      const found = (await ctx.client.get(HorizontalPodAutoscaler, req.name, { namespace: req.namespace }).catch(ignoreNotFound)) as Hpa | undefined;
      const key = `${req.namespace}/${req.name}`;
      if (!found || found.metadata.deletionTimestamp) {
        normalizer.forget(key);
        selectors.forget(req.namespace!, req.name);
        return;
      }
      selectors.register(req.namespace!, req.name);
      await reconcileAutoscaler(ctx, normalizer, key, deepCopy(found) as Hpa, req);
      return { requeueAfter: hpaSyncPeriodMs } satisfies ReconcileResult;
    });
}

/**
 * The pod selector each HPA last resolved its target to, by namespace and
 * name (kube's hpaSelectors): an HPA counts once it has been seen, selecting
 * nothing until its first sync resolves the target, so that two HPAs whose
 * targets share pods are both told (AmbiguousSelector) instead of both scaling.
 */
class HpaSelectors {
  private readonly byNamespace = new Map<string, Map<string, LabelSelector | undefined>>();

  register(namespace: string, name: string): void {
    let hpas = this.byNamespace.get(namespace);
    if (!hpas) this.byNamespace.set(namespace, (hpas = new Map()));
    if (!hpas.has(name)) hpas.set(name, undefined);
  }

  put(namespace: string, name: string, selector: LabelSelector): void {
    const hpas = this.byNamespace.get(namespace);
    if (hpas?.has(name)) hpas.set(name, selector);
  }

  forget(namespace: string, name: string): void {
    const hpas = this.byNamespace.get(namespace);
    hpas?.delete(name);
    if (hpas?.size === 0) this.byNamespace.delete(namespace);
  }

  /** `namespace/name` of every HPA whose selector matches one of `pods`, sorted (kube's order is a map's). */
  controlling(namespace: string, pods: readonly PodObject[]): string[] {
    const out: string[] = [];
    for (const [name, selector] of this.byNamespace.get(namespace) ?? []) {
      if (selector && pods.some((p) => selector.matches(p.metadata.labels))) out.push(`${namespace}/${name}`);
    }
    return out.sort();
  }
}

/** kube's setConditionInList: a changed status moves lastTransitionTime. */
function setCondition(status: HpaStatus, type: string, value: 'True' | 'False', reason: string, message: string, now: number): void {
  const conditions = [...(status.conditions ?? [])] as HpaCondition[];
  let existing = conditions.find((c) => c.type === type);
  if (!existing) {
    existing = { type, status: value } as HpaCondition;
    conditions.push(existing);
    (existing as { lastTransitionTime?: string }).lastTransitionTime = rfc3339(now);
  } else if (existing.status !== value) {
    (existing as { lastTransitionTime?: string }).lastTransitionTime = rfc3339(now);
  }
  Object.assign(existing, { status: value, reason, message });
  (status as { conditions?: HpaCondition[] }).conditions = conditions;
}

async function reconcileAutoscaler(ctx: HpaContext, normalizer: ReplicaNormalizer, key: string, hpa: Hpa, req: Request): Promise<void> {
  const original = canonicalJson(hpa.status ?? {});
  const status = deepCopy(hpa.status ?? {}) as HpaStatus;
  const spec = hpa.spec!;
  const now = ctx.now();
  const regarding = objectReference(hpa, HorizontalPodAutoscaler);
  const ref = spec.scaleTargetRef;
  const writeStatus = async (fields: Partial<HpaStatus>): Promise<void> => {
    const next = { ...status, ...fields } as HpaStatus;
    for (const k of Object.keys(next) as Array<keyof HpaStatus>) if (next[k] === undefined) delete next[k];
    if (canonicalJson(next) === original) return;
    await ctx.client.updateStatus(HorizontalPodAutoscaler, { ...hpa, status: next } as Hpa);
  };

  let scale: Scale;
  let targetKind: Kind;
  try {
    targetKind = await kindOf(ctx.client, ref.apiVersion, ref.kind);
    scale = await ctx.client.getScale(targetKind, ref.name, { namespace: req.namespace });
  } catch (err) {
    const message = (err as Error).message;
    ctx.recorder.event(regarding, 'Warning', 'FailedGetScale', message);
    setCondition(status, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`, now);
    await writeStatus({});
    return;
  }
  setCondition(status, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale", now);
  const currentReplicas = scale.spec.replicas ?? 0;
  normalizer.recordInitial(key, currentReplicas);

  const minReplicas = spec.minReplicas ?? 1;
  let desiredReplicas = 0;
  let rescaleReason = '';
  let rescale = true;
  // As kube's: outside min/max, or disabled, no metric is read and currentMetrics is cleared.
  let metricStatuses: MetricStatus[] | undefined;
  if (currentReplicas === 0 && minReplicas !== 0) {
    rescale = false;
    setCondition(status, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero', now);
  } else if (currentReplicas > spec.maxReplicas) {
    rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
    desiredReplicas = spec.maxReplicas;
  } else if (currentReplicas < minReplicas) {
    rescaleReason = 'Current number of replicas below Spec.MinReplicas';
    desiredReplicas = minReplicas;
  } else {
    const computed = await computeReplicasForMetrics(ctx, hpa, status, scale, req.namespace, now);
    metricStatuses = computed.statuses;
    if (computed.replicas === -1) {
      await writeStatus({ currentReplicas, currentMetrics: metricStatuses });
      ctx.recorder.event(regarding, 'Warning', 'FailedComputeMetricsReplicas', computed.error!);
      return;
    }
    desiredReplicas = computed.replicas;
    if (desiredReplicas > currentReplicas) rescaleReason = `${computed.metric} above target`;
    if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
    const normalized = normalizer.normalize(key, spec.behavior, currentReplicas, desiredReplicas, minReplicas, spec.maxReplicas);
    setCondition(status, 'AbleToScale', 'True', normalized.ableToScale.reason, normalized.ableToScale.message, now);
    setCondition(status, 'ScalingLimited', normalized.scalingLimited.limited ? 'True' : 'False', normalized.scalingLimited.reason, normalized.scalingLimited.message, now);
    desiredReplicas = normalized.replicas;
    rescale = desiredReplicas !== currentReplicas;
  }

  let lastScaleTime = status.lastScaleTime;
  if (rescale) {
    try {
      await ctx.client.updateScale(targetKind, { ...scale, spec: { ...scale.spec, replicas: desiredReplicas } }, { namespace: req.namespace });
    } catch (err) {
      const message = (err as Error).message;
      ctx.recorder.event(regarding, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message}`);
      setCondition(status, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`, now);
      await writeStatus({ currentReplicas, currentMetrics: metricStatuses });
      return;
    }
    setCondition(status, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desiredReplicas}`, now);
    ctx.recorder.event(regarding, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
    normalizer.recordScale(key, spec.behavior, currentReplicas, desiredReplicas);
    lastScaleTime = rfc3339(now);
  } else {
    desiredReplicas = currentReplicas;
  }
  await writeStatus({ currentReplicas, desiredReplicas, currentMetrics: metricStatuses, lastScaleTime });
}

/**
 * kube's computeReplicasForMetrics: the largest proposal of the metrics that
 * could be computed; -1 when none could, or when some failed and the rest
 * would scale down (a failed metric might have wanted more).
 */
async function computeReplicasForMetrics(
  ctx: HpaContext,
  hpa: Hpa,
  status: HpaStatus,
  scale: Scale,
  namespace: string,
  now: number,
): Promise<{ replicas: number; metric: string; statuses?: MetricStatus[]; error?: string }> {
  const specs = hpa.spec?.metrics ?? [];
  if (!scale.status?.selector) {
    const message = 'selector is required';
    ctx.recorder.event(objectReference(hpa, HorizontalPodAutoscaler), 'Warning', 'SelectorRequired', message);
    setCondition(status, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector", now);
    return { replicas: -1, metric: '', error: message };
  }
  const regarding = objectReference(hpa, HorizontalPodAutoscaler);
  let selector: LabelSelector;
  try {
    selector = parseLabelSelector(scale.status.selector);
  } catch (err) {
    const message = `couldn't convert selector into a corresponding internal selector object: ${(err as Error).message}`;
    ctx.recorder.event(regarding, 'Warning', 'InvalidSelector', message);
    setCondition(status, 'ScalingActive', 'False', 'InvalidSelector', message, now);
    return { replicas: -1, metric: '', error: message };
  }
  ctx.selectors.put(namespace, hpa.metadata.name!, selector);
  const pods = ((await ctx.client.list(Pod, { namespace })).items as PodObject[]).filter((p) => selector.matches(p.metadata.labels));
  const selecting = ctx.selectors.controlling(namespace, pods);
  if (selecting.length > 1) {
    const message = `pods by selector ${scale.status.selector} are controlled by multiple HPAs: [${selecting.join(' ')}]`;
    ctx.recorder.event(regarding, 'Warning', 'AmbiguousSelector', message);
    setCondition(status, 'ScalingActive', 'False', 'AmbiguousSelector', message, now);
    return { replicas: -1, metric: '', error: message };
  }
  const statuses: MetricStatus[] = specs.map(() => ({ type: '' }) as MetricStatus);
  let replicas = 0;
  let metric = '';
  let invalid = 0;
  let firstFailure: MetricFailure | undefined;
  for (const [i, spec] of specs.entries()) {
    let proposal: MetricProposal;
    try {
      proposal = await computeReplicasForMetric(spec, { client: ctx.client, hpa, namespace, pods, specReplicas: scale.spec.replicas ?? 0, now });
    } catch (err) {
      if (!(err instanceof MetricFailure)) throw err;
      ctx.recorder.event(objectReference(hpa, HorizontalPodAutoscaler), 'Warning', err.reason, err.detail);
      firstFailure ??= err;
      invalid++;
      continue;
    }
    statuses[i] = proposal.status;
    if (replicas === 0 || proposal.replicas > replicas) {
      replicas = proposal.replicas;
      metric = proposal.name;
    }
  }
  if (firstFailure && (invalid >= specs.length || replicas < (scale.spec.replicas ?? 0))) {
    setCondition(status, 'ScalingActive', 'False', firstFailure.reason, firstFailure.conditionMessage, now);
    return { replicas: -1, metric: '', statuses, error: `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${firstFailure.message}` };
  }
  setCondition(status, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metric}`, now);
  return { replicas, metric, statuses };
}

