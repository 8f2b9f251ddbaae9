/**
 * Predicates decide which events reach a controller's queue (controller-runtime's
 * `pkg/predicate`). A predicate has one optional function per event type; a
 * missing one lets that event through. A watch enqueues an event only when
 * every predicate on it (its own and the controller's event filters) passes.
 */
import { labelSelectorFromObject, parseLabelSelector, type KubeObject, type LabelSelector as ParsedLabelSelector, type LabelSelectorObject } from '@operant/apimachinery';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from './events.js';

/**
 * Filters events by type. Each function returns true to let the event through;
 * an absent function lets every event of its type through.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import type { Predicate, Typed } from '@operant/runtime';
 *
 * const ignoreDeletes: Predicate = { delete: () => false };
 * const onlyAnnotated: Predicate<Typed<corev1.ConfigMap>> = {
 *   create: (e) => e.object.metadata.annotations?.['sync'] === 'true',
 *   update: (e) => e.object.metadata.annotations?.['sync'] === 'true',
 * };
 * ```
 */
export interface Predicate<T extends KubeObject = KubeObject> {
  create?: (event: CreateEvent<T>) => boolean;
  update?: (event: UpdateEvent<T>) => boolean;
  delete?: (event: DeleteEvent<T>) => boolean;
  generic?: (event: GenericEvent<T>) => boolean;
}

/**
 * A predicate that applies `filter` to the object of every event (the new
 * object of an update), as controller-runtime's `NewPredicateFuncs`.
 *
 * @example
 * ```ts
 * import { objectPredicate } from '@operant/runtime';
 *
 * const inDefault = objectPredicate((obj) => obj.metadata.namespace === 'default');
 * ```
 */
export function objectPredicate<T extends KubeObject = KubeObject>(filter: (obj: T) => boolean): Predicate<T> {
  return {
    create: (e) => filter(e.object),
    update: (e) => filter(e.object),
    delete: (e) => filter(e.object),
    generic: (e) => filter(e.object),
  };
}

/**
 * Passes updates only when `metadata.generation` changed, that is when the
 * spec changed: status-only and metadata-only writes are ignored. Other events pass.
 * Kinds without a generation (ConfigMaps, Secrets) never pass an update.
 *
 * @example
 * ```ts
 * import { Deployment, generationChanged } from '@operant/runtime';
 *
 * mgr.controller('deployments').for(Deployment, { predicates: [generationChanged()] });
 * ```
 */
export function generationChanged(): Predicate {
  return { update: (e) => e.oldObject.metadata.generation !== e.object.metadata.generation };
}

/**
 * Passes updates only when `metadata.resourceVersion` changed: drops the
 * re-deliveries of a periodic resync. Other events pass.
 *
 * @example
 * ```ts
 * import { ConfigMap, resourceVersionChanged } from '@operant/runtime';
 *
 * mgr.controller('configmaps').for(ConfigMap).withEventFilter(resourceVersionChanged());
 * ```
 */
export function resourceVersionChanged(): Predicate {
  return { update: (e) => e.oldObject.metadata.resourceVersion !== e.object.metadata.resourceVersion };
}

/**
 * Passes updates only when `metadata.labels` changed. Other events pass.
 *
 * @example
 * ```ts
 * import { generationChanged, labelsChanged, or, Pod } from '@operant/runtime';
 *
 * mgr.controller('pods').for(Pod, { predicates: [or(generationChanged(), labelsChanged())] });
 * ```
 */
export function labelsChanged(): Predicate {
  return { update: (e) => !sameStringMap(e.oldObject.metadata.labels, e.object.metadata.labels) };
}

/**
 * Passes updates only when `metadata.annotations` changed. Other events pass.
 *
 * @example
 * ```ts
 * import { annotationsChanged, Deployment, generationChanged, or } from '@operant/runtime';
 *
 * mgr.controller('deployments').for(Deployment, { predicates: [or(generationChanged(), annotationsChanged())] });
 * ```
 */
export function annotationsChanged(): Predicate {
  return { update: (e) => !sameStringMap(e.oldObject.metadata.annotations, e.object.metadata.annotations) };
}

/**
 * Passes events whose object (the new object of an update) has labels matching
 * `selector`: selector text (`app=web,tier in (a,b)`), a metav1.LabelSelector
 * (`{ matchLabels, matchExpressions }`), or a parsed selector. An invalid
 * selector throws here, not on the first event.
 *
 * @example
 * ```ts
 * import { labelSelectorPredicate, Pod } from '@operant/runtime';
 *
 * mgr.controller('web-pods').for(Pod, { predicates: [labelSelectorPredicate({ matchLabels: { app: 'web' } })] });
 * mgr.controller('tiered-pods').for(Pod).withEventFilter(labelSelectorPredicate('tier in (gold,silver)'));
 * ```
 */
export function labelSelectorPredicate(selector: string | LabelSelectorObject | ParsedLabelSelector): Predicate {
  const parsed = toSelector(selector);
  return objectPredicate((obj) => parsed.matches(obj.metadata.labels));
}

/**
 * Passes an event when every predicate passes it (and so with no predicates).
 *
 * @example
 * ```ts
 * import { and, generationChanged, labelSelectorPredicate } from '@operant/runtime';
 *
 * const p = and(generationChanged(), labelSelectorPredicate('app=web'));
 * ```
 */
export function and<T extends KubeObject = KubeObject>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.every((p) => passesCreate(p, e)),
    update: (e) => predicates.every((p) => passesUpdate(p, e)),
    delete: (e) => predicates.every((p) => passesDelete(p, e)),
    generic: (e) => predicates.every((p) => passesGeneric(p, e)),
  };
}

/**
 * Passes an event when at least one predicate passes it (and so never with no predicates).
 *
 * @example
 * ```ts
 * import { generationChanged, labelsChanged, or } from '@operant/runtime';
 *
 * const specOrLabels = or(generationChanged(), labelsChanged());
 * ```
 */
export function or<T extends KubeObject = KubeObject>(...predicates: readonly Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => predicates.some((p) => passesCreate(p, e)),
    update: (e) => predicates.some((p) => passesUpdate(p, e)),
    delete: (e) => predicates.some((p) => passesDelete(p, e)),
    generic: (e) => predicates.some((p) => passesGeneric(p, e)),
  };
}

/**
 * Passes exactly the events `predicate` refuses.
 *
 * @example
 * ```ts
 * import { not, objectPredicate } from '@operant/runtime';
 *
 * const notSystem = not(objectPredicate((o) => o.metadata.namespace === 'kube-system'));
 * ```
 */
export function not<T extends KubeObject = KubeObject>(predicate: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !passesCreate(predicate, e),
    update: (e) => !passesUpdate(predicate, e),
    delete: (e) => !passesDelete(predicate, e),
    generic: (e) => !passesGeneric(predicate, e),
  };
}

/**
 * Whether `predicate` lets a create event through (an absent function does).
 *
 * @example
 * ```ts
 * import { generationChanged } from '@operant/runtime';
 * import { passesCreate } from './predicates.js';
 *
 * passesCreate(generationChanged(), { object: pod, isInInitialList: true }); // true
 * ```
 */
export function passesCreate<T extends KubeObject>(predicate: Predicate<T>, event: CreateEvent<T>): boolean {
  return predicate.create ? predicate.create(event) : true;
}

/**
 * Whether `predicate` lets an update event through (an absent function does).
 *
 * @example
 * ```ts
 * import { generationChanged } from '@operant/runtime';
 * import { passesUpdate } from './predicates.js';
 *
 * const before = pod;
 * const after = { ...pod, metadata: { ...pod.metadata, generation: (pod.metadata.generation ?? 0) + 1 } };
 * passesUpdate(generationChanged(), { oldObject: before, object: after }); // true: the spec changed
 * ```
 */
export function passesUpdate<T extends KubeObject>(predicate: Predicate<T>, event: UpdateEvent<T>): boolean {
  return predicate.update ? predicate.update(event) : true;
}

/**
 * Whether `predicate` lets a delete event through (an absent function does).
 *
 * @example
 * ```ts
 * import { labelSelectorPredicate } from '@operant/runtime';
 * import { passesDelete } from './predicates.js';
 *
 * passesDelete(labelSelectorPredicate('app=web'), { object: pod, deleteStateUnknown: false });
 * ```
 */
export function passesDelete<T extends KubeObject>(predicate: Predicate<T>, event: DeleteEvent<T>): boolean {
  return predicate.delete ? predicate.delete(event) : true;
}

/**
 * Whether `predicate` lets a generic event through (an absent function does).
 *
 * @example
 * ```ts
 * import { labelSelectorPredicate } from '@operant/runtime';
 * import { passesGeneric } from './predicates.js';
 *
 * passesGeneric(labelSelectorPredicate('app=web'), { object: pod });
 * ```
 */
export function passesGeneric<T extends KubeObject>(predicate: Predicate<T>, event: GenericEvent<T>): boolean {
  return predicate.generic ? predicate.generic(event) : true;
}

function toSelector(selector: string | LabelSelectorObject | ParsedLabelSelector): ParsedLabelSelector {
  if (typeof selector === 'string') return parseLabelSelector(selector);
  if (isParsed(selector)) return selector;
  // An empty metav1.LabelSelector selects everything, as in kube.
  return labelSelectorFromObject(selector);
}

function isParsed(selector: LabelSelectorObject | ParsedLabelSelector): selector is ParsedLabelSelector {
  return typeof (selector as ParsedLabelSelector).matches === 'function';
}

function sameStringMap(a: Readonly<Record<string, string>> | undefined | null, b: Readonly<Record<string, string>> | undefined | null): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!b || !Object.prototype.hasOwnProperty.call(b, k) || b[k] !== a![k]) return false;
  return true;
}
