/**
 * What childLogger returns always has `child` (logr's WithValues), whatever
 * logger it wraps: pino's (its own child), one without child (fields merged),
 * and one whose child returns a logger without child of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LogFields } from '../cache/logger.js';
import { CapturingLogger } from '../testdata/capturing-logger.js';
import { jsonLogger } from '../testdata/log-lines.js';
import { childLogger, type ControllerLogger } from './logger.js';

test('a logger without child gets fields merged, and its children bind on top', () => {
  const logs = new CapturingLogger();
  const log = childLogger(logs, { controller: 'cronjob' });
  log.child({ now: 't0' }).child({ nextRun: 't1' }).info({ job: 'a' }, 'scheduled');
  assert.deepEqual(logs.lines, [{ level: 'info', fields: { controller: 'cronjob', now: 't0', nextRun: 't1', job: 'a' }, msg: 'scheduled' }]);
});

test('pino\'s child is used as it is', () => {
  const { logger, lines } = jsonLogger();
  childLogger(logger, { controller: 'cronjob' }).child({ now: 't0' }).info({}, 'scheduled');
  const line = JSON.parse(lines.text.at(-1)!) as LogFields;
  assert.equal(line.controller, 'cronjob');
  assert.equal(line.now, 't0');
});

test('a custom child without child of its own is wrapped, not trusted', () => {
  const logs = new CapturingLogger();
  // A logger whose child binds fields but returns something without child.
  const custom: ControllerLogger = {
    debug: (f, m) => logs.debug(f, m),
    info: (f, m) => logs.info(f, m),
    warn: (f, m) => logs.warn(f, m),
    error: (f, m) => logs.error(f, m),
    child: (bindings) => ({
      debug: (f, m) => logs.debug({ ...bindings, ...f }, m),
      info: (f, m) => logs.info({ ...bindings, ...f }, m),
      warn: (f, m) => logs.warn({ ...bindings, ...f }, m),
      error: (f, m) => logs.error({ ...bindings, ...f }, m),
    }),
  };
  const log = childLogger(custom, { controller: 'cronjob' });
  assert.equal(typeof log.child, 'function');
  log.child({ now: 't0' }).warn({}, 'late');
  assert.deepEqual(logs.lines, [{ level: 'warn', fields: { controller: 'cronjob', now: 't0' }, msg: 'late' }]);
});
