/** Which answers ask for a retry, read as client-go's checkWait reads them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryAfterMs } from './retry-after.js';

test('429 and 5xx with whole seconds of Retry-After ask for a retry; nothing else does', () => {
  assert.equal(retryAfterMs(429, '2'), 2000);
  assert.equal(retryAfterMs(503, '1'), 1000);
  assert.equal(retryAfterMs(500, ' 3 '), 3000);
  assert.equal(retryAfterMs(504, ['1', '9']), 1000);
  assert.equal(retryAfterMs(429, '0'), 0);
  assert.equal(retryAfterMs(429, '-5'), 0, 'a negative delay means at once, as time.Sleep takes it');
  assert.equal(retryAfterMs(429, '+4'), 4000, 'strconv.Atoi accepts a sign');
  assert.equal(retryAfterMs(429, undefined), undefined);
  assert.equal(retryAfterMs(503, ''), undefined);
  assert.equal(retryAfterMs(429, 'Wed, 21 Oct 2026 07:28:00 GMT'), undefined, 'an HTTP date is not read, as by client-go');
  assert.equal(retryAfterMs(429, '1.5'), undefined);
  assert.equal(retryAfterMs(409, '1'), undefined);
  assert.equal(retryAfterMs(404, '1'), undefined);
  assert.equal(retryAfterMs(200, '1'), undefined);
});
