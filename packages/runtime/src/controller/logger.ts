/**
 * The logger a controller writes to, and hands to each reconcile with the
 * request's fields bound. The method signature is pino's
 * (`log.info({ key: value }, 'message')`), so a pino logger can be passed as is.
 */
import type { LogFields } from '../cache/logger.js';

/**
 * A structured logger. `child` (as pino has) binds fields to every line; a
 * logger without it gets them merged in by {@link childLogger}.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * import { controllerBuilder } from '@operant/runtime';
 *
 * controllerBuilder('configmaps', { client, informers, logger: pino() });
 * ```
 */
export interface ControllerLogger {
  debug(fields: LogFields, msg: string): void;
  info(fields: LogFields, msg: string): void;
  warn(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
  child?(bindings: LogFields): ControllerLogger;
}

/**
 * A logger that adds `bindings` to every line: the logger's own `child` when
 * it has one, else a wrapper that merges the fields. `bindings` must not
 * repeat a key the logger already binds: pino writes a child's bindings after
 * its parent's, so the line would carry the key twice, which many log
 * pipelines reject (so the runtime's components each bind keys of their own).
 *
 * @example
 * ```ts
 * import { childLogger, createLogger } from '@operant/runtime';
 *
 * const log = childLogger(createLogger(), { controller: 'configmaps', namespace: 'default', name: 'web' });
 * log.info({}, 'reconciled'); // carries controller, namespace and name
 * ```
 */
export function childLogger(logger: ControllerLogger, bindings: LogFields): ControllerLogger {
  if (typeof logger.child === 'function') return logger.child(bindings);
  const bind =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (fields: LogFields, msg: string): void =>
      logger[level]({ ...bindings, ...fields }, msg);
  const child: ControllerLogger = {
    debug: bind('debug'),
    info: bind('info'),
    warn: bind('warn'),
    error: bind('error'),
    child: (more) => childLogger(logger, { ...bindings, ...more }),
  };
  return child;
}

const noop = (): void => {};

function toStderr(level: string): (fields: LogFields, msg: string) => void {
  return (fields, msg) => {
    const rendered = JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? (v.stack ?? v.message) : v));
    process.stderr.write(`${new Date().toISOString()} ${level} controller: ${msg} ${rendered}\n`);
  };
}

/**
 * The default: warnings and errors to stderr (a failing reconcile is never
 * silent), debug and info dropped.
 *
 * @example
 * ```ts
 * import { controllerBuilder, stderrControllerLogger } from '@operant/runtime';
 *
 * controllerBuilder('configmaps', { client, informers, logger: stderrControllerLogger });
 * ```
 */
export const stderrControllerLogger: ControllerLogger = Object.freeze({
  debug: noop,
  info: noop,
  warn: toStderr('WARN'),
  error: toStderr('ERROR'),
});
