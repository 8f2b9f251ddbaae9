/**
 * Structured logging with pino: JSON by default, pretty on a terminal.
 */
export { createLogger, type LoggerOptions, type LogFormat, type LogLevel } from './logger.js';
