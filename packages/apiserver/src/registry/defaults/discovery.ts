/**
 * discovery.k8s.io/v1 defaults (k8s.io/kubernetes pkg/apis/discovery/v1/
 * defaults.go at 1.32): SetDefaults_EndpointPort.
 */
import { defaultNil, objectsAt, type Json } from './json-fields.js';

/** An EndpointSlice's ports: the name defaults to "" and the protocol to TCP. */
export function defaultEndpointSlice(slice: Json): void {
  for (const port of objectsAt(slice, 'ports')) {
    defaultNil(port, 'name', '');
    defaultNil(port, 'protocol', 'TCP');
  }
}
