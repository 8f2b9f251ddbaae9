/**
 * Resource lists (`{ pods: '2', 'requests.memory': '256Mi' }`) and the
 * arithmetic ResourceQuota needs on them, as k8s.io/apiserver's pkg/quota/v1
 * does it: exact sums that keep the first non-zero operand's format (so
 * memory sums stay in `Mi`), masks, comparisons against hard limits, and the
 * `key=value,...` form quota messages print.
 */
import { Quantity } from '../cel/quantity.js';
import { formatQuantity, quantityFormat, type QuantityFormat } from '../quantity/canonical.js';

/** Resource names to quantities, as on the wire (JSON may carry a number). */
export type ResourceList = Record<string, string | number>;

interface Amount {
  value: Quantity;
  format: QuantityFormat;
}

function amountOf(q: string | number): Amount {
  const text = typeof q === 'number' ? String(q) : q.trim();
  return { value: Quantity.parse(text), format: quantityFormat(text) };
}

const written = (a: Amount): string => formatQuantity(a.value, a.format);

/** resource.Quantity's Add: a zero takes the other operand's format. */
function plus(a: Amount, b: Amount): Amount {
  return { value: a.value.add(b.value), format: a.value.sign() === 0 ? b.format : a.format };
}

/**
 * quota.Add: every resource of either list, summed where both have it.
 *
 * @example
 * addResources({ 'requests.memory': '128Mi', pods: '1' }, { 'requests.memory': '128Mi' }); // { 'requests.memory': '256Mi', pods: '1' }
 */
export function addResources(a: ResourceList, b: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(a)) out[key] = key in b ? written(plus(amountOf(value), amountOf(b[key]!))) : written(amountOf(value));
  for (const [key, value] of Object.entries(b)) if (!(key in out)) out[key] = written(amountOf(value));
  return out;
}

/**
 * quota.Max: every resource of either list, the larger amount where both have it.
 *
 * @example
 * maxResources({ cpu: '1' }, { cpu: '1500m', memory: '1Gi' }); // { cpu: '1500m', memory: '1Gi' }
 */
export function maxResources(a: ResourceList, b: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(a)) {
    const x = amountOf(value);
    const y = key in b ? amountOf(b[key]!) : undefined;
    out[key] = written(y && y.value.compare(x.value) > 0 ? y : x);
  }
  for (const [key, value] of Object.entries(b)) if (!(key in out)) out[key] = written(amountOf(value));
  return out;
}

/**
 * quota.SubtractWithNonNegativeResult: `a - b` per resource of `a`, never below zero.
 *
 * @example
 * subtractNonNegative({ 'services.nodeports': '2' }, { 'services.nodeports': '3' }); // { 'services.nodeports': '0' }
 */
export function subtractNonNegative(a: ResourceList, b: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(a)) {
    const x = amountOf(value);
    if (!(key in b)) {
      out[key] = written(x);
      continue;
    }
    const diff = x.value.sub(amountOf(b[key]!).value);
    out[key] = diff.sign() < 0 ? '0' : formatQuantity(diff, x.format);
  }
  return out;
}

/**
 * quota.Mask: only the named resources.
 *
 * @example
 * maskResources({ pods: '1', cpu: '1' }, ['pods']); // { pods: '1' }
 */
export function maskResources(list: ResourceList, names: Iterable<string>): Record<string, string> {
  const keep = new Set(names);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(list)) if (keep.has(key)) out[key] = written(amountOf(value));
  return out;
}

/**
 * quota.RemoveZeros.
 *
 * @example
 * removeZeroResources({ pods: '1', 'services.nodeports': '0' }); // { pods: '1' }
 */
export function removeZeroResources(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(list)) {
    const a = amountOf(value);
    if (a.value.sign() !== 0) out[key] = written(a);
  }
  return out;
}

/**
 * quota.IsNegative: the resources below zero.
 *
 * @example
 * negativeResources({ pods: '-1' }); // ['pods']
 */
export function negativeResources(list: ResourceList): string[] {
  return Object.entries(list)
    .filter(([, v]) => amountOf(v).value.sign() < 0)
    .map(([k]) => k);
}

/**
 * quota.LessThanOrEqual's second answer: the resources of `hard` that `usage` exceeds.
 *
 * @example
 * exceededResources({ pods: '3' }, { pods: '2', cpu: '1' }); // ['pods']
 */
export function exceededResources(usage: ResourceList, hard: ResourceList): string[] {
  return Object.entries(hard)
    .filter(([key, limit]) => key in usage && amountOf(usage[key]!).value.compare(amountOf(limit).value) > 0)
    .map(([key]) => key);
}

/**
 * quota.Equals: the same resources with equal amounts (`1Gi` equals `1024Mi`).
 *
 * @example
 * sameResources({ memory: '1Gi' }, { memory: '1024Mi' }); // true
 */
export function sameResources(a: ResourceList, b: ResourceList): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k in b && amountOf(a[k]!).value.compare(amountOf(b[k]!).value) === 0);
}

/**
 * The quota admission's prettyPrint: `name=value` sorted by name, joined by commas.
 *
 * @example
 * printResources({ pods: '2', 'count/pods': '2' }); // 'count/pods=2,pods=2'
 */
export function printResources(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((k) => `${k}=${written(amountOf(list[k]!))}`)
    .join(',');
}
