/**
 * The fluent way to make a controller (controller-runtime's `pkg/builder`):
 * what it reconciles (`for`), what it owns (`owns`), what else it watches
 * (`watches`), which events matter (predicates), how many workers, and the
 * reconcile function, which ends the chain and returns the controller.
 */
import type { KubeObject } from '@operant/apimachinery';
import type { InformerRequest, SharedInformerFactory } from '../cache/shared-informers.js';
import type { Client } from '../client/index.js';
import type { Kind } from '../kind.js';
import type { Clock } from '../workqueue/clock.js';
import type { QueueMetricsProvider } from '../workqueue/metrics.js';
import type { RateLimiter } from '../workqueue/rate-limiters.js';
import { Controller, type ReconcileFunc } from './controller.js';
import { enqueueMapped, enqueueObject, enqueueOwner, type RequestMapper } from './handlers.js';

import type { ControllerMetrics } from './metrics.js';
import type { Predicate } from './predicates.js';
import { kindSource, type Source } from './source.js';
import type { LogMethods } from '../logging/log.js';

/**
 * What a builder needs from its surroundings (usually the manager).
 *
 * @example
 * ```ts
 * import { createLogger, type ControllerDeps } from '@operant/runtime';
 * import { SharedInformerFactory } from '@operant/runtime/cache';
 *
 * const deps: ControllerDeps = { client, informers: new SharedInformerFactory(client), logger: createLogger() };
 * ```
 */
export interface ControllerDeps {
  client: Client;
  /** Where the controller's informers come from; the same factory for every controller, so informers are shared. */
  informers: SharedInformerFactory;
  metrics?: ControllerMetrics;
  /** Work-queue metrics, reported under the controller's name. */
  queueMetrics?: QueueMetricsProvider;
  logger?: LogMethods;
  /** Retry delays; default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter<string>;
  /** See {@link ControllerOptions.cacheSyncTimeoutMs}. */
  cacheSyncTimeoutMs?: number;
  clock?: Clock;
  /** Called with each controller the builder makes (a manager registers it here, to start it later). */
  onBuild?: (controller: Controller) => void;
}

/**
 * Options of {@link ControllerBuilder.for}.
 *
 * @example
 * ```ts
 * import { Deployment, generationChanged } from '@operant/runtime';
 *
 * mgr.controller('deployments').for(Deployment, { predicates: [generationChanged()], informer: { namespace: 'prod' } });
 * ```
 */
export interface ForOptions<T extends KubeObject> {
  /** Filters for this kind's events, on top of the controller's event filters. */
  predicates?: readonly Predicate<T>[];
  /** Which shared informer to use (namespace, selectors, indexers); default the kind's in the factory's scope. */
  informer?: InformerRequest<T>;
}

/**
 * Options of {@link ControllerBuilder.owns}.
 *
 * @example
 * ```ts
 * import { ConfigMap, resourceVersionChanged, Secret } from '@operant/runtime';
 *
 * mgr.controller('configmaps').for(ConfigMap).owns(Secret, { predicates: [resourceVersionChanged()], matchEveryOwner: false });
 * ```
 */
export interface OwnsOptions<T extends KubeObject> extends ForOptions<T> {
  /** Enqueue every owner of the `for` kind, not only the controlling one (default false). */
  matchEveryOwner?: boolean;
}

/**
 * Options of {@link ControllerBuilder.watches}.
 *
 * @example
 * ```ts
 * import { labelsChanged, Pod } from '@operant/runtime';
 *
 * // Each Pod maps to the set named in its `set` label.
 * mgr.controller('sets').watches(Pod, (pod) => {
 *   const set = pod.metadata.labels?.['set'];
 *   return set ? [{ namespace: pod.metadata.namespace ?? '', name: set }] : [];
 * }, { predicates: [labelsChanged()] });
 * ```
 */
export type WatchesOptions<T extends KubeObject> = ForOptions<T>;

/** A watch waiting for the build: makes its source once the event filters and the `for` kind are known. */
type PendingWatch = (filters: readonly Predicate[], forKind: Kind | undefined) => Source;

/**
 * Builds one controller.
 *
 * @example
 * ```ts
 * import { ConfigMap, controllerBuilder, labelSelectorPredicate, Namespace, not, Secret } from '@operant/runtime';
 *
 * const controller = controllerBuilder('configmap-secrets', { client, informers })
 *   .for(ConfigMap)
 *   .owns(Secret)
 *   .watches(Namespace, (ns) => [{ namespace: ns.metadata.name ?? '', name: 'settings' }]) // each namespace's settings
 *   .withEventFilter(not(labelSelectorPredicate('skip=true')))
 *   .maxConcurrentReconciles(4)
 *   .reconcile(async (req, { client, log }) => {
 *     log.info({}, 'reconciling');
 *     return { requeueAfter: 60_000 };
 *   });
 * informers.startAll(signal);
 * await controller.start(signal);
 * ```
 */
export class ControllerBuilder {
  private forKind: Kind | undefined;
  private forWatch: PendingWatch | undefined;
  private readonly otherWatches: PendingWatch[] = [];
  private owned = 0;
  private readonly eventFilters: Predicate[] = [];
  private workers = 1;
  private built = false;

  constructor(
    readonly name: string,
    private readonly deps: ControllerDeps,
  ) {
    if (!name || /\s/.test(name)) throw new TypeError(`a controller name must be non-empty and without spaces, got ${JSON.stringify(name)}`);
  }

  /** The kind this controller reconciles: each of its objects is a request (once per builder). */
  for<T extends KubeObject>(kind: Kind<T>, options: ForOptions<T> = {}): this {
    if (this.forKind) throw new Error(`controller ${this.name}: for() was already called (with ${this.forKind.kind}); use watches() for more kinds`);
    this.forKind = kind;
    this.forWatch = (filters) => this.informerSource(kind, enqueueObject<T>(), filters, options);
    return this;
  }

  /**
   * A kind this controller creates and owns: a change to one of its objects
   * reconciles the `for` object that controls it (its ownerReference with `controller: true`).
   */
  owns<T extends KubeObject>(kind: Kind<T>, options: OwnsOptions<T> = {}): this {
    this.owned++;
    this.otherWatches.push((filters, forKind) =>
      this.informerSource(kind, enqueueOwner<T>(forKind!, { onlyController: !options.matchEveryOwner }), filters, options),
    );
    return this;
  }

  /** Another kind whose changes matter: `map` turns each changed object into requests. */
  watches<T extends KubeObject>(kind: Kind<T>, map: RequestMapper<T>, options: WatchesOptions<T> = {}): this {
    this.otherWatches.push((filters) => this.informerSource(kind, enqueueMapped(map), filters, options));
    return this;
  }

  /** A source that is not an informer of the factory (e.g. {@link channelSource}); event filters do not apply to it. */
  watchesRawSource(source: Source): this {
    this.otherWatches.push(() => source);
    return this;
  }

  /** A predicate every `for`, `owns` and `watches` event must also pass. */
  withEventFilter(predicate: Predicate): this {
    this.eventFilters.push(predicate);
    return this;
  }

  /** Workers reconciling at once (each on a different object); default 1. */
  maxConcurrentReconciles(workers: number): this {
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`maxConcurrentReconciles must be a positive integer, got ${workers}`);
    this.workers = workers;
    return this;
  }

  /** Sets the reconcile function and builds the controller (once per builder); start it with `controller.start(signal)`. */
  reconcile(fn: ReconcileFunc): Controller {
    if (this.built) throw new Error(`controller ${this.name}: reconcile() was already called on this builder`);
    if (!this.forWatch && this.otherWatches.length === 0) {
      throw new Error(`controller ${this.name}: nothing to watch; call for() or watches()`);
    }
    if (this.owned > 0 && !this.forKind) {
      throw new Error(`controller ${this.name}: owns() needs for(), the kind of the owners`);
    }
    this.built = true;
    const { deps } = this;
    const forKind = this.forKind;
    const controller = new Controller({
      name: this.name,
      client: deps.client,
      reconcile: fn,
      maxConcurrentReconciles: this.workers,
      metrics: deps.metrics,
      queueMetrics: deps.queueMetrics,
      rateLimiter: deps.rateLimiter,
      logger: deps.logger,
      cacheSyncTimeoutMs: deps.cacheSyncTimeoutMs,
      clock: deps.clock,
      logFields: forKind ? { controllerGroup: forKind.group, controllerKind: forKind.kind } : {},
    });
    for (const pending of this.forWatch ? [this.forWatch, ...this.otherWatches] : this.otherWatches) {
      controller.watch(pending(this.eventFilters, forKind));
    }
    deps.onBuild?.(controller);
    return controller;
  }

  private informerSource<T extends KubeObject>(kind: Kind<T>, mapper: RequestMapper<T>, filters: readonly Predicate[], options: ForOptions<T>): Source {
    const informer = this.deps.informers.informerFor(kind, options.informer);
    const predicates: Predicate<T>[] = [...filters, ...(options.predicates ?? [])];
    return kindSource(informer, mapper, predicates);
  }
}

/**
 * Starts building a controller named `name` (the `controller` label of its
 * metrics, its work queue's name, and the `controller` field of its logs).
 *
 * @example
 * ```ts
 * import { controllerBuilder, Deployment, generationChanged } from '@operant/runtime';
 *
 * const controller = controllerBuilder('deployments', { client, informers })
 *   .for(Deployment, { predicates: [generationChanged()] })
 *   .reconcile(async (req) => console.log('spec changed', req));
 * ```
 */
export function controllerBuilder(name: string, deps: ControllerDeps): ControllerBuilder {
  return new ControllerBuilder(name, deps);
}
