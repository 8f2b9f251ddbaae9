/** The registry of every marker the generator reads. */
import { crdMarkerDefinitions } from './crd-markers.js';
import { rbacMarkerDefinitions, webhookMarkerDefinitions } from './rbac-webhook-markers.js';
import { MarkerRegistry } from './registry.js';

let registry: MarkerRegistry | undefined;

/** The shared registry of CRD, RBAC and webhook markers. */
export function markerRegistry(): MarkerRegistry {
  return (registry ??= new MarkerRegistry([...crdMarkerDefinitions(), ...rbacMarkerDefinitions(), ...webhookMarkerDefinitions()]));
}
