/**
 * Tying cleanup to a test without depending on a test runner: whatever the
 * toolkit creates for a test is an AsyncDisposable (`await using`, or call
 * `dispose()`), and may also be handed a scope to register its cleanup with:
 * node:test's test context (`t`, whose `after` runs when the test ends) or
 * any function that takes a callback (vitest's `onTestFinished`, node:test's `after`).
 *
 * What one test context gets is undone in reverse order, whatever order the
 * runner runs its hooks in: a manager started through a fault proxy stops
 * before the proxy does. (A function scope cannot be told apart from one test
 * to the next, so its callbacks are handed to it one by one.)
 */

/**
 * Where a test registers what to do when it ends.
 *
 * @example
 * ```ts
 * import { test } from 'node:test';
 * import type { TestScope } from '@operant/testing';
 *
 * test('with node:test', async (t) => {
 *   const scope: TestScope = t;                                 // t.after(fn)
 * });
 * declare const onTestFinished: (fn: () => Promise<void>) => void; // vitest
 * const vitestScope: TestScope = onTestFinished;
 * ```
 */
export type TestScope = { after(fn: () => Promise<void>): unknown } | ((fn: () => Promise<void>) => unknown);

/** The cleanups registered with test scopes, undone last first per test context. */
export class ScopedCleanups {
  private readonly stacks = new WeakMap<object, Array<() => Promise<void>>>();

  /** Runs `cleanup` when `scope` ends (nothing without a scope). */
  add(scope: TestScope | undefined, cleanup: () => Promise<void>): void {
    if (!scope) return;
    if (typeof scope === 'function') {
      scope(cleanup);
      return;
    }
    let stack = this.stacks.get(scope);
    if (stack) {
      stack.push(cleanup);
      return;
    }
    stack = [cleanup];
    this.stacks.set(scope, stack);
    const mine = stack;
    scope.after(async () => {
      this.stacks.delete(scope);
      const errors: unknown[] = [];
      for (const c of mine.reverse()) await c().catch((err: unknown) => errors.push(err));
      if (errors.length === 1) throw errors[0];
      if (errors.length > 1) throw new AggregateError(errors, 'cleaning up after the test');
    });
  }
}
