/**
 * What the server knows about one served resource: its names, scope, verbs and
 * subresources. Discovery, OpenAPI, routing and Tables all read this one record.
 */
import type { OpenApiSchema } from '@operant/apimachinery';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export const allVerbs: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface ResourceInfo {
  group: string;
  version: string;
  /** The plural, as in URLs: `pods`. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  verbs: Verb[];
  shortNames?: string[];
  categories?: string[];
  /** Subresources served under `<resource>/<name>/<sub>`, e.g. `status`, `scale`, `token`. */
  subresources?: string[];
  /**
   * Field selectors the resource supports besides metadata.name and metadata.namespace,
   * each a path into the object (`spec.nodeName`).
   */
  selectableFields?: string[];
  /**
   * For kinds whose group words a refused field selector with the kind
   * (batch: `field label "x" not supported for "Job"`), that kind.
   */
  fieldLabelKind?: string;
  /** The OpenAPI definition name of the kind, e.g. `io.k8s.api.core.v1.Pod`. */
  definition?: string;
  /** Kinds that are answered, never stored: create-only reviews and token requests, read-only ComponentStatuses. */
  virtual?: boolean;
  /** For custom resources: what the CRD declares for this version. */
  custom?: CustomResourceVersionInfo;
}

/** What a CRD declares for one served version of its resource. */
export interface CustomResourceVersionInfo {
  /** The version's openAPIV3Schema. */
  schema?: OpenApiSchema;
  /** additionalPrinterColumns; empty means NAME and AGE. */
  printerColumns: Array<{ name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }>;
  /** The scale subresource's paths, when declared. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /**
   * Per apiVersion of the CRD (`group/version`), its scale subresource's
   * specReplicasPath, null for a version without one: where each version's
   * managers own the replicas a write through the scale subresource changes.
   */
  replicasPaths?: Record<string, string | null>;
  /** A deprecated version's warning, sent with every request to it. */
  deprecationWarning?: string;
  /** The CRD's storage version: every served version is stored as it. */
  storageVersion?: string;
}
