/**
 * apiextensions.k8s.io/v1beta1 CustomResourceDefinitions to v1, as the old
 * `kubectl convert` did: Kubernetes removed v1beta1 in 1.22, and manifests of
 * that time (the seed article's Tekton CRDs among them) no longer apply. The
 * rules are the apiserver's v1beta1 -> v1 conversion; anything it had to invent
 * or drop is reported, so the user can check it.
 */

type Json = Record<string, unknown>;

export interface ConvertedCrd {
  object: Json;
  /** What changed beyond renaming, one line each. */
  notes: string[];
}

const V1BETA1 = 'apiextensions.k8s.io/v1beta1';

export function isV1beta1Crd(obj: unknown): obj is Json {
  return typeof obj === 'object' && obj !== null && (obj as Json).apiVersion === V1BETA1 && (obj as Json).kind === 'CustomResourceDefinition';
}

/** A printer column with v1's field name: JSONPath becomes jsonPath. */
function column(c: Json): Json {
  const { JSONPath, ...rest } = c;
  return JSONPath === undefined ? c : { ...rest, jsonPath: JSONPath };
}

export function convertCrd(crd: Json): ConvertedCrd {
  const name = ((crd.metadata as Json | undefined)?.name as string | undefined) ?? '<unnamed>';
  const notes: string[] = [];
  const { version, versions, validation, subresources, additionalPrinterColumns, preserveUnknownFields, conversion, ...spec } = (crd.spec ?? {}) as Json;
  const declared = (versions as Json[] | undefined) ?? (version ? [{ name: version, served: true, storage: true }] : []);
  if (declared.length === 0) throw new Error(`${name}: spec.version or spec.versions is required`);
  const topSchema = (validation as Json | undefined)?.openAPIV3Schema as Json | undefined;
  // v1beta1 kept unknown fields unless preserveUnknownFields was false; v1 prunes unless the schema says so.
  const keepsUnknown = preserveUnknownFields !== false;
  const converted = declared.map((v) => {
    const out: Json = { ...v };
    let schema = ((v.schema as Json | undefined)?.openAPIV3Schema as Json | undefined) ?? topSchema;
    if (!schema) {
      schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      notes.push(`${name}: version ${String(v.name)} had no schema; it gets type: object with x-kubernetes-preserve-unknown-fields: true (v1 requires a schema)`);
    } else if (keepsUnknown && schema['x-kubernetes-preserve-unknown-fields'] !== true) {
      schema = { ...schema, 'x-kubernetes-preserve-unknown-fields': true };
      notes.push(`${name}: version ${String(v.name)}: spec.preserveUnknownFields (v1beta1's default, true) became x-kubernetes-preserve-unknown-fields: true at the schema's root`);
    }
    if (schema.type === undefined) schema = { type: 'object', ...schema };
    out.schema = { openAPIV3Schema: schema };
    const sub = (v.subresources as Json | undefined) ?? (subresources as Json | undefined);
    if (sub) out.subresources = sub;
    const columns = (v.additionalPrinterColumns as Json[] | undefined) ?? (additionalPrinterColumns as Json[] | undefined);
    if (columns) out.additionalPrinterColumns = columns.map(column);
    return out;
  });
  const result: Json = { ...spec, versions: converted };
  if (conversion) result.conversion = convertConversion(conversion as Json, name, notes);
  const { status: _status, ...rest } = crd;
  return { object: { ...rest, apiVersion: 'apiextensions.k8s.io/v1', spec: result }, notes };
}

function convertConversion(c: Json, name: string, notes: string[]): Json {
  if (c.strategy !== 'Webhook') return { strategy: c.strategy ?? 'None' };
  const reviewVersions = (c.conversionReviewVersions as string[] | undefined) ?? ['v1beta1'];
  if (!c.conversionReviewVersions) notes.push(`${name}: conversion.conversionReviewVersions defaulted to [v1beta1], as v1beta1 did; the webhook must answer ConversionReview v1beta1`);
  return { strategy: 'Webhook', webhook: { clientConfig: c.webhookClientConfig, conversionReviewVersions: reviewVersions } };
}
