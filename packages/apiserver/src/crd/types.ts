/** The apiextensions.k8s.io/v1 CustomResourceDefinition fields the server reads. */
import type { KubeObject, OpenApiSchema } from '@operant/apimachinery';

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: OpenApiSchema };
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  caBundle?: string;
}

export interface CrdSpec {
  group: string;
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster' | string;
  versions: CrdVersion[];
  conversion?: {
    strategy: 'None' | 'Webhook' | string;
    webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
  };
  preserveUnknownFields?: boolean;
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: Partial<CrdNames>;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CrdSpec;
  status?: CrdStatus;
}

export function asCrd(obj: KubeObject): CustomResourceDefinition {
  return obj as CustomResourceDefinition;
}

/** The finalizer that keeps a CRD until its custom resources are deleted. */
export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';
