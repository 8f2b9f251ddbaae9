/**
 * The API client: typed and unstructured CRUD, patches, subresources, watch,
 * typed Status errors, request throttling and metrics, and the ListerWatcher
 * informers are built on.
 */
export {
  ApiError,
  ignoreAlreadyExists,
  ignoreConflict,
  hasStatusCause,
  ignoreNotFound,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isStatus,
  isTooManyRequests,
  isUnauthorized,
} from './api-error.js';
export { defaultRetry, retryOnConflict, retryOnError, type RetryBackoff } from './retry.js';
export { Client, type ClientOptions, type JsonPatchOp, type PatchBody } from './client.js';
export { applyConfiguration, type ApplyConfiguration, type ApplyFields, type DeepPartial } from './apply-configuration.js';
export type { CachedClientOptions } from './cached-client.js';
export type { ObjectClient, Reader, Writer } from './interfaces.js';
export type { ReadYourWritesOptions } from './read-your-writes.js';
export type { ListerWatcherOptions, ListWatchCalls } from './lister-watcher.js';
export type { RequestMetrics, RequestObservation } from './metrics.js';
export type {
  ApplyOptions,
  CacheReadOptions,
  DeleteAllOfOptions,
  DeleteOptions,
  FieldValidation,
  GetOptions,
  KubeList,
  LabelSelector,
  ListOptions,
  NamespaceOptions,
  PartialObjectMetadata,
  PatchOptions,
  PatchType,
  PropagationPolicy,
  RequestOptions,
  Scale,
  WatchOptions,
  WriteOptions,
} from './options.js';
