/**
 * What kube-apiserver answers when a create or update body names another
 * apiVersion or kind than the endpoint's. Its decoder defaults a missing kind
 * and apiVersion to the endpoint's, creates the Go type the body names and
 * converts it to the endpoint's internal type, so the failure depends on what
 * the body names:
 *
 * - a kind no served group version registers:
 *   `ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"`
 * - a registered kind that cannot convert to the endpoint's:
 *   `Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`
 * - the endpoint's kind in another version of the same internal type (core and
 *   events.k8s.io Events), which converts, and then fails the version check:
 *   `the API version in the data (events.k8s.io/v1) does not match the expected API version (v1)`
 */
import { apiVersionOf, type OpenApiSchema } from '@operant/apimachinery';
import { resolveBuiltinSchema, schemaRef } from '../openapi/builtin-schemas.js';
import { findTypeError } from '../openapi/type-check.js';
import { cannotBeHandledMessage } from '../openapi/unknown-fields.js';
import { builtinResources } from './builtin-resources.js';
import type { ResourceInfo } from './resource-info.js';

const legacyScheme = 'pkg/api/legacyscheme/scheme.go:30';

/** The meta.k8s.io kinds every group version registers (metav1.AddToGroupVersion). */
const metaKinds = ['WatchEvent', 'Status', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions'];

const builtinKinds = new Set<string>();
for (const r of builtinResources) {
  builtinKinds.add(`${r.group}/${r.version}/${r.kind}`);
  builtinKinds.add(`${r.group}/${r.version}/${r.listKind}`);
  for (const k of metaKinds) builtinKinds.add(`${r.group}/${r.version}/${k}`);
}

function isBuiltin(info: ResourceInfo): boolean {
  return builtinResources.some((r) => r.group === info.group && r.version === info.version && r.resource === info.resource);
}

/** The Go package of a group's internal types: `core` for the legacy group (and events.k8s.io's Event), else the group's first label. */
function internalPackage(group: string): string {
  return group === '' || group === 'events.k8s.io' ? 'core' : group.split('.')[0];
}

function internalGroup(group: string, kind: string): string {
  return group === 'events.k8s.io' && kind === 'Event' ? '' : group;
}

/** The JSON type name encoding/json uses in UnmarshalTypeError. */
function jsonTypeName(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value !== null && typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * kube's 400 message when `body` (a decoded create, update or patched object)
 * does not fit the endpoint of `info`, or undefined when it does.
 */
export function typeMetaMismatch(info: ResourceInfo, body: Record<string, unknown>): string | undefined {
  const expected = apiVersionOf(info.group, info.version);
  const rawVersion = body.apiVersion ?? '';
  const rawKind = body.kind ?? '';
  for (const [field, v] of [
    ['apiVersion', rawVersion],
    ['kind', rawKind],
  ] as const) {
    if (typeof v !== 'string') {
      return `the object provided is unrecognized (must be of type ${info.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeName(v)} into Go struct field .${field} of type string`;
    }
  }
  const apiVersion = rawVersion as string;
  const kind = (rawKind as string) || info.kind;
  if (!isBuiltin(info)) {
    if (apiVersion !== '' && apiVersion !== expected) return `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`;
    if (kind !== info.kind) return `the kind in the data (${kind}) does not match the expected kind (${info.kind})`;
    return undefined;
  }
  // schema.ParseGroupVersion, then gvkWithDefaults against the endpoint's kind.
  const slash = apiVersion.indexOf('/');
  let group = slash < 0 ? '' : apiVersion.slice(0, slash);
  let version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (apiVersion === '/') group = version = '';
  if (version === '' && group === '') {
    group = info.group;
    version = info.version;
  }
  if (version === '' && group === info.group) version = info.version;
  if (group === info.group && version === info.version && kind === info.kind) return undefined;
  const prefix = `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${info.kind}: `;
  if (version === '') return `${prefix}Object 'apiVersion' is missing in '${JSON.stringify(body)}'`;
  const gv = apiVersionOf(group, version);
  if (!builtinKinds.has(`${group}/${version}/${kind}`)) {
    return `${prefix}no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(gv)} in scheme ${JSON.stringify(legacyScheme)}`;
  }
  if (kind === info.kind && internalGroup(group, kind) === internalGroup(info.group, info.kind)) {
    return `the API version in the data (${gv}) does not match the expected API version (${expected})`;
  }
  return `${prefix}converting (${version}.${kind}) to (${internalPackage(info.group)}.${info.kind}): unknown conversion`;
}

/** kube's message for a `metadata` that is no object (null is fine: it decodes to empty metadata). */
export function metadataTypeError(info: ResourceInfo, metadata: unknown): string | undefined {
  if (metadata === undefined || metadata === null || jsonTypeName(metadata) === 'object') return undefined;
  return `${info.kind} in version ${JSON.stringify(info.version)} cannot be handled as a ${info.kind}: json: cannot unmarshal ${jsonTypeName(metadata)} into Go struct field ${info.kind}.metadata of type v1.ObjectMeta`;
}

/** Just the metadata of an object, as a schema: every kind's ObjectMeta decodes the same way. */
const withObjectMeta: OpenApiSchema = {
  type: 'object',
  properties: { metadata: { $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') } },
};

/**
 * kube's message when `obj.metadata` holds a value of the wrong type (`labels`
 * holding a number, ...), for every kind, custom resources included; normalizes
 * the nulls in it as decoding does. `source` is `patch` for a patched object,
 * whose errors kube reports bare.
 */
export function objectMetaDecodeError(info: ResourceInfo, obj: Record<string, unknown>, source: 'body' | 'patch'): string | undefined {
  const err = findTypeError({ metadata: obj.metadata }, withObjectMeta, resolveBuiltinSchema, info.kind);
  if (err === undefined) return undefined;
  return source === 'patch' ? err : cannotBeHandledMessage(info.kind, info.version, err);
}
