/**
 * Resource quantities (`100m`, `1.5`, `256Mi`, `1e3`) read as integer
 * thousandths of their unit: millicores for cpu, millibytes for memory. Sums of
 * requests then stay exact, as kube's resource.Quantity keeps them.
 */

const decimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };
const binary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const pattern = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/**
 * The quantity in thousandths of its unit, rounded up as kube's MilliValue
 * rounds (`100m` 100, `2` 2000, `1Ki` 1024000); undefined for text that is no quantity.
 */
export function milliValue(q: string | number | undefined): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? Math.ceil(q * 1000) : undefined;
  if (typeof q !== 'string') return undefined;
  const m = pattern.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  const scale = m[2] ? 10 ** Number(m[2].slice(1)) : m[3] && m[3] in binary ? binary[m[3]]! : decimal[m[3] ?? '']!;
  // Round away float noise first (0.1 * 1000 is 100.00000000000001), then up.
  return Math.ceil(Number((base * scale * 1000).toPrecision(15)));
}
