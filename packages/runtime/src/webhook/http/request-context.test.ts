/**
 * The per-request context: its signal is made on first read, and a request
 * that ended (timed out, client gone) before the handler looked still shows
 * as aborted, with the first reason.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestContext } from './request-context.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

describe('RequestContext', () => {
  test('a signal read before the abort aborts with the reason', () => {
    const ctx = new RequestContext(quiet, undefined);
    const signal = ctx.signal;
    assert.equal(signal.aborted, false);
    assert.equal(ctx.signal, signal, 'one signal per request');
    ctx.abort(new Error('timed out'));
    assert.equal(signal.aborted, true);
    assert.equal((signal.reason as Error).message, 'timed out');
  });

  test('a signal first read after the abort is already aborted, with the first reason', () => {
    const ctx = new RequestContext(quiet, undefined);
    ctx.abort(new Error('the client closed the connection'));
    ctx.abort(new Error('timed out'));
    assert.equal(ctx.signal.aborted, true);
    assert.equal((ctx.signal.reason as Error).message, 'the client closed the connection');
  });

  test('carries the logger it was given', () => {
    assert.equal(new RequestContext(quiet, undefined).log, quiet);
  });
});
