/**
 * The logger a controller writes to, and hands to each reconcile with the
 * request's fields bound: the runtime's one {@link Logger}. The names below
 * other than the default stay for one release.
 */
import { stderrLoggerFor, type LogMethods, type Logger } from '../logging/log.js';

export { childLogger } from '../logging/log.js';

/**
 * Any object with the four level methods, which every `logger` option takes.
 *
 * @deprecated Use {@link LogMethods} (or {@link Logger}); this alias goes in the next release.
 */
export type ControllerLogger = LogMethods;

/**
 * @deprecated Use {@link Logger}, whose `child` is always there; this alias goes in the next release.
 */
export type ContextLogger = Logger;

/**
 * The controllers' default: warnings and errors to stderr (a failing
 * reconcile is never silent, with the error's stack), debug and info dropped.
 *
 * @example
 * ```ts
 * import { controllerBuilder, stderrControllerLogger } from '@operant/runtime';
 *
 * controllerBuilder('configmaps', { client, informers, logger: stderrControllerLogger });
 * ```
 */
export const stderrControllerLogger: Logger = stderrLoggerFor('controller', true);
