/**
 * For tests: a controller logger that keeps every line, so a test can assert
 * what was logged, at which level and with which fields.
 */
import type { LogFields } from '../cache/logger.js';
import type { ControllerLogger } from '../controller/logger.js';

/** A log level of {@link ControllerLogger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One captured line. */
export interface LogLine {
  level: LogLevel;
  fields: LogFields;
  msg: string;
}

/**
 * Keeps the lines logged to it, in order.
 *
 * @example
 * ```ts
 * const logs = new CapturingLogger();
 * const recorder = new EventRecorder(client, { reportingController: 'example.com/c', logger: logs });
 * // ...
 * assert.deepEqual(logs.at('error'), []);
 * ```
 */
export class CapturingLogger implements ControllerLogger {
  readonly lines: LogLine[] = [];
  debug(fields: LogFields, msg: string): void {
    this.lines.push({ level: 'debug', fields, msg });
  }
  info(fields: LogFields, msg: string): void {
    this.lines.push({ level: 'info', fields, msg });
  }
  warn(fields: LogFields, msg: string): void {
    this.lines.push({ level: 'warn', fields, msg });
  }
  error(fields: LogFields, msg: string): void {
    this.lines.push({ level: 'error', fields, msg });
  }
  /** The lines logged at `level`. */
  at(level: LogLevel): LogLine[] {
    return this.lines.filter((l) => l.level === level);
  }
}
