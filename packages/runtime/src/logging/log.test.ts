/**
 * One logger type (issue 18): the runtime's defaults and what `childLogger`
 * makes of a bare sink are Loggers with `child`, and the old names still
 * type-check for one release.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childLogger, silentLogger, type LogFields, type Logger, type LogMethods } from './log.js';
import { stderrLogger, type CacheLogger } from '../cache/logger.js';
import { stderrControllerLogger, type ContextLogger, type ControllerLogger } from '../controller/logger.js';

test('the defaults have a child, and a child of a child still has one', () => {
  for (const logger of [silentLogger, stderrLogger, stderrControllerLogger]) {
    assert.equal(typeof logger.child({ a: 1 }).child({ b: 2 }).child, 'function');
  }
});

test('childLogger makes a Logger of a sink with only the four methods, binding fields on every line', () => {
  const lines: Array<[string, LogFields, string]> = [];
  const sink: LogMethods = {
    debug: (f, m) => lines.push(['debug', f, m]),
    info: (f, m) => lines.push(['info', f, m]),
    warn: (f, m) => lines.push(['warn', f, m]),
    error: (f, m) => lines.push(['error', f, m]),
  };
  const log: Logger = childLogger(sink, { controller: 'web' });
  log.child({ name: 'a' }).warn({ n: 1 }, 'hello');
  assert.deepEqual(lines, [['warn', { controller: 'web', name: 'a', n: 1 }, 'hello']]);
});

test('deprecated: CacheLogger and ControllerLogger accept a bare sink, ContextLogger is Logger', () => {
  const sink: CacheLogger = { debug() {}, info() {}, warn() {}, error() {} };
  const same: ControllerLogger = sink;
  const context: ContextLogger = childLogger(same, {});
  const logger: Logger = context;
  assert.equal(typeof logger.child, 'function');
});
