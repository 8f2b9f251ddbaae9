/**
 * Where the SidecarSets' ControllerRevisions live: the operator's own
 * namespace (ordinary users should not write there), as Kruise keeps them in
 * its own. Read from POD_NAMESPACE, which config/manager sets from the
 * downward API (Kruise's webhookutil.GetNamespace); `sidecarset-system`, the
 * namespace config/default deploys into, when it is not set (a local run).
 */
export function operatorNamespace(): string {
  return process.env.POD_NAMESPACE || 'sidecarset-system';
}
