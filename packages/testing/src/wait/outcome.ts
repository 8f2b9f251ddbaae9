/**
 * One run of a check, as the wait helpers see it: it passed (with its value),
 * or it failed (it threw, or it returned `false`); and how a failure reads in
 * a message, so that a timed-out wait says what it last saw.
 */
import { inspect } from 'node:util';

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown } | { ok: false; value: unknown };

/** Runs `check` once. A check fails by throwing or by returning what `passes` refuses (by default `false`). */
export async function attempt<T>(check: () => T | Promise<T>, passes: (value: T) => boolean = (value) => value !== false): Promise<Outcome<T>> {
  try {
    const value = await check();
    return passes(value) ? { ok: true, value } : { ok: false, value };
  } catch (error) {
    return { ok: false, error };
  }
}

/** `last error: <message>` or `last value: <value>`, indented under a headline. */
export function describeFailure(outcome: Outcome<unknown> | undefined, label = 'last'): string {
  if (!outcome) return `${label}: the check never completed`;
  if ('error' in outcome) return `${label} error: ${describeError(outcome.error)}`;
  return `${label} value: ${describeValue(outcome.value)}`;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const name = error.name && error.name !== 'Error' && !error.message.startsWith(error.name) ? `${error.name}: ` : '';
    return indent(`${name}${error.message}`);
  }
  return describeValue(error);
}

export function describeValue(value: unknown): string {
  return indent(inspect(value, { depth: 6, breakLength: 120, maxArrayLength: 20, maxStringLength: 2000 }));
}

function indent(text: string): string {
  return text.replace(/\n/g, '\n    ');
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}
