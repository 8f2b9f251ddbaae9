/**
 * The few accessors the defaulting functions share. kube's defaulters run on
 * typed Go structs, where "unset" means the zero value: `""` for a string, 0
 * for a number, nil for a pointer, map or slice. Objects here are decoded JSON,
 * so each helper says which of those it treats as unset.
 */
export type Json = Record<string, unknown>;

/** Whether a field is set: a Go pointer field decoded from JSON is nil when absent or null. */
export const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** `v` as a JSON object, or undefined when it is anything else. */
export function asObject(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

/** `v` as a JSON object, or a new empty one when it is anything else (a read of an absent part reads nothing). */
export function asObj(v: unknown): Json {
  return asObject(v) ?? {};
}

/** The object elements of the list `o[key]` (none when it is no list). */
export function objectsAt(o: Json, key: string): Json[] {
  const list = o[key];
  if (!Array.isArray(list)) return [];
  const out: Json[] = [];
  for (const v of list) {
    const o = asObject(v);
    if (o) out.push(o);
  }
  return out;
}

/** The object at `o[key]`, created empty when absent (a Go struct field that always exists). */
export function structAt(o: Json, key: string): Json {
  const existing = asObject(o[key]);
  if (existing) return existing;
  const created: Json = {};
  o[key] = created;
  return created;
}

/** Sets a pointer, map or slice field that is nil (absent or null). */
export function defaultNil(o: Json, key: string, value: unknown): void {
  if (o[key] === undefined || o[key] === null) o[key] = value;
}

/** Sets a string field that is empty (absent, null or `""`). */
export function defaultString(o: Json, key: string, value: string): void {
  if (o[key] === undefined || o[key] === null || o[key] === '') o[key] = value;
}

/** Sets a number field that is zero (absent, null or 0). */
export function defaultNumber(o: Json, key: string, value: number): void {
  if (o[key] === undefined || o[key] === null || o[key] === 0) o[key] = value;
}
