/**
 * `converges`: the state reaches what a check accepts and then stays put.
 * Eventually alone is not enough for controllers: a check can pass while the
 * operator is still writing (and about to undo it), or pass on a state that
 * flaps. So once the check passes, nothing may change for `quiet` ms (seen
 * through watches on the kinds that matter, see {@link openChangeTracker}), and
 * the check must still pass at the end of that quiet period. A change during
 * it starts the wait over. The check runs again on every change, and every
 * `interval` ms besides.
 */
import type { Client, Kind } from '@operant/runtime';
import { describePlayed, type ChaosReport } from '../chaos/report.js';
import type { ChaosSchedule } from '../chaos/schedule.js';
import { openChangeTracker, type Changes } from './change-tracker.js';
import { attempt, describeFailure, describeValue, sleep, type Outcome } from './outcome.js';
import { WaitError } from './wait-error.js';

/**
 * Options of `converges`.
 *
 * @example
 * ```ts
 * import { Deployment } from '@operant/runtime';
 * import type { ConvergesOptions } from '@operant/testing';
 *
 * const options: ConvergesOptions = { within: 30_000, quiet: 1_000, namespace: 'team-a', kinds: [Deployment] };
 * ```
 */
export interface ConvergesOptions {
  /** The time allowed for both, ms; default 10,000. */
  within?: number;
  /** How long nothing may change once the check passes, ms; default 500. */
  quiet?: number;
  /** The kinds whose changes count; default the test environment's (its CRDs' kinds and the common built-in workload kinds). */
  kinds?: readonly Kind[];
  /** Count only changes in this namespace (cluster-scoped kinds count everywhere). */
  namespace?: string;
  /** Re-check at least this often while the check fails, ms; default 100. */
  interval?: number;
  message?: string;
  /**
   * The chaos schedule played before (its report, or the schedule), shown in
   * the failure: its seed and faults, to replay it. `env.converges` finds the
   * one its fault proxies played last when this is not given.
   */
  schedule?: ChaosReport | ChaosSchedule;
}

/**
 * Resolves with the check's value once the state passes `check` and nothing
 * has changed for `quiet` ms; rejects with a {@link WaitError} after `within`
 * saying which of the two never happened, with the last failure or the last change.
 * Starting its watches counts against `within`: a server that never answers
 * their lists makes it fail at the deadline (after one check), naming the
 * kinds it could not list, rather than wait for ever. A check runs to its end
 * (it is not abandoned half way), so a check that can block needs its own timeout.
 *
 * @example
 * ```ts
 * import assert from 'node:assert/strict';
 * import { Deployment } from '@operant/runtime';
 * import { converges } from '@operant/testing';
 *
 * await converges(client, async () => {
 *   const { items } = await client.list(Deployment, { namespace: 'team-a' });
 *   assert.equal(items.length, 3);
 * }, { kinds: [Deployment], namespace: 'team-a', within: 15_000, quiet: 1_000 });
 * ```
 */
export async function converges<T>(client: Client, check: () => T | Promise<T>, options: ConvergesOptions & { kinds: readonly Kind[] }): Promise<T> {
  return convergesSeeing(() => openChangeTracker(client, options.kinds, options.namespace), check, options);
}

/**
 * `converges`, seeing changes through what `changes` opens when it starts
 * (watches of its own, or a view on watches kept open between calls), and
 * closes when it ends.
 */
export async function convergesSeeing<T>(changes: () => Changes, check: () => T | Promise<T>, options: ConvergesOptions): Promise<T> {
  const within = options.within ?? 10_000;
  const quiet = options.quiet ?? 500;
  const interval = options.interval ?? 100;
  const started = performance.now();
  const deadline = started + within;
  // The watches start within the time allowed too: a server that does not
  // answer a list must not hold converges past its deadline.
  const tracker = changes();
  let tries = 0;
  let last: Outcome<T> | undefined;
  let unwatched: string[] = [];
  try {
    const watching = await settlesBy(tracker.ready, deadline);
    if (!watching) {
      // As when the watches start late: the check runs once, and the failure says how that went.
      unwatched = tracker.unready();
      tries++;
      last = await attempt(check);
    }
    while (watching) {
      tries++;
      const checkedAt = performance.now();
      const outcome = await attempt(check);
      last = outcome;
      if (outcome.ok) {
        // Quiet from the later of this check and the last change seen.
        const quietSince = Math.max(checkedAt, tracker.lastChange);
        const quietUntil = quietSince + quiet;
        if (quietUntil > deadline) {
          await waitFor(tracker, deadline - performance.now());
          break;
        }
        const seen = tracker.changes;
        const changed = await waitFor(tracker, quietUntil - performance.now());
        if (!changed) {
          // Quiet: the check must still hold at the end of it.
          const final = await attempt(check);
          tries++;
          last = final;
          // A process held up past the end of the quiet period (a busy event loop, a machine that set it
          // aside) runs its expired timers before it reads its sockets: a change the watches received
          // meanwhile is read in the next turn's I/O. It starts the quiet period over, as it would have.
          await new Promise((resolve) => setImmediate(resolve));
          if (final.ok && tracker.changes === seen) return final.value;
        }
        continue;
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      await waitFor(tracker, Math.min(interval, remaining));
      // Many changes at once (a controller's burst) need one check, not one each.
      await sleep(5);
    }
  } finally {
    await tracker.close();
  }
  const head = options.message ? `converges ${options.message}` : 'converges';
  const ago = Math.round(performance.now() - tracker.lastChange);
  let what: string;
  if (last && !last.ok) {
    what = `not converged within ${within} ms: the check still fails (${tries} tries)\n  ${describeFailure(last)}`;
  } else if (unwatched.length > 0 && tracker.changes === 0) {
    what =
      `not quiet within ${within} ms: the check passes, but the watches never started (${unwatched.join(', ')} still not listed), so nothing was seen to settle` +
      passedWith(last);
  } else {
    // The watches that did start saw changes: that is the news, whatever the others did.
    what =
      `not quiet within ${within} ms: the check passes, but objects kept changing ` +
      `(${tracker.changes} changes; the last, ${tracker.lastChangeDescription || 'none'}, ${ago} ms ago; quiet needs ${quiet} ms)` +
      passedWith(last) +
      (unwatched.length > 0 ? `\n  not watched: ${unwatched.join(', ')} (still not listed)` : '');
  }
  const played = options.schedule ? `\n${indentPlayed(options.schedule)}` : '';
  throw new WaitError(`${head}: ${what}${played}`, 'converges', tries, last && 'value' in last ? last.value : undefined, {
    cause: last && 'error' in last ? last.error : undefined,
  });
}

/** The value a passing check returned, as a line of the failure; none for a check of assertions, which returns nothing. */
function passedWith(last: Outcome<unknown> | undefined): string {
  return last && last.ok && last.value !== undefined ? `\n  last value: ${describeValue(last.value)}` : '';
}

/** True when `p` settled before `deadline` (performance.now()), false when the time ran out first. */
async function settlesBy(p: Promise<unknown>, deadline: number): Promise<boolean> {
  const ac = new AbortController();
  const settled = p.then(
    () => true,
    () => true,
  );
  const late = sleep(deadline - performance.now(), ac.signal).then(() => false);
  try {
    return await Promise.race([settled, late]);
  } finally {
    ac.abort();
  }
}

/** True when a change came within `ms`, false when the time ran out first. */
async function waitFor(tracker: Changes, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  return settlesBy(tracker.nextChange(), performance.now() + ms);
}

/** The schedule played before, as a failure report's lines. */
export function indentPlayed(played: ChaosReport | ChaosSchedule): string {
  return `  after ${describePlayed(played).split('\n').join('\n  ')}`;
}
