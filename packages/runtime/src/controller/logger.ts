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
 * The logger the runtime hands out: a reconcile's `ctx.log`, an admission
 * handler's `ctx.log`, and whatever {@link childLogger} returns. Its `child`
 * is always there, and is controller-runtime's `log.WithValues(...)` (logr):
 * the fields are bound to every line of the logger it returns. Bind keys the
 * logger does not carry yet (a reconcile's carries `controller`,
 * `controllerGroup`, `controllerKind`, `namespace`, `name`, `reconcileID`).
 *
 * @example
 * ```ts
 * import type { ReconcileFunc } from '@operant/runtime';
 *
 * // Go: log = log.WithValues("now", r.Now(), "next run", nextRun)
 * const reconcile: ReconcileFunc = (req, { log }) => {
 *   const runLog = log.child({ now: new Date().toISOString(), nextRun: '2025-01-01T00:05:00Z' });
 *   runLog.info({}, 'no upcoming scheduled times, sleeping until next');
 * };
 * ```
 */
export interface ContextLogger extends ControllerLogger {
  /** A logger with `bindings` on every line (logr's `WithValues`, pino's `child`). */
  child(bindings: LogFields): ContextLogger;
}

/**
 * A logger that adds `bindings` to every line: the logger's own `child` when
 * it has one, else a wrapper that merges the fields. What it returns always
 * has a `child` of its own. `bindings` must not
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
export function childLogger(logger: ControllerLogger, bindings: LogFields): ContextLogger {
  if (typeof logger.child === 'function') {
    const child = logger.child(bindings);
    // A custom logger's child may lack a child of its own: wrap it, binding nothing more.
    return hasChild(child) ? child : mergingLogger(child, {});
  }
  return mergingLogger(logger, bindings);
}

function hasChild(logger: ControllerLogger): logger is ContextLogger {
  return typeof logger.child === 'function';
}

/** A logger without `child`, with `bindings` merged into every line's fields. */
function mergingLogger(logger: ControllerLogger, bindings: LogFields): ContextLogger {
  const bind =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (fields: LogFields, msg: string): void =>
      logger[level]({ ...bindings, ...fields }, msg);
  return {
    debug: bind('debug'),
    info: bind('info'),
    warn: bind('warn'),
    error: bind('error'),
    child: (more) => mergingLogger(logger, { ...bindings, ...more }),
  };
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
