/** JSON helpers: a canonical form, for hashes and for comparing statuses as kube's DeepEqual does. */

/** JSON with object keys sorted at every level, so that key order never changes a hash or a comparison. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
