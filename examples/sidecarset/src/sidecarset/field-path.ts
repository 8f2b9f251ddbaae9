/**
 * Kubernetes' fieldpath.SplitMaybeSubscriptedPath, for the downward-API paths
 * transferEnv reads a container name from: `metadata.labels['app']` is the
 * path `metadata.labels` and the subscript `app`.
 */
export function splitSubscriptedPath(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const i = s.indexOf("['");
  if (i <= 0) return undefined;
  return { path: s.slice(0, i), subscript: s.slice(i + 2) };
}
