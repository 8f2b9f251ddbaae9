/**
 * A reconcile's logger is made only when it logs: the lines are those of an
 * eager child, and a pino logger whose level drops a line makes no child for it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { deferredChildLogger } from './deferred-child.js';
import { childLogger } from './log.js';

function capture(level: string): { logger: pino.Logger; lines: () => Array<Record<string, unknown>>; children: () => number } {
  const out: string[] = [];
  const logger = pino({ level, base: null, timestamp: false }, new Writable({ write: (chunk, _enc, done) => (out.push(String(chunk)), done()) }));
  let made = 0;
  const child = logger.child.bind(logger);
  logger.child = ((bindings: pino.Bindings) => (made++, child(bindings))) as typeof logger.child;
  return { logger, lines: () => out.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>), children: () => made };
}

test('writes the lines an eager child writes, bindings and all', () => {
  const eager = capture('info');
  const deferred = capture('info');
  const bindings = { controller: 'web', namespace: 'default', name: 'a', reconcileID: 'r1' };
  for (const [log] of [[childLogger(eager.logger, bindings)], [deferredChildLogger(deferred.logger, bindings)]] as const) {
    log.debug({ n: 0 }, 'dropped');
    log.info({ n: 1 }, 'kept');
    log.child({ step: 'two' }).error({ n: 2 }, 'also kept');
  }
  assert.deepEqual(deferred.lines(), eager.lines());
  assert.equal(deferred.lines().length, 2);
});

test('makes no child while every line is below the level, and one at the first line written', () => {
  const { logger, children } = capture('warn');
  const log = deferredChildLogger(logger, { name: 'a' });
  log.debug({}, 'Reconciling');
  log.info({}, 'Reconcile successful');
  assert.equal(children(), 0);
  log.warn({}, 'slow');
  log.error({}, 'failed');
  assert.equal(children(), 1);
});

test('a logger that cannot tell its level gets its child at the first line, whatever the level', () => {
  const seen: string[] = [];
  const sink = { debug: () => seen.push('debug'), info: () => seen.push('info'), warn: () => seen.push('warn'), error: () => seen.push('error') };
  deferredChildLogger(sink, { name: 'a' }).debug({}, 'Reconciling');
  assert.deepEqual(seen, ['debug']);
});
