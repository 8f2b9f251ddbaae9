/**
 * The OpenAPI v3 documents kube-apiserver serves: the `/openapi/v3` index and one
 * document per group version (`/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>`).
 *
 * What clients read from them:
 * - `kubectl explain` finds the kind through an operation's
 *   `x-kubernetes-group-version-kind` on the resource's path, then the schema
 *   carrying the same GVK in `components.schemas`, and follows `$ref`/`allOf`.
 * - kubectl (create, apply, replace, patch, edit) decides whether the server
 *   validates fields itself by looking, for every PATCH operation tagged with
 *   the kind's GVK, for a query parameter named `fieldValidation`; custom
 *   resources are judged by the Namespace PATCH operation of `api/v1`.
 * - client-side apply reads `x-kubernetes-patch-*` from the schemas.
 */
import { createHash } from 'node:crypto';
import type { OpenApiSchema } from '@operant/apimachinery';
import type { ResourceInfo } from '../registry/resource-info.js';
import { definitionNameOfRef, schemaRef } from './builtin-schemas.js';

/** An API group and version; the core group is `''`. */
export interface GroupVersion {
  group: string;
  version: string;
}

/** A GVK as operations carry it in `x-kubernetes-group-version-kind` (one object, not a list). */
export interface OperationGvk {
  group: string;
  kind: string;
  version: string;
}

/** One OpenAPI v3 parameter (all of ours are inline). */
export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path';
  description?: string;
  required?: boolean;
  schema: OpenApiSchema;
}

/** A media-type map: content type -> schema. */
export type OpenApiContent = Record<string, { schema: OpenApiSchema }>;

/** One OpenAPI v3 operation with kube's extensions. */
export interface OpenApiOperation {
  description: string;
  operationId: string;
  tags: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { content: OpenApiContent; required?: boolean };
  responses: Record<string, { description: string; content?: OpenApiContent }>;
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind'?: OperationGvk;
}

/** The operations and shared parameters of one path. */
export interface OpenApiPathItem {
  parameters?: OpenApiParameter[];
  get?: OpenApiOperation;
  put?: OpenApiOperation;
  post?: OpenApiOperation;
  delete?: OpenApiOperation;
  patch?: OpenApiOperation;
}

/** A per-group-version OpenAPI v3 document. */
export interface OpenApiV3Document {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, OpenApiSchema>;
    securitySchemes: Record<string, { type: 'apiKey'; name: string; in: 'header'; description: string }>;
  };
}

/** The `/openapi/v3` discovery document. */
export interface OpenApiV3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** Choices for {@link openApiV3Document}. */
export interface OpenApiDocumentOptions {
  /**
   * Offer `application/strategic-merge-patch+json` on PATCH operations. True for
   * built-in kinds (the default); false for custom resources, which kube serves
   * without strategic merge patch.
   */
  strategicMergePatch?: boolean;
  /** Publish the deprecated `/watch/` paths. Default true. */
  watchPaths?: boolean;
  /** `info.version`; kube-apiserver says `unversioned`. */
  infoVersion?: string;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const STATUS = `${META}.Status`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const PATCH = `${META}.Patch`;
const WATCH_EVENT = `${META}.WatchEvent`;
const API_RESOURCE_LIST = `${META}.APIResourceList`;

/** The patch content types kube-apiserver accepts, in the order it lists them. */
export const patchContentTypes = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;

// ---------------------------------------------------------------------------
// Parameters.

function query(name: string, type: 'string' | 'boolean' | 'integer', description: string): OpenApiParameter {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

const p = {
  pretty: query('pretty', 'string', "If 'true', the output is pretty printed."),
  dryRun: query(
    'dryRun',
    'string',
    'When present, the request is processed but nothing is persisted. The only valid value is All: all dry-run stages run.',
  ),
  fieldManager: query(
    'fieldManager',
    'string',
    'The name of the actor making the changes, at most 128 printable characters. Required for apply requests (application/apply-patch); optional otherwise.',
  ),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'How the server treats unknown or duplicate fields in the request object. Ignore: drop them silently. Warn: drop them and answer with a warning for each one. Strict: fail the request.',
  ),
  force: query(
    'force',
    'boolean',
    'Force an apply request: take ownership of fields other managers own. Must be unset for non-apply patches.',
  ),
  gracePeriodSeconds: query(
    'gracePeriodSeconds',
    'integer',
    'Seconds before the object is deleted; zero deletes immediately. Unset uses the default grace period of the kind.',
  ),
  orphanDependents: query(
    'orphanDependents',
    'boolean',
    'Deprecated, use propagationPolicy. Whether dependents are orphaned (adds or removes the "orphan" finalizer).',
  ),
  propagationPolicy: query(
    'propagationPolicy',
    'string',
    "How dependents are garbage collected: 'Orphan', 'Background' or 'Foreground'.",
  ),
  labelSelector: query('labelSelector', 'string', 'Restricts the returned objects by their labels. Defaults to everything.'),
  fieldSelector: query('fieldSelector', 'string', 'Restricts the returned objects by their fields. Defaults to everything.'),
  limit: query(
    'limit',
    'integer',
    'The maximum number of items to return. When more exist, the list metadata carries a continue token for the next chunk; chunks are a consistent snapshot.',
  ),
  continue: query(
    'continue',
    'string',
    'The continue token from a previous chunked list call with the same query. An expired token gets 410 Expired.',
  ),
  resourceVersion: query(
    'resourceVersion',
    'string',
    'Constrains which resource versions the request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions',
  ),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'string',
    'How resourceVersion applies to list calls: Exact or NotOlderThan.',
  ),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Limits the duration of the list or watch call.'),
  watch: query(
    'watch',
    'boolean',
    'Watch for changes to the described resources: a stream of add, update and remove events. Specify resourceVersion.',
  ),
  allowWatchBookmarks: query(
    'allowWatchBookmarks',
    'boolean',
    'Asks for watch events of type BOOKMARK. Ignored unless watching.',
  ),
  sendInitialEvents: query(
    'sendInitialEvents',
    'boolean',
    'With watch=true, begin the stream with synthetic events for the current state, then a bookmark.',
  ),
};

function pathParam(name: string, description: string): OpenApiParameter {
  return { name, in: 'path', description, required: true, schema: { type: 'string', uniqueItems: true } };
}
const namespaceParam = pathParam('namespace', 'object name and auth scope, such as for teams and projects');

const listParams = [
  p.allowWatchBookmarks,
  p.continue,
  p.fieldSelector,
  p.labelSelector,
  p.limit,
  p.resourceVersion,
  p.resourceVersionMatch,
  p.sendInitialEvents,
  p.timeoutSeconds,
  p.watch,
];
const writeParams = [p.dryRun, p.fieldManager, p.fieldValidation];
const patchParams = [p.dryRun, p.fieldManager, p.fieldValidation, p.force];
const deleteParams = [p.dryRun, p.gracePeriodSeconds, p.orphanDependents, p.propagationPolicy];

// ---------------------------------------------------------------------------
// Names.

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1);
}

/** kube's operation-id spelling of a group version: `CoreV1`, `AppsV1`, `RbacAuthorizationV1`. */
function gvCamel(gv: GroupVersion): string {
  const group = gv.group === '' ? 'core' : gv.group.replace(/\.k8s\.io$/, '');
  return group.split(/[.-]/).map(capitalize).join('') + capitalize(gv.version);
}

/** The OpenAPI tag kube puts on a group version's operations: `core_v1`, `rbacAuthorization_v1`. */
function gvTag(gv: GroupVersion): string {
  const camel = gvCamel({ group: gv.group, version: '' });
  return `${camel[0].toLowerCase()}${camel.slice(1)}_${gv.version}`;
}

/** The URL prefix of a group version: `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPath(gv: GroupVersion): string {
  return gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
}

/** The key of a group version in the `/openapi/v3` index: `api/v1`, `apis/apps/v1`. */
export function openApiV3PathKey(gv: GroupVersion): string {
  return groupVersionPath(gv).slice(1);
}

/**
 * The definition name of a resource's kind: its `definition`, or kube's name for
 * a custom resource (reversed group, version, kind: `com.example.stable.v1.CronTab`).
 */
export function kindDefinitionName(res: ResourceInfo): string {
  if (res.definition) return res.definition;
  return `${res.group.split('.').reverse().join('.')}.${res.version}.${res.kind}`;
}

/** The definition name of a resource's list kind, next to its kind: `io.k8s.api.core.v1.PodList`. */
export function listDefinitionName(res: ResourceInfo): string {
  const def = kindDefinitionName(res);
  return `${def.slice(0, def.lastIndexOf('.'))}.${res.listKind}`;
}

// ---------------------------------------------------------------------------
// Subresources: what each one's operations take and return.

interface SubresourceShape {
  gvk(res: ResourceInfo): OperationGvk;
  definition(res: ResourceInfo): string;
  /** Operations, by the main resource's verb that enables them. */
  operations: Array<{ method: 'get' | 'put' | 'patch' | 'post'; verb: string; action: string; prefix: string }>;
}

const getPutPatch: SubresourceShape['operations'] = [
  { method: 'get', verb: 'get', action: 'get', prefix: 'read' },
  { method: 'put', verb: 'update', action: 'put', prefix: 'replace' },
  { method: 'patch', verb: 'patch', action: 'patch', prefix: 'patch' },
];

const ownKind = (res: ResourceInfo): OperationGvk => ({ group: res.group, kind: res.kind, version: res.version });

const subresourceShapes: Record<string, SubresourceShape> = {
  status: { gvk: ownKind, definition: kindDefinitionName, operations: getPutPatch },
  // A CertificateSigningRequest's Approved/Denied conditions.
  approval: { gvk: ownKind, definition: kindDefinitionName, operations: getPutPatch },
  ephemeralcontainers: { gvk: ownKind, definition: kindDefinitionName, operations: getPutPatch },
  scale: {
    gvk: () => ({ group: 'autoscaling', kind: 'Scale', version: 'v1' }),
    definition: () => 'io.k8s.api.autoscaling.v1.Scale',
    operations: getPutPatch,
  },
  finalize: {
    gvk: ownKind,
    definition: kindDefinitionName,
    operations: [{ method: 'put', verb: 'update', action: 'put', prefix: 'replace' }],
  },
  binding: {
    gvk: () => ({ group: '', kind: 'Binding', version: 'v1' }),
    definition: () => 'io.k8s.api.core.v1.Binding',
    operations: [{ method: 'post', verb: 'create', action: 'post', prefix: 'create' }],
  },
  token: {
    gvk: () => ({ group: 'authentication.k8s.io', kind: 'TokenRequest', version: 'v1' }),
    definition: () => 'io.k8s.api.authentication.v1.TokenRequest',
    operations: [{ method: 'post', verb: 'create', action: 'post', prefix: 'create' }],
  },
};

// ---------------------------------------------------------------------------
// The document.

function json(definition: string, extraTypes: string[] = []): OpenApiContent {
  const content: OpenApiContent = {};
  for (const type of ['application/json', ...extraTypes]) content[type] = { schema: { $ref: schemaRef(definition) } };
  return content;
}

function ok(definition: string, extraTypes: string[] = []): OpenApiOperation['responses'] {
  return { '200': { description: 'OK', content: json(definition, extraTypes) } };
}

function okCreated(definition: string, accepted = false): OpenApiOperation['responses'] {
  const responses: OpenApiOperation['responses'] = {
    '200': { description: 'OK', content: json(definition) },
    '201': { description: 'Created', content: json(definition) },
  };
  if (accepted) responses['202'] = { description: 'Accepted', content: json(definition) };
  return responses;
}

/** Builds the paths of one resource into `paths`, and returns the definitions its operations use. */
function addResourcePaths(
  paths: Record<string, OpenApiPathItem>,
  res: ResourceInfo,
  base: string,
  tag: string,
  opts: Required<Pick<OpenApiDocumentOptions, 'strategicMergePatch' | 'watchPaths'>>,
): string[] {
  const gv: GroupVersion = { group: res.group, version: res.version };
  const camel = gvCamel(gv);
  const gvk = ownKind(res);
  const def = kindDefinitionName(res);
  const listDef = listDefinitionName(res);
  const used = [def];
  const verbs = new Set<string>(res.verbs);
  const scope = res.namespaced ? 'Namespaced' : '';
  const nsPrefix = res.namespaced ? '/namespaces/{namespace}' : '';
  const collection = `${base}${nsPrefix}/${res.resource}`;
  const item = `${collection}/{name}`;
  const nameParam = pathParam('name', `name of the ${res.kind}`);
  const scopeParams = res.namespaced ? [namespaceParam] : [];
  const op = (
    action: string,
    operationId: string,
    description: string,
    rest: Partial<OpenApiOperation> & Pick<OpenApiOperation, 'responses'>,
    kind: OperationGvk = gvk,
  ): OpenApiOperation => ({
    description,
    operationId,
    tags: [tag],
    ...rest,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': kind,
  });
  const patchBody = (schemaDef: string): OpenApiOperation['requestBody'] => {
    const content: OpenApiContent = {};
    for (const type of patchContentTypes) {
      if (type === 'application/strategic-merge-patch+json' && !opts.strategicMergePatch) continue;
      content[type] = { schema: { $ref: schemaRef(schemaDef) } };
    }
    return { content, required: true };
  };

  // Collection: list, create, deletecollection.
  const coll: OpenApiPathItem = { parameters: [...scopeParams, p.pretty] };
  if (verbs.has('list')) {
    used.push(listDef);
    coll.get = op('list', `list${camel}${scope}${res.kind}`, `list or watch objects of kind ${res.kind}`, {
      parameters: listParams,
      responses: ok(listDef, ['application/json;stream=watch']),
    });
  }
  if (verbs.has('create')) {
    coll.post = op('post', `create${camel}${scope}${res.kind}`, `create a ${res.kind}`, {
      parameters: writeParams,
      requestBody: { content: json(def), required: true },
      responses: okCreated(def, true),
    });
  }
  if (verbs.has('deletecollection')) {
    coll.delete = op(
      'deletecollection',
      `delete${camel}Collection${scope}${res.kind}`,
      `delete collection of ${res.kind}`,
      {
        parameters: [...deleteParams, ...listParams.filter((x) => x.name !== 'watch' && x.name !== 'allowWatchBookmarks')],
        requestBody: { content: json(DELETE_OPTIONS) },
        responses: ok(STATUS),
      },
    );
  }
  if (coll.get || coll.post || coll.delete) paths[collection] = coll;

  // Item: get, update, patch, delete.
  const one: OpenApiPathItem = { parameters: [nameParam, ...scopeParams, p.pretty] };
  if (verbs.has('get')) {
    one.get = op('get', `read${camel}${scope}${res.kind}`, `read the specified ${res.kind}`, {
      responses: ok(def),
    });
  }
  if (verbs.has('update')) {
    one.put = op('put', `replace${camel}${scope}${res.kind}`, `replace the specified ${res.kind}`, {
      parameters: writeParams,
      requestBody: { content: json(def), required: true },
      responses: okCreated(def),
    });
  }
  if (verbs.has('patch')) {
    one.patch = op('patch', `patch${camel}${scope}${res.kind}`, `partially update the specified ${res.kind}`, {
      parameters: patchParams,
      requestBody: patchBody(PATCH),
      responses: okCreated(def),
    });
  }
  if (verbs.has('delete')) {
    one.delete = op('delete', `delete${camel}${scope}${res.kind}`, `delete a ${res.kind}`, {
      parameters: deleteParams,
      requestBody: { content: json(DELETE_OPTIONS) },
      responses: { ...ok(STATUS), '202': { description: 'Accepted', content: json(STATUS) } },
    });
  }
  if (one.get || one.put || one.patch || one.delete) paths[item] = one;

  // Across namespaces: list and watch.
  if (res.namespaced && verbs.has('list')) {
    paths[`${base}/${res.resource}`] = {
      parameters: [p.pretty, ...listParams],
      get: op('list', `list${camel}${res.kind}ForAllNamespaces`, `list or watch objects of kind ${res.kind}`, {
        responses: ok(listDef, ['application/json;stream=watch']),
      }),
    };
  }
  if (opts.watchPaths && verbs.has('watch')) {
    used.push(WATCH_EVENT);
    const watchOp = (action: string, operationId: string, description: string): OpenApiOperation =>
      op(action, operationId, description, {
        responses: ok(WATCH_EVENT, ['application/json;stream=watch']),
      });
    const watchBase = `${base}/watch${nsPrefix}/${res.resource}`;
    paths[watchBase] = {
      parameters: [...scopeParams, p.pretty, ...listParams],
      get: watchOp(
        'watchlist',
        `watch${camel}${scope}${res.kind}List`,
        `watch individual changes to a list of ${res.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
      ),
    };
    paths[`${watchBase}/{name}`] = {
      parameters: [nameParam, ...scopeParams, p.pretty, ...listParams],
      get: watchOp(
        'watch',
        `watch${camel}${scope}${res.kind}`,
        `watch changes to an object of kind ${res.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
      ),
    };
    if (res.namespaced) {
      paths[`${base}/watch/${res.resource}`] = {
        parameters: [p.pretty, ...listParams],
        get: watchOp(
          'watchlist',
          `watch${camel}${res.kind}ListForAllNamespaces`,
          `watch individual changes to a list of ${res.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
        ),
      };
    }
  }

  // Subresources.
  for (const sub of res.subresources ?? []) {
    const shape = subresourceShapes[sub];
    if (!shape) continue;
    const subDef = shape.definition(res);
    const subGvk = shape.gvk(res);
    const suffix = capitalize(sub);
    const pathItem: OpenApiPathItem = { parameters: [nameParam, ...scopeParams, p.pretty] };
    for (const o of shape.operations) {
      if (!verbs.has(o.verb)) continue;
      const operationId = `${o.prefix}${camel}${scope}${res.kind}${suffix}`;
      const what = `${sub} of the specified ${res.kind}`;
      if (o.method === 'get') {
        pathItem.get = op(o.action, operationId, `read ${what}`, { responses: ok(subDef) }, subGvk);
      } else if (o.method === 'put') {
        pathItem.put = op(
          o.action,
          operationId,
          `replace ${what}`,
          { parameters: writeParams, requestBody: { content: json(subDef), required: true }, responses: okCreated(subDef) },
          subGvk,
        );
      } else if (o.method === 'patch') {
        pathItem.patch = op(
          o.action,
          operationId,
          `partially update ${what}`,
          { parameters: patchParams, requestBody: patchBody(PATCH), responses: okCreated(subDef) },
          subGvk,
        );
      } else {
        pathItem.post = op(
          o.action,
          operationId,
          `create ${sub} of a ${res.kind}`,
          {
            parameters: writeParams,
            requestBody: { content: json(subDef), required: true },
            responses: okCreated(subDef, true),
          },
          subGvk,
        );
      }
    }
    if (pathItem.get || pathItem.put || pathItem.patch || pathItem.post) {
      paths[`${item}/${sub}`] = pathItem;
      used.push(subDef);
    }
  }
  return used;
}

/** Every `$ref` target reachable from `roots` through `schemas` (roots absent from `schemas` are skipped). */
export function reachableDefinitions(roots: Iterable<string>, schemas: Record<string, OpenApiSchema>): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  const visit = (s: OpenApiSchema | boolean | undefined): void => {
    if (!s || typeof s !== 'object') return;
    if (s.$ref) {
      const name = definitionNameOfRef(s.$ref);
      if (name !== undefined && !seen.has(name)) stack.push(name);
    }
    for (const sub of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) visit(sub);
    visit(s.not);
    visit(s.items);
    visit(s.additionalProperties);
    for (const prop of Object.values(s.properties ?? {})) visit(prop);
  };
  while (stack.length > 0) {
    const name = stack.pop() as string;
    if (seen.has(name) || !Object.hasOwn(schemas, name)) continue;
    seen.add(name);
    visit(schemas[name]);
  }
  return seen;
}

/**
 * The OpenAPI v3 document of one group version, as served at
 * `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`.
 *
 * @param groupVersion the group version the document describes
 * @param resources the served resources; those of other group versions are ignored
 * @param schemas definitions by name (built-ins plus any CRD schemas); the
 *   document carries those reachable from its kinds, plus the meta kinds
 * @param options see {@link OpenApiDocumentOptions}
 */
export function openApiV3Document(
  groupVersion: GroupVersion,
  resources: ResourceInfo[],
  schemas: Record<string, OpenApiSchema>,
  options: OpenApiDocumentOptions = {},
): OpenApiV3Document {
  const opts = {
    strategicMergePatch: options.strategicMergePatch ?? true,
    watchPaths: options.watchPaths ?? true,
  };
  const base = groupVersionPath(groupVersion);
  const tag = gvTag(groupVersion);
  const paths: Record<string, OpenApiPathItem> = {};
  const roots = new Set<string>([STATUS, DELETE_OPTIONS, PATCH, WATCH_EVENT, API_RESOURCE_LIST]);

  paths[`${base}/`] = {
    get: {
      description: 'get available resources',
      operationId: `get${gvCamel(groupVersion)}APIResources`,
      tags: [tag],
      responses: ok(API_RESOURCE_LIST),
      'x-kubernetes-action': 'get',
    },
  };
  for (const res of resources) {
    if (res.group !== groupVersion.group || res.version !== groupVersion.version) continue;
    for (const def of addResourcePaths(paths, res, base, tag, opts)) roots.add(def);
  }

  const components: Record<string, OpenApiSchema> = {};
  for (const name of [...reachableDefinitions(roots, schemas)].sort()) components[name] = schemas[name];

  const sortedPaths: Record<string, OpenApiPathItem> = {};
  for (const key of Object.keys(paths).sort()) sortedPaths[key] = paths[key];

  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: options.infoVersion ?? 'unversioned' },
    paths: sortedPaths,
    components: {
      schemas: components,
      securitySchemes: {
        BearerToken: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer Token authentication' },
      },
    },
  };
}

/**
 * The `/openapi/v3` index: one entry per group version, whose URL carries the
 * document's hash so that clients can cache it (`?hash=` responses may be
 * served as immutable).
 *
 * @param groupVersions the served group versions
 * @param hashFor the hash of a group version's document, e.g. {@link openApiDocumentHash} of its JSON
 */
export function openApiV3Index(groupVersions: GroupVersion[], hashFor: (gv: GroupVersion) => string): OpenApiV3Index {
  const paths: OpenApiV3Index['paths'] = {};
  for (const gv of groupVersions) {
    const key = openApiV3PathKey(gv);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashFor(gv)}` };
  }
  return { paths };
}

/** The hash kube-apiserver puts in index URLs: SHA-512 of the served JSON, upper-case hex. */
export function openApiDocumentHash(body: string | Uint8Array): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}
