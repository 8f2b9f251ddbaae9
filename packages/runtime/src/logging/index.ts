/**
 * Structured logging: the one {@link Logger} type the runtime takes and hands
 * out, and pino loggers made for it (JSON by default, pretty on a terminal).
 */
export { createLogger, type LoggerOptions, type LogFormat, type LogLevel } from './logger.js';
export { childLogger, silentLogger, type Logger, type LogFields, type LogMethods } from './log.js';
