/**
 * createLogger's level comes from anywhere as a string (issue 19: passing
 * `process.env.LOG_LEVEL` did not type-check): any case and blanks are
 * accepted, blank means unset, and a level pino does not know is refused with
 * a message naming the levels, at once rather than as a pino stack trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';

const sink = (): Writable => new Writable({ write: (_chunk, _enc, done) => done() });

function withEnv<T>(value: string | undefined, fn: () => T): T {
  const saved = process.env.OPERANT_LOG_LEVEL;
  if (value === undefined) delete process.env.OPERANT_LOG_LEVEL;
  else process.env.OPERANT_LOG_LEVEL = value;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.OPERANT_LOG_LEVEL;
    else process.env.OPERANT_LOG_LEVEL = saved;
  }
}

test('a level is any string naming one, in any case, with blanks around', () => {
  const fromEnv: string | undefined = ' DEBUG\n'; // as process.env.LOG_LEVEL may hold it
  assert.equal(createLogger({ level: fromEnv, destination: sink() }).level, 'debug');
  assert.equal(createLogger({ level: 'Warn', destination: sink() }).level, 'warn');
  assert.equal(createLogger({ level: 'silent', destination: sink() }).level, 'silent');
});

test('an unset or blank level falls back to OPERANT_LOG_LEVEL, then info', () => {
  withEnv('error', () => {
    assert.equal(createLogger({ level: undefined, destination: sink() }).level, 'error');
    assert.equal(createLogger({ level: '  ', destination: sink() }).level, 'error');
  });
  withEnv(undefined, () => assert.equal(createLogger({ level: '', destination: sink() }).level, 'info'));
});

test('an unknown level is refused, naming the levels', () => {
  assert.throws(() => createLogger({ level: 'verbose', destination: sink() }), {
    name: 'RangeError',
    message: 'invalid log level "verbose": expected one of trace, debug, info, warn, error, fatal, silent',
  });
  assert.throws(() => createLogger({ level: '4', destination: sink() }), /invalid log level "4"/);
});
