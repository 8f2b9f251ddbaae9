/**
 * The informer cache: a reflector keeps an indexed store in sync with the
 * server (list, watch, resume, relist on 410, reconnect with backoff), informers
 * add event handlers and async iteration, and a factory shares one informer per
 * kind and scope between controllers.
 */
export type { ListerWatcher, ListResult, ListWatchOptions, WatchEvent, WatchEventType, WatchRequestOptions } from './list-watch.js';
export { objectKey, keyFor, splitKey } from './keys.js';
export { isTombstone, deletedObject, type Tombstone } from './tombstone.js';
export { dropManagedFields, composeTransforms, type Transform } from './transform.js';
export { namespaceIndex, namespaceIndexFunc, type IndexFunc, type IndexErrorHandler } from './indexes.js';
export { Store, type StoreReader, type StoreOptions, type StoreDiff, type StoreErrorContext, type Upserted } from './store.js';
export { Backoff, type BackoffOptions } from './backoff.js';
export { stderrLogger, type CacheLogger } from './logger.js';
export { noopReflectorMetricsProvider, type ReflectorMetricsProvider, type ReflectorPhase } from './metrics.js';
export { WatchStatusError, WatchStalledError } from './watch-errors.js';
export { CacheSyncTimeoutError } from './sync-timeout.js';
export type { InformerEvent, EventHandler, HandlerRegistration } from './events.js';
export { Reflector, type ReflectorOptions, type ReflectorStats } from './reflector.js';
export { Informer, type InformerOptions, type InformerState, type EventsOptions } from './informer.js';
export {
  SharedInformerFactory,
  type ListerWatcherSource,
  type SharedInformerFactoryOptions,
  type InformerRequest,
  type InformerScopeRequest,
  type KindCacheScope,
  type ResolvedScope,
} from './shared-informers.js';
export {
  CacheReader,
  CacheNotStartedError,
  CacheScopeError,
  type CacheReaderOptions,
  type CacheGetOptions,
  type CacheListOptions,
} from './reader.js';
export { fieldIndexName, fieldIndexFunc, namespacedIndexValue, allNamespacesKey, type FieldExtractor } from './field-index.js';
export { KindListerWatcher, type ListerWatcherOptions, type ListWatchCalls } from '../client/lister-watcher.js';
