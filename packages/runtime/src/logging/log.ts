/**
 * The one logger type of the runtime. Informers, controllers, reconciles,
 * admission handlers, the webhook server and the manager all take and hand
 * out a {@link Logger}. Its method signature is pino's
 * (`log.info({ key: value }, 'message')`), so a pino logger, or a child of
 * one, is a Logger as it is.
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
 * A structured logger. `child` (pino's `child`, logr's `WithValues`) binds
 * fields to every line of the logger it returns. An object with only the four
 * level methods becomes a Logger through {@link childLogger}.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * import { controllerBuilder, type Logger } from '@operant/runtime';
 *
 * const logger: Logger = pino();
 * controllerBuilder('configmaps', { client, informers, logger });
 * ```
 */
export interface Logger {
  debug(fields: LogFields, msg: string): void;
  info(fields: LogFields, msg: string): void;
  warn(fields: LogFields, msg: string): void;
  error(fields: LogFields, msg: string): void;
  /** A logger with `bindings` on every line (logr's `WithValues`, pino's `child`). */
  child(bindings: LogFields): Logger;
}

/** The four level methods: what {@link childLogger} needs to make a {@link Logger}. */
export type LogMethods = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'> & { child?(bindings: LogFields): LogMethods };

/**
 * A logger that adds `bindings` to every line: the logger's own `child` when
 * it has one, else a wrapper that merges the fields, so that any object with
 * the four level methods becomes a {@link Logger} (`childLogger(sink, {})`).
 * What it returns always has a `child` of its own. `bindings` must not
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
export function childLogger(logger: LogMethods, bindings: LogFields): Logger {
  if (typeof logger.child === 'function') {
    const child = logger.child(bindings);
    // A custom logger's child may lack a child of its own: wrap it, binding nothing more.
    return hasChild(child) ? child : mergingLogger(child, {});
  }
  return mergingLogger(logger, bindings);
}

function hasChild(logger: LogMethods): logger is Logger {
  return typeof logger.child === 'function';
}

/** A logger without `child`, with `bindings` merged into every line's fields. */
function mergingLogger(logger: LogMethods, bindings: LogFields): Logger {
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

/** Warnings and errors to stderr as `<time> <LEVEL> <component>: <msg> <fields>`; debug and info dropped. */
export function stderrLoggerFor(component: string, showStacks: boolean): Logger {
  const write =
    (level: string) =>
    (fields: LogFields, msg: string): void => {
      const rendered = JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? (showStacks ? (v.stack ?? v.message) : v.message) : v));
      process.stderr.write(`${new Date().toISOString()} ${level} ${component}: ${msg} ${rendered}\n`);
    };
  return childLogger(Object.freeze({ debug: noop, info: noop, warn: write('WARN'), error: write('ERROR') }), {});
}

/**
 * Drops everything (tests that check failures through metrics instead).
 *
 * @example
 * ```ts
 * import { Pod, silentLogger, type ReflectorMetricsProvider } from '@operant/runtime';
 * import { Informer } from '@operant/runtime/cache';
 *
 * declare const metrics: ReflectorMetricsProvider; // failures are checked there instead
 * new Informer(client.listerWatcher(Pod), { logger: silentLogger, metrics });
 * ```
 */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop, child: () => silentLogger });
