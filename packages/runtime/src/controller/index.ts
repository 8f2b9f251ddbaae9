/**
 * Controllers: reconcile functions driven by a work queue that watches feed,
 * built with a fluent builder (`for`, `owns`, `watches`), filtered by
 * predicates, with controller-runtime's results, retries and metrics.
 */
export { requestFor, requestFromKey, requestKey, type Request } from './request.js';
export type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from './events.js';
export {
  and,
  annotationsChanged,
  generationChanged,
  labelSelectorPredicate,
  labelsChanged,
  not,
  objectPredicate,
  or,
  resourceVersionChanged,
  type Predicate,
} from './predicates.js';
export { enqueueMapped, enqueueObject, enqueueOwner, type EnqueueOwnerOptions, type RequestMapper } from './handlers.js';
export { channelSource, kindSource, type RequestQueue, type Source, type SourceContext } from './source.js';
export { TerminalError, isConflictError, isPanic, isTerminalError } from './errors.js';
export { stderrControllerLogger, type ContextLogger, type ControllerLogger } from './logger.js';
export type { ControllerMetrics, ReconcileResultLabel } from './metrics.js';
export {
  Controller,
  type ControllerOptions,
  type ControllerState,
  type ReconcileContext,
  type ReconcileFunc,
  type ReconcileResult,
} from './controller.js';
export {
  ControllerBuilder,
  controllerBuilder,
  type ControllerDeps,
  type ForOptions,
  type OwnsOptions,
  type WatchesOptions,
} from './builder.js';
