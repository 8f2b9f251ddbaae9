/**
 * For tests: the error a promise rejects with, to assert on its class and
 * fields; fails the test when the promise resolves.
 */
import assert from 'node:assert/strict';

/**
 * Awaits `p` and returns what it rejected with.
 *
 * @example
 * ```ts
 * const e = await rejection(client.get(ConfigMap, 'missing', { namespace: 'default' }));
 * assert.ok(isNotFound(e));
 * ```
 */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}
