/**
 * Go types whose schema controller-gen fixes by hand rather than derives from
 * their structs (pkg/crd/known_types.go): times, durations, quantities,
 * int-or-strings, raw extensions, and ObjectMeta, which an API type's schema
 * only states to be an object (the API server knows the rest).
 */
import { APIEXTENSIONS_V1, INTSTR, META_V1, RESOURCE, RUNTIME } from '../source/known-imports.js';
import type { JSONSchemaProps } from './props.js';

const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const known: Record<string, () => JSONSchemaProps> = {
  [`${META_V1}.ObjectMeta`]: () => ({ type: 'object' }),
  [`${META_V1}.Time`]: () => ({ type: 'string', format: 'date-time' }),
  [`${META_V1}.MicroTime`]: () => ({ type: 'string', format: 'date-time' }),
  [`${META_V1}.Duration`]: () => ({ type: 'string' }),
  [`${META_V1}.Fields`]: () => ({ type: 'object', additionalProperties: true }),
  [`${RESOURCE}.Quantity`]: () => ({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN }),
  [`${RUNTIME}.RawExtension`]: () => ({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
  [`${INTSTR}.IntOrString`]: () => ({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }),
  [`${APIEXTENSIONS_V1}.JSON`]: () => ({ 'x-kubernetes-preserve-unknown-fields': true }),
  ['k8s.io/apimachinery/pkg/apis/meta/v1/unstructured.Unstructured']: () => ({ type: 'object' }),
};

/** A fresh copy of a known type's schema, if the id is one. */
export function knownSchema(id: string): JSONSchemaProps | undefined {
  return known[id]?.();
}
