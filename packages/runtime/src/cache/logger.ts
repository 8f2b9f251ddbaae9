/**
 * Where informers report what happens to them: the runtime's one
 * {@link Logger}. The names below stay for one release.
 */
import { silentLogger, stderrLoggerFor, type LogMethods, type Logger } from '../logging/log.js';

export { silentLogger };
export type { LogFields } from '../logging/log.js';

/**
 * Any object with the four level methods, which every `logger` option takes.
 *
 * @deprecated Use {@link LogMethods} (or {@link Logger}); this alias goes in the next release.
 */
export type CacheLogger = LogMethods;

/**
 * The informers' default logger: warnings and errors to stderr (a failure is
 * never silent), debug and info dropped.
 *
 * @example
 * ```ts
 * import { Pod } from '@operant/runtime';
 * import { Informer, stderrLogger } from '@operant/runtime/cache';
 *
 * new Informer(client.listerWatcher(Pod), { logger: stderrLogger });
 * ```
 */
export const stderrLogger: Logger = stderrLoggerFor('cache', false);
