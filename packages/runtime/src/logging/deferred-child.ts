/**
 * A child logger made only when something is logged through it. A controller
 * binds the request's fields to a logger for every reconcile, and most
 * reconciles log nothing at an enabled level: pino's `child` serializes the
 * bindings at once, which cost a busy controller more than its queue did.
 */
import { childLogger, type LogFields, type Logger, type LogMethods } from './log.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** pino's level check, when the logger has one. */
type LevelAware = LogMethods & { isLevelEnabled?(level: string): boolean };

/**
 * `childLogger(parent, bindings)`, made at the first line logged at a level
 * `parent` writes (any line, when it cannot tell: only pino loggers can).
 * The lines are the same as the eager child's.
 */
export function deferredChildLogger(parent: LogMethods, bindings: LogFields): Logger {
  let child: Logger | undefined;
  const made = (): Logger => (child ??= childLogger(parent, bindings));
  const aware = parent as LevelAware;
  const at =
    (level: Level) =>
    (fields: LogFields, msg: string): void => {
      if (child === undefined && aware.isLevelEnabled?.(level) === false) return;
      made()[level](fields, msg);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: (more) => made().child(more) };
}
