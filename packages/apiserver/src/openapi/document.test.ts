import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiSchema } from '@operant/apimachinery';
import { builtinResources } from '../registry/builtin-resources.js';
import { allBuiltinSchemas } from './builtin-schemas.js';

const builtinSchemas = allBuiltinSchemas();
import {
  openApiDocumentHash,
  openApiV3Document,
  openApiV3Index,
  type OpenApiOperation,
  type OpenApiV3Document,
  type OperationGvk,
} from './document.js';

const core = openApiV3Document({ group: '', version: 'v1' }, builtinResources, builtinSchemas);
const apps = openApiV3Document({ group: 'apps', version: 'v1' }, builtinResources, builtinSchemas);

/** What kubectl's query-param verifier does: every PATCH operation tagged with the GVK must list the parameter. */
function supportsPatchQueryParam(doc: OpenApiV3Document, gvk: OperationGvk, param: string): boolean {
  let found = false;
  for (const item of Object.values(doc.paths)) {
    const op = item.patch;
    if (!op || !isDeepStrictEqual(op['x-kubernetes-group-version-kind'], gvk)) continue;
    found = true;
    if (!op.parameters?.some((p) => p.name === param && p.in === 'query')) return false;
  }
  return found;
}

/** Resolves a schema the way kubectl explain's template does: `$ref`, then a single `allOf`. */
function resolve(doc: OpenApiV3Document, schema: OpenApiSchema): OpenApiSchema {
  let s = schema;
  for (;;) {
    if (s.$ref) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
    else if (!s.properties && s.allOf?.length === 1) s = s.allOf[0];
    else return s;
  }
}

/** kubectl explain: the GVK from the resource's paths, then the schema carrying that GVK, then the field path. */
function explain(doc: OpenApiV3Document, prefix: string, resource: string, fieldPath: string[]): OpenApiSchema {
  let gvk: OperationGvk | undefined;
  for (const path of [`${prefix}/${resource}`, `${prefix}/namespaces/{namespace}/${resource}`]) {
    const item = doc.paths[path];
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      gvk ??= item?.[method]?.['x-kubernetes-group-version-kind'];
    }
  }
  assert.ok(gvk, `no GVK on the paths of ${resource}`);
  const root = Object.values(doc.components.schemas).find((s) =>
    (s['x-kubernetes-group-version-kind'] ?? []).some((g) => isDeepStrictEqual(g, gvk)),
  );
  assert.ok(root, `no schema with GVK ${JSON.stringify(gvk)}`);
  let schema: OpenApiSchema = root;
  for (const field of fieldPath) {
    let s = resolve(doc, schema);
    if (s.items) s = resolve(doc, s.items);
    const next = s.properties?.[field];
    assert.ok(next, `field ${field} not found`);
    schema = next;
  }
  return schema;
}

function allRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) allRefs(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else allRefs(v, out);
    }
  }
  return out;
}

describe('openApiV3Document', () => {
  it('is an OpenAPI 3.0 document that survives JSON', () => {
    assert.equal(core.openapi, '3.0.0');
    assert.deepEqual(JSON.parse(JSON.stringify(core)), core);
  });

  it('publishes the Pod PATCH operation with fieldValidation, dryRun, fieldManager, force and all patch types', () => {
    const patch = core.paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch as OpenApiOperation;
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', kind: 'Pod', version: 'v1' });
    const names = (patch.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    for (const name of ['fieldValidation', 'dryRun', 'fieldManager', 'force']) assert.ok(names.includes(name), name);
    assert.deepEqual(Object.keys(patch.requestBody?.content ?? {}).sort(), [
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
  });

  it('passes kubectl’s fieldValidation check for every built-in kind with PATCH (and Namespace, used for CRs)', () => {
    assert.ok(supportsPatchQueryParam(core, { group: '', kind: 'Namespace', version: 'v1' }, 'fieldValidation'));
    assert.ok(supportsPatchQueryParam(core, { group: '', kind: 'Pod', version: 'v1' }, 'fieldValidation'));
    for (const res of builtinResources.filter((r) => r.verbs.includes('patch'))) {
      const doc = openApiV3Document({ group: res.group, version: res.version }, builtinResources, builtinSchemas);
      const gvk = { group: res.group, kind: res.kind, version: res.version };
      assert.ok(supportsPatchQueryParam(doc, gvk, 'fieldValidation'), `${res.resource}`);
    }
  });

  it('lays out collection, item, all-namespaces, watch and subresource paths', () => {
    const pods = core.paths['/api/v1/namespaces/{namespace}/pods'];
    assert.equal(pods.get?.['x-kubernetes-action'], 'list');
    assert.equal(pods.post?.['x-kubernetes-action'], 'post');
    assert.equal(pods.delete?.['x-kubernetes-action'], 'deletecollection');
    assert.equal(pods.get?.operationId, 'listCoreV1NamespacedPod');
    const item = core.paths['/api/v1/namespaces/{namespace}/pods/{name}'];
    assert.deepEqual(
      ['get', 'put', 'patch', 'delete'].map((m) => item[m as 'get']?.['x-kubernetes-action']),
      ['get', 'put', 'patch', 'delete'],
    );
    assert.equal(core.paths['/api/v1/pods'].get?.operationId, 'listCoreV1PodForAllNamespaces');
    assert.equal(core.paths['/api/v1/watch/namespaces/{namespace}/pods'].get?.['x-kubernetes-action'], 'watchlist');
    const status = core.paths['/api/v1/namespaces/{namespace}/pods/{name}/status'];
    assert.ok(status.get && status.put && status.patch);
    assert.equal(status.patch?.operationId, 'patchCoreV1NamespacedPodStatus');
    assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding'].post);
    assert.deepEqual(
      core.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'].post?.['x-kubernetes-group-version-kind'],
      { group: 'authentication.k8s.io', kind: 'TokenRequest', version: 'v1' },
    );
    // Cluster-scoped: no namespace segment; namespaces have no deletecollection.
    assert.ok(core.paths['/api/v1/namespaces/{name}'].get);
    assert.equal(core.paths['/api/v1/namespaces'].delete, undefined);
    assert.ok(core.paths['/api/v1/namespaces/{name}/finalize'].put);
    assert.equal(core.paths['/api/v1/'].get?.operationId, 'getCoreV1APIResources');
    // Nothing of other groups.
    assert.ok(Object.keys(core.paths).every((p) => p.startsWith('/api/v1/')));
  });

  it('serves the scale subresource with autoscaling/v1 Scale', () => {
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    assert.deepEqual(scale.patch?.['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
    assert.ok(scale.patch?.parameters?.some((p) => p.name === 'fieldValidation'));
    assert.ok(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
    assert.equal(apps.paths['/apis/apps/v1/deployments'].get?.operationId, 'listAppsV1DeploymentForAllNamespaces');
  });

  it('names rbac operations like kube', () => {
    const rbac = openApiV3Document({ group: 'rbac.authorization.k8s.io', version: 'v1' }, builtinResources, builtinSchemas);
    assert.equal(
      rbac.paths['/apis/rbac.authorization.k8s.io/v1/clusterroles'].get?.operationId,
      'listRbacAuthorizationV1ClusterRole',
    );
    assert.deepEqual(rbac.paths['/apis/rbac.authorization.k8s.io/v1/clusterroles'].get?.tags, ['rbacAuthorization_v1']);
  });

  it('serves create-only review kinds with POST only', () => {
    const authz = openApiV3Document({ group: 'authorization.k8s.io', version: 'v1' }, builtinResources, builtinSchemas);
    const ssar = authz.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews'];
    assert.ok(ssar.post);
    assert.equal(ssar.get, undefined);
    assert.ok(authz.paths['/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews'].post);
    assert.equal(authz.paths['/apis/authorization.k8s.io/v1/selfsubjectaccessreviews/{name}'], undefined);
  });

  it('lets kubectl explain walk pods.spec.containers to Container', () => {
    const containers = explain(core, '/api/v1', 'pods', ['spec', 'containers']);
    assert.equal(containers.type, 'array');
    assert.match(containers.description ?? '', /List of containers belonging to the pod/);
    const container = resolve(core, containers.items as OpenApiSchema);
    assert.match(container.description ?? '', /container/i);
    assert.ok(container.properties?.image?.description);
    assert.deepEqual(container.required, ['name']);
    const image = explain(core, '/api/v1', 'pods', ['spec', 'containers', 'image']);
    assert.equal(image.type, 'string');
    const maxSurge = explain(apps, '/apis/apps/v1', 'deployments', ['spec', 'strategy', 'rollingUpdate', 'maxSurge']);
    assert.ok(maxSurge.allOf?.[0].$ref?.endsWith('IntOrString'));
  });

  it('carries the strategic-merge facts', () => {
    const podSpec = core.components.schemas['io.k8s.api.core.v1.PodSpec'];
    const containers = podSpec.properties?.containers;
    assert.equal(containers?.['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers?.['x-kubernetes-patch-strategy'], 'merge');
    assert.deepEqual(containers?.['x-kubernetes-list-map-keys'], ['name']);
    assert.equal(podSpec.properties?.volumes?.['x-kubernetes-patch-strategy'], 'merge,retainKeys');
    const container = core.components.schemas['io.k8s.api.core.v1.Container'];
    assert.equal(container.properties?.ports?.['x-kubernetes-patch-merge-key'], 'containerPort');
    assert.equal(container.properties?.volumeMounts?.['x-kubernetes-patch-merge-key'], 'mountPath');
    const meta = core.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
    assert.equal(meta.properties?.finalizers?.['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(meta.properties?.ownerReferences?.['x-kubernetes-patch-merge-key'], 'uid');
    const deploySpec = apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'];
    assert.equal(deploySpec.properties?.strategy?.['x-kubernetes-patch-strategy'], 'retainKeys');
  });

  it('includes only the definitions reachable from the group version, all refs resolving', () => {
    const names = Object.keys(core.components.schemas);
    assert.ok(names.includes('io.k8s.api.core.v1.Container'));
    assert.ok(names.includes('io.k8s.apimachinery.pkg.apis.meta.v1.Status'));
    assert.ok(names.includes('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions'));
    assert.ok(names.includes('io.k8s.api.core.v1.PodList'));
    assert.ok(!names.includes('io.k8s.api.apps.v1.Deployment'));
    assert.ok(!names.some((n) => n.startsWith('io.k8s.api.rbac.')));
    for (const doc of [core, apps]) {
      for (const ref of allRefs(doc)) {
        assert.ok(doc.components.schemas[ref.replace('#/components/schemas/', '')], `dangling ${ref}`);
      }
    }
  });

  it('leaves strategic merge patch out when asked (custom resources)', () => {
    const doc = openApiV3Document({ group: '', version: 'v1' }, builtinResources, builtinSchemas, {
      strategicMergePatch: false,
    });
    const content = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch?.requestBody?.content ?? {};
    assert.ok(!('application/strategic-merge-patch+json' in content));
    assert.ok('application/merge-patch+json' in content);
  });
});

describe('openApiV3Index', () => {
  it('lists each group version with a hashed server-relative URL', () => {
    const index = openApiV3Index(
      [
        { group: '', version: 'v1' },
        { group: 'apps', version: 'v1' },
      ],
      (gv) => `H${gv.group}`,
    );
    assert.deepEqual(index, {
      paths: {
        'api/v1': { serverRelativeURL: '/openapi/v3/api/v1?hash=H' },
        'apis/apps/v1': { serverRelativeURL: '/openapi/v3/apis/apps/v1?hash=Happs' },
      },
    });
  });

  it('hashes documents as upper-case SHA-512 hex', () => {
    const hash = openApiDocumentHash(JSON.stringify(core));
    assert.match(hash, /^[0-9A-F]{128}$/);
    assert.equal(hash, openApiDocumentHash(JSON.stringify(core)));
  });
});
