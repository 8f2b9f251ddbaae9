/**
 * The runtime's structured logger: pino, writing JSON lines by default (what
 * log collectors ingest) and pino-pretty's coloured lines when the output is
 * a terminal. It writes to stderr, as controller-runtime's zap logger does,
 * so an operator's stdout stays free for its own output.
 */
import { createRequire } from 'node:module';
import type { DestinationStream, Level, Logger as PinoLogger } from 'pino';
import type { Logger } from './log.js';

const require = createRequire(import.meta.url);
let pinoModule: typeof import('pino') | undefined;

/**
 * pino, loaded (a CommonJS package, synchronously) by the first logger made
 * rather than with the runtime: a process that makes none, such as a test
 * that talks to a server with a Client and starts no manager, never loads its
 * dozen modules (issue 20).
 */
function loadPino(): typeof import('pino') {
  return (pinoModule ??= require('pino') as typeof import('pino'));
}

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
 * The levels {@link createLogger} writes from: pino's (`trace` to `fatal`), and `silent` for none.
 *
 * @example
 * ```ts
 * import { createLogger, type LogLevel } from '@operant/runtime';
 *
 * const level: LogLevel = process.env.CI ? 'warn' : 'debug';
 * createLogger({ level });
 * ```
 */
export type LogLevel = Level | 'silent';

/**
 * Options of {@link createLogger}.
 *
 * @example
 * ```ts
 * import type { LoggerOptions } from '@operant/runtime';
 *
 * const options: LoggerOptions = { level: process.env.LOG_LEVEL, format: 'json' }; // a string from anywhere
 * ```
 */
export interface LoggerOptions {
  /**
   * Lowest level written: a {@link LogLevel}, or any string naming one (case
   * and surrounding blanks do not matter), so that `process.env.LOG_LEVEL`
   * can be passed as it is; another string throws a RangeError that names the
   * levels. Unset or blank: `OPERANT_LOG_LEVEL` from the environment, else `info`.
   */
  level?: LogLevel | (string & {});
  /** Default: `OPERANT_LOG_FORMAT` from the environment, else `auto`. */
  format?: LogFormat;
  /** Where lines go; default stderr (file descriptor 2). A stream given here is written as JSON unless `format` is `pretty`. */
  destination?: DestinationStream;
  /** Fields on every line, e.g. `{ operator: 'sidecarset' }`. */
  base?: Record<string, unknown>;
}

const levels: ReadonlySet<string> = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);
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
 * const logger = createLogger({ level: process.env.LOG_LEVEL }); // 'debug', 'INFO'...; unset: OPERANT_LOG_LEVEL, else info
 * const mgr = await Manager.create({ logger });
 * logger.info({ version: '1.0.0' }, 'starting the operator');
 * ```
 */
export function createLogger(options: LoggerOptions = {}): PinoLogger & Logger {
  const given = options.level?.trim().toLowerCase();
  if (given && !levels.has(given)) {
    throw new RangeError(`invalid log level ${JSON.stringify(options.level)}: expected one of ${[...levels].join(', ')}`);
  }
  const level = given || envChoice('OPERANT_LOG_LEVEL', levels, 'info');
  const format = options.format ?? envChoice('OPERANT_LOG_FORMAT', formats, 'auto');
  const pretty = format === 'pretty' || (format === 'auto' && !options.destination && process.stderr.isTTY === true);
  const { pino } = loadPino();
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
  const pretty = require('pino-pretty') as typeof import('pino-pretty');
  return pretty({ destination: destination ?? 2, sync: true, colorize: !destination, ignore: 'pid,hostname' });
}
