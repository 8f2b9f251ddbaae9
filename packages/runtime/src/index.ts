/**
 * `@operant/runtime`: what an operator author uses. The manager, the
 * controller builder and its predicates and handlers, the client and its
 * errors, kinds, webhooks, events, helpers and logging. The machinery under
 * them has subpaths of its own:
 *
 * - `@operant/runtime/cache`: informers, the reflector, stores, indexes, the cache reader;
 * - `@operant/runtime/workqueue`: work queues, rate limiters, clocks;
 * - `@operant/runtime/metrics`: the Prometheus metrics and their no-op stand-ins;
 * - `@operant/runtime/testing`: fakes (`FakeClock`, `FakeListerWatcher`).
 *
 * src/public-surface.test.ts holds the reviewed list of this module's values.
 */
export * from './client/index.js';
export * from './config/index.js';
export * from './kind.js';
export * from './api-types.js';
export * from './no-kind-match.js';
export * from './time.js';
export { parseDuration, type DurationInput } from './duration.js';
export * from './controller/index.js';
export * from './manager/index.js';
export * from './logging/index.js';
export * from './builtins.js';
export * from './helpers/index.js';
export * from './events/index.js';
export type { KubeObject, ObjectMeta, OwnerReference } from '@operant/apimachinery';
export * from './webhook/index.js';
// The types that the options above mention (a manager's cache settings, a
// controller's queue and metrics), so that writing those options needs no subpath.
export type * from './cache/index.js';
export type * from './workqueue/index.js';
export type * from './metrics/index.js';
