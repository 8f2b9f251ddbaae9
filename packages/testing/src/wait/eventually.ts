/**
 * Gomega's Eventually and Consistently for promises. A check is a function;
 * it fails by throwing (an assertion) or by returning `false`, and passes
 * otherwise. `eventually` runs it until it passes; `consistently` runs it for
 * a while and fails at the first failure. Each failure message carries what
 * the check last did (its error, or the value it returned), because "timed
 * out" alone sends the reader back to add logging.
 */
import { attempt, describeFailure, sleep, type Outcome } from './outcome.js';
import { WaitError } from './wait-error.js';

/**
 * Options of {@link eventually}.
 *
 * @example
 * ```ts
 * import type { EventuallyOptions } from '@operant/testing';
 *
 * const slowCluster: EventuallyOptions = { timeout: 30_000, interval: 250, message: 'the Deployment gets 3 replicas' };
 * ```
 */
export interface EventuallyOptions {
  /** How long to keep trying, ms; default 5,000. */
  timeout?: number;
  /** Pause between tries, ms; default 50. */
  interval?: number;
  /** Says what was awaited, at the head of the failure message. */
  message?: string;
  /** Gives up (rejecting) when aborted. */
  signal?: AbortSignal;
}

/**
 * Runs `check` until it passes (neither throws nor returns `false`) and
 * resolves with what it returned; rejects with a {@link WaitError} naming the
 * last error or value when `timeout` passes first. A try still running at the
 * deadline counts as a failure.
 *
 * A check that fails with `assert.ok(x)` and no message makes Node read and
 * parse the test's source to word the failure, once per call site (Node
 * caches it by file, line and column): 15 to 180 ms measured under tsx, where
 * a failing try otherwise costs about a millisecond. Give such asserts a
 * message, or let {@link eventuallyFound} wait for a value.
 *
 * @example
 * ```ts
 * import assert from 'node:assert/strict';
 * import { Deployment } from '@operant/runtime';
 * import { eventually } from '@operant/testing';
 *
 * const web = await eventually(async () => {
 *   const d = await client.get(Deployment, 'web', { namespace: 'default' });
 *   assert.equal(d.spec?.replicas, 3);
 *   return d;
 * }, { timeout: 10_000 });
 * // on timeout: "eventually: still failing after 10000 ms (187 tries)
 * //   last error: AssertionError: Expected values to be strictly equal: 2 !== 3"
 * ```
 */
export function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  return retry(check, (value) => value !== false, options);
}

/**
 * Runs `find` until it finds something (returns a value other than
 * `undefined`, `null` or `false`) and resolves with it; rejects like
 * {@link eventually}, naming the last value or error. Waiting for an object
 * to show up needs no assertion, so a failed try costs nothing to describe.
 *
 * @example
 * ```ts
 * import { eventuallyFound } from '@operant/testing';
 *
 * declare const deployments: import('@operant/runtime').Informer<import('@operant/runtime').Typed<import('kubernetes-types/apps/v1.js').Deployment>>;
 * const web = await eventuallyFound(() => deployments.store.get('default/web'), { message: 'the Deployment', timeout: 10_000 });
 * await eventuallyFound(() => deployments.store.get('default/web')?.spec?.replicas === 3, { message: 'the Deployment at 3 replicas' });
 * // on timeout: "eventually the Deployment: still failing after 10000 ms (187 tries)
 * //   last value: undefined"
 * ```
 */
export function eventuallyFound<T>(find: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: EventuallyOptions = {}): Promise<T> {
  return retry(find, (value) => value !== undefined && value !== null && value !== false, options) as Promise<T>;
}

async function retry<T>(check: () => T | Promise<T>, passes: (value: T) => boolean, options: EventuallyOptions): Promise<T> {
  const timeout = options.timeout ?? 5000;
  const interval = options.interval ?? 50;
  const deadline = performance.now() + timeout;
  let tries = 0;
  let last: Outcome<T> | undefined;
  for (;;) {
    tries++;
    const outcome = await beforeDeadline(attempt(check, passes), deadline);
    if (outcome?.ok) return outcome.value;
    if (outcome) last = outcome;
    if (options.signal?.aborted) throw fail(`aborted after ${tries} tries`);
    const remaining = deadline - performance.now();
    if (remaining <= 0 || !outcome) throw fail(`still failing after ${timeout} ms (${tries} ${tries === 1 ? 'try' : 'tries'})${outcome ? '' : '; the last try was still running'}`);
    await sleep(Math.min(interval, remaining), options.signal);
  }

  function fail(what: string): WaitError {
    const head = options.message ? `eventually ${options.message}: ${what}` : `eventually: ${what}`;
    return new WaitError(`${head}\n  ${describeFailure(last)}`, 'eventually', tries, last && 'value' in last ? last.value : undefined, {
      cause: last && 'error' in last ? last.error : undefined,
    });
  }
}

/**
 * Options of {@link consistently}.
 *
 * @example
 * ```ts
 * import type { ConsistentlyOptions } from '@operant/testing';
 *
 * const options: ConsistentlyOptions = { duration: 2_000, interval: 100, message: 'no second Deployment appears' };
 * ```
 */
export interface ConsistentlyOptions {
  /** How long the check must keep passing, ms; default 1,000. */
  duration?: number;
  /** Pause between tries, ms; default 50. */
  interval?: number;
  message?: string;
  signal?: AbortSignal;
}

/**
 * Runs `check` again and again for `duration`; rejects with a
 * {@link WaitError} at the first failure (saying when, and what it saw), and
 * resolves with the last value otherwise.
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 * import { consistently } from '@operant/testing';
 *
 * await consistently(async () => (await client.list(Deployment, { namespace: 'default' })).items.length === 1, { duration: 2_000 });
 * // on failure: "consistently: failed after 420 ms of 2000 ms (try 9)
 * //   value: false"
 * ```
 */
export async function consistently<T>(check: () => T | Promise<T>, options: ConsistentlyOptions = {}): Promise<T> {
  const duration = options.duration ?? 1000;
  const interval = options.interval ?? 50;
  const started = performance.now();
  const end = started + duration;
  for (let tries = 1; ; tries++) {
    const outcome = await attempt(check);
    const elapsed = Math.round(performance.now() - started);
    if (!outcome.ok) {
      const head = options.message ? `consistently ${options.message}` : 'consistently';
      throw new WaitError(`${head}: failed after ${elapsed} ms of ${duration} ms (try ${tries})\n  ${describeFailure(outcome, 'got')}`, 'consistently', tries, 'value' in outcome ? outcome.value : undefined, {
        cause: 'error' in outcome ? outcome.error : undefined,
      });
    }
    const remaining = end - performance.now();
    if (remaining <= 0) return outcome.value;
    if (options.signal?.aborted) throw new WaitError(`consistently: aborted after ${elapsed} ms of ${duration} ms`, 'consistently', tries);
    await sleep(Math.min(interval, remaining), options.signal);
  }
}

/** The outcome, or undefined when the deadline passes first. */
async function beforeDeadline<T>(p: Promise<Outcome<T>>, deadline: number): Promise<Outcome<T> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - performance.now()))));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
