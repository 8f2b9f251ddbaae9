/**
 * The OpenAPI definitions kube publishes for a custom resource: the CRD
 * version's schema with apiVersion, kind and a standard ObjectMeta, tagged with
 * its group-version-kind, and the matching List kind.
 */
import { deepCopy, type OpenApiSchema } from '@operant/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import { kindDefinitionName, listDefinitionName } from './document.js';
import { schemaRef } from './builtin-schemas.js';

const apiVersionProperty: OpenApiSchema = {
  type: 'string',
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
};
const kindProperty: OpenApiSchema = {
  type: 'string',
  description:
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
};

/** The kind and list definitions of one custom resource version, keyed by definition name. */
export function customResourceDefinitions(info: ResourceInfo): Record<string, OpenApiSchema> {
  const gvk = (kind: string) => [{ group: info.group, version: info.version, kind }];
  const kind: OpenApiSchema = deepCopy(info.custom?.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  kind.properties = {
    ...kind.properties,
    apiVersion: apiVersionProperty,
    kind: kindProperty,
    metadata: {
      description: 'Standard object\'s metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
      allOf: [{ $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') }],
    },
  };
  kind.type ??= 'object';
  kind['x-kubernetes-group-version-kind'] = gvk(info.kind);
  const list: OpenApiSchema = {
    description: `${info.kind}List is a list of ${info.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: apiVersionProperty,
      kind: kindProperty,
      items: { type: 'array', description: `List of ${info.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: schemaRef(kindDefinitionName(info)) } },
      metadata: { description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', allOf: [{ $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta') }] },
    },
    'x-kubernetes-group-version-kind': gvk(info.listKind),
  };
  return { [kindDefinitionName(info)]: kind, [listDefinitionName(info)]: list };
}
