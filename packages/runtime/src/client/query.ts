/** Query strings of API requests, from the client's option objects. */
import type { LabelSelector } from './options.js';

type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` for the defined values (empty string when none). */
export function queryString(params: Record<string, QueryValue>): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') q.append(key, String(value));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** A label selector in kube's string syntax. */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  if (selector === undefined || typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** `dryRun=All` when asked. */
export function dryRunValue(dryRun: boolean | undefined): string | undefined {
  return dryRun ? 'All' : undefined;
}
