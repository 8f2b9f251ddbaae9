/**
 * ignoreNotFound (issue 19: the ReconcileFunc example called it, and nothing
 * exported it): a NotFound, also wrapped, becomes undefined; anything else,
 * including a kind that is not served, is rethrown as it was.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiErrorFromResponse } from '../client/api-error.js';
import { NoKindMatchError } from '../no-kind-match.js';
import { ignoreNotFound } from '../client/api-error.js';

const status = (code: number, reason: string): string => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message: reason });
const notFound = apiErrorFromResponse(404, status(404, 'NotFound'), 'GET /api/v1/namespaces/default/configmaps/gone');
const conflict = apiErrorFromResponse(409, status(409, 'Conflict'), 'PUT /api/v1/namespaces/default/configmaps/busy');

test('a NotFound, as is or wrapped in a cause, becomes undefined', async () => {
  assert.equal(ignoreNotFound(notFound), undefined);
  assert.equal(ignoreNotFound(new Error('reading the settings', { cause: notFound })), undefined);
  const read: { data: Record<string, string> } | undefined = await Promise.reject<{ data: Record<string, string> }>(notFound).catch(ignoreNotFound);
  assert.equal(read, undefined);
});

test('anything else is rethrown unchanged', () => {
  for (const err of [conflict, new Error('backend down', { cause: conflict }), new NoKindMatchError({ group: 'batch', version: 'v1', kind: 'Job' }), 'a string']) {
    assert.throws(
      () => ignoreNotFound(err),
      (thrown: unknown) => thrown === err,
    );
  }
});
