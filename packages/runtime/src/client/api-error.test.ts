/**
 * One family of error checks (issue 18): every `isX` accepts any StatusError
 * (an ApiError is one) and looks through `cause`; the `ignoreX` helpers turn
 * their error into undefined and rethrow anything else; the old names still
 * work for one release.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, type Status, type StatusReason } from '@operant/apimachinery';
import {
  ApiError,
  apiErrorFromResponse,
  ignoreAlreadyExists,
  ignoreConflict,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isTooManyRequests,
  isUnauthorized,
} from './api-error.js';
import { isConflictError } from '../controller/errors.js';

const apiError = (code: number, reason: StatusReason): ApiError =>
  apiErrorFromResponse(code, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message: reason }), 'GET /x');

const checks: Array<[(err: unknown) => boolean, number, StatusReason]> = [
  [isNotFound, 404, 'NotFound'],
  [isConflict, 409, 'Conflict'],
  [isAlreadyExists, 409, 'AlreadyExists'],
  [isForbidden, 403, 'Forbidden'],
  [isUnauthorized, 401, 'Unauthorized'],
  [isInvalid, 422, 'Invalid'],
  [isBadRequest, 400, 'BadRequest'],
  [isGone, 410, 'Gone'],
  [isResourceExpired, 410, 'Expired'],
  [isTooManyRequests, 429, 'TooManyRequests'],
];

test('an ApiError is a StatusError that keeps the Status the server sent', () => {
  const err = apiError(404, 'NotFound');
  assert.ok(err instanceof StatusError);
  assert.equal(err.name, 'ApiError');
  assert.equal(err.code, 404);
  assert.equal(err.reason, 'NotFound');
  assert.equal(err.request, 'GET /x');
  const sent: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 429, reason: 'TooManyRequests', message: 'slow down', details: { retryAfterSeconds: 3 } };
  const throttled = new ApiError(sent, 'GET /y');
  assert.equal(throttled.status, sent);
  assert.equal(throttled.details?.retryAfterSeconds, 3);
});

for (const [check, code, reason] of checks) {
  test(`${check.name} holds for an ApiError, a StatusError, and either wrapped in cause; not for others`, () => {
    assert.ok(check(apiError(code, reason)));
    assert.ok(check(new StatusError(code, reason, reason)));
    assert.ok(check(new Error('outer', { cause: new Error('inner', { cause: apiError(code, reason) }) })));
    assert.ok(!check(new Error(reason)));
    assert.ok(!check({ code, reason }), 'a plain object is not an API error');
    const other = reason === 'NotFound' ? apiError(409, 'Conflict') : apiError(404, 'NotFound');
    assert.ok(!check(other));
  });
}

test('ignoreAlreadyExists and ignoreConflict: their error becomes undefined, also wrapped; anything else is rethrown', async () => {
  const exists = apiError(409, 'AlreadyExists');
  const conflict = apiError(409, 'Conflict');
  assert.equal(ignoreAlreadyExists(exists), undefined);
  assert.equal(ignoreAlreadyExists(new Error('creating', { cause: exists })), undefined);
  assert.equal(await Promise.reject(exists).catch(ignoreAlreadyExists), undefined);
  assert.throws(() => ignoreAlreadyExists(conflict), (e: unknown) => e === conflict);
  assert.equal(ignoreConflict(conflict), undefined);
  assert.equal(ignoreConflict(new Error('updating', { cause: conflict })), undefined);
  assert.throws(() => ignoreConflict(exists), (e: unknown) => e === exists);
  const plain = new Error('backend down');
  assert.throws(() => ignoreConflict(plain), (e: unknown) => e === plain);
});

test('deprecated: isConflictError is isConflict', () => {
  assert.equal(isConflictError, isConflict);
  assert.ok(isConflictError(new Error('updating status', { cause: apiError(409, 'Conflict') })));
});
