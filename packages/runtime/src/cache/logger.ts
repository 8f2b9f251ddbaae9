/**
 * Where informers report what happens to them. The signature is pino's
 * (`logger.warn({ err }, 'message')`), so a pino logger, or a child of one,
 * can be passed as is.
 */

/**
 * Structured fields of a log line.
 *
 * @example
 * ```ts
 * import type { LogFields } from '@operant/runtime';
 *
 * const fields: LogFields = { informer: 'pods', phase: 'watch', retryInMs: 800 };
 * ```
 */
export type LogFields = Record<string, unknown>;

/**
 * A structured logger.
 *
 * @example
 * ```ts
 * import { Informer, Pod, type CacheLogger } from '@operant/runtime';
 *
 * const lines: string[] = [];
 * const logger: CacheLogger = {
 *   debug() {},
 *   info() {},
 *   warn: (fields, msg) => lines.push(`${msg} ${JSON.stringify(fields)}`),
 *   error: (fields, msg) => lines.push(`${msg} ${JSON.stringify(fields)}`),
 * };
 * new Informer(client.listerWatcher(Pod), { logger });
 * ```
 */
export interface CacheLogger {
  debug(fields: LogFields, msg: string): void;
  info(fields: LogFields, msg: string): void;
  warn(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
}

const noop = (): void => {};

function toStderr(level: string): (fields: LogFields, msg: string) => void {
  return (fields, msg) => {
    const rendered = JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? v.message : v));
    process.stderr.write(`${new Date().toISOString()} ${level} cache: ${msg} ${rendered}\n`);
  };
}

/**
 * The default logger: warnings and errors to stderr (a failure is never silent),
 * debug and info dropped.
 *
 * @example
 * ```ts
 * import { Informer, Pod, stderrLogger } from '@operant/runtime';
 *
 * new Informer(client.listerWatcher(Pod), { logger: stderrLogger });
 * ```
 */
export const stderrLogger: CacheLogger = Object.freeze({
  debug: noop,
  info: noop,
  warn: toStderr('WARN'),
  error: toStderr('ERROR'),
});

/**
 * Drops everything (tests that check failures through metrics instead).
 *
 * @example
 * ```ts
 * import { Informer, Pod, silentLogger, type ReflectorMetricsProvider } from '@operant/runtime';
 *
 * declare const metrics: ReflectorMetricsProvider; // failures are checked there instead
 * new Informer(client.listerWatcher(Pod), { logger: silentLogger, metrics });
 * ```
 */
export const silentLogger: CacheLogger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });
