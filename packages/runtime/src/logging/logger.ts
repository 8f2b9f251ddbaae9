/**
 * The runtime's structured logger: pino, writing JSON lines by default (what
 * log collectors ingest) and pino-pretty's coloured lines when the output is
 * a terminal. It writes to stderr, as controller-runtime's zap logger does,
 * so an operator's stdout stays free for its own output.
 */
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { ControllerLogger } from '../controller/logger.js';

/**
 * How lines are written: `auto` picks `pretty` on a terminal and `json` otherwise.
 *
 * @example
 * ```ts
 * import { createLogger } from '@operant/runtime';
 *
 * const logger = createLogger({ format: process.env.CI ? 'json' : 'auto' });
 * ```
 */
export type LogFormat = 'json' | 'pretty' | 'auto';

/**
 * Options of {@link createLogger}.
 *
 * @example
 * ```ts
 * import type { LoggerOptions } from '@operant/runtime';
 *
 * const options: LoggerOptions = { level: 'debug', format: 'json' };
 * ```
 */
export interface LoggerOptions {
  /** Lowest level written. Default: `OPERANT_LOG_LEVEL` from the environment, else `info`. */
  level?: Level | 'silent';
  /** Default: `OPERANT_LOG_FORMAT` from the environment, else `auto`. */
  format?: LogFormat;
  /** Where lines go; default stderr (file descriptor 2). A stream given here is written as JSON unless `format` is `pretty`. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. `{ operator: 'sidecarset' }`. */
  base?: Record<string, unknown>;
}

const levels: ReadonlySet<string> = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const formats: ReadonlySet<string> = new Set(['json', 'pretty', 'auto']);

/**
 * Makes a pino logger for an operator. It fits every `logger` option of the
 * runtime (informers, controllers, the manager), and each reconcile gets a
 * child of it carrying controller, controllerGroup, controllerKind,
 * namespace, name and reconcileID.
 *
 * @example
 * ```ts
 * import { createLogger, Manager } from '@operant/runtime';
 *
 * const logger = createLogger({ level: 'debug' });
 * const mgr = await Manager.create({ logger });
 * logger.info({ version: '1.0.0' }, 'starting the operator');
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger & ControllerLogger {
  const level = options.level ?? envChoice('OPERANT_LOG_LEVEL', levels, 'info');
  const format = options.format ?? envChoice('OPERANT_LOG_FORMAT', formats, 'auto');
  const pretty = format === 'pretty' || (format === 'auto' && !options.destination && process.stderr.isTTY === true);
  const settings = { level, base: options.base ?? null, serializers: { err: pino.stdSerializers.err } };
  if (pretty) return pino(settings, prettyStream(options.destination));
  return pino(settings, options.destination ?? pino.destination({ dest: 2, sync: true }));
}

function envChoice<T extends string>(name: string, allowed: ReadonlySet<string>, fallback: T): T {
  const value = process.env[name]?.trim().toLowerCase();
  if (!value) return fallback;
  if (!allowed.has(value)) throw new Error(`${name}=${value} is not one of ${[...allowed].join(', ')}`);
  return value as T;
}

// pino-pretty is loaded only for a terminal: production processes never pay for it.
function prettyStream(destination: DestinationStream | undefined): DestinationStream {
  const require = createRequire(import.meta.url);
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({ destination: destination ?? 2, sync: true, colorize: !destination, ignore: 'pid,hostname' });
}
