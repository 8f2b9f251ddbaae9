/**
 * What `operant create api` writes: the kind's types with their markers, the
 * group-version package marker, a controller that fetches its object and
 * ignores not-found (for a built-in kind too), and a test of it.
 */

export interface ApiTemplateInput {
  group: string;
  /** The full API group, e.g. apps.kruise.io ('' for core). */
  qualifiedGroup: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The project owns the type (a CRD); false for a built-in kind. */
  resource: boolean;
}

export function groupVersionInfo(a: ApiTemplateInput): string {
  return `// Package ${a.version} contains API Schema definitions for the ${a.group} ${a.version} API group.
// +kubebuilder:object:generate=true
// +groupName=${a.qualifiedGroup}

/** The group and version of the types in this directory. */
export const GroupVersion = { group: '${a.qualifiedGroup}', version: '${a.version}' } as const;
`;
}

export function typesFile(a: ApiTemplateInput): string {
  const scope = a.namespaced ? '' : '\n// +kubebuilder:resource:scope=Cluster';
  return `import type { ListMeta, ObjectMeta } from '@operant/runtime';

// EDIT THIS FILE!  THIS IS SCAFFOLDING FOR YOU TO OWN!
// Run "npm run manifests" to regenerate the CRD and the typed kinds module after changing it.

// ${a.kind}Spec defines the desired state of ${a.kind}
export interface ${a.kind}Spec {
  // INSERT ADDITIONAL SPEC FIELDS - desired state of cluster

  // foo is an example field of ${a.kind}. Edit ${a.kind.toLowerCase()}-types.ts to remove/update
  // +optional
  foo?: string;
}

// ${a.kind}Status defines the observed state of ${a.kind}.
export interface ${a.kind}Status {
  // INSERT ADDITIONAL STATUS FIELD - define observed state of cluster
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status${scope}

// ${a.kind} is the Schema for the ${a.plural} API
export interface ${a.kind} {
  apiVersion?: string;
  kind?: string;

  // metadata is a standard object metadata
  // +optional
  metadata?: ObjectMeta;

  // spec defines the desired state of ${a.kind}
  // +required
  spec: ${a.kind}Spec;

  // status defines the observed state of ${a.kind}
  // +optional
  status?: ${a.kind}Status;
}

// +kubebuilder:object:root=true

// ${a.kind}List contains a list of ${a.kind}
export interface ${a.kind}List {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: ${a.kind}[];
}
`;
}

/** Where the controller finds the kind's Kind value: the generated module, or the runtime's built-ins. */
function kindImport(a: ApiTemplateInput): string {
  return a.resource
    ? `import { ${a.kind} } from '../api/${a.version}/zz_generated.kinds.js';`
    : `import { ${a.kind} } from '@operant/runtime';`;
}

export function controllerFile(a: ApiTemplateInput): string {
  const rbacGroup = a.qualifiedGroup === '' ? 'core' : a.qualifiedGroup;
  const getOptions = a.namespaced ? '{ namespace: req.namespace }' : '{}';
  return `import { ignoreNotFound, type Manager, type ReconcileContext, type ReconcileResult, type Request } from '@operant/runtime';
${kindImport(a)}

// +kubebuilder:rbac:groups=${rbacGroup},resources=${a.plural},verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=${rbacGroup},resources=${a.plural}/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=${rbacGroup},resources=${a.plural}/finalizers,verbs=update

/**
 * Reconcile is part of the main kubernetes reconciliation loop which aims to
 * move the current state of the cluster closer to the desired state.
 * TODO(user): compare the state the ${a.kind} object specifies with the actual
 * cluster state, then act to make the cluster state reflect it.
 */
export async function reconcile${a.kind}(req: Request, ctx: ReconcileContext): Promise<ReconcileResult | void> {
  const object = await ctx.client.get(${a.kind}, req.name, ${getOptions}).catch(ignoreNotFound);
  // Deleted since it was queued: nothing to do (owned objects are garbage collected).
  if (!object) return;
  // TODO(user): your logic here
  ctx.log.info({ resourceVersion: object.metadata.resourceVersion }, 'reconciled ${a.kind}');
}

/** Registers the ${a.kind} controller with the manager. */
export function setup${a.kind}Controller(mgr: Manager): void {
  mgr.controller('${a.kind.toLowerCase()}').for(${a.kind}).reconcile(reconcile${a.kind});
}
`;
}

export function controllerTest(a: ApiTemplateInput): string {
  const file = `${a.kind.toLowerCase()}-controller`;
  const name = `test-${a.kind.toLowerCase()}`;
  const ns = a.namespaced ? `namespace: 'default', ` : '';
  // A built-in kind's objects need kind-specific fields: its scaffolded test only starts the controller.
  const reconcileTest = a.resource
    ? `
  it('reconciles a ${a.kind} it is given', async () => {
    let reconciled!: (name: string) => void;
    const seen = new Promise<string>((resolve) => (reconciled = resolve));
    const { stop } = await env.startManager((mgr) =>
      mgr.controller('${a.kind.toLowerCase()}-test').for(${a.kind}).reconcile(async (req, ctx) => {
        await reconcile${a.kind}(req, ctx);
        reconciled(req.name);
      }),
    );
    try {
      // TODO(user): add the fields your tests need.
      await env.client.create(${a.kind}, { metadata: { ${ns}name: '${name}' }, spec: {} });
      assert.equal(await seen, '${name}');
    } finally {
      await stop();
    }
  });
`
    : '';
  return `import { after, before, describe, it } from 'node:test';
${a.resource ? "import assert from 'node:assert/strict';\n" : ''}import { ${a.resource ? `reconcile${a.kind}, ` : ''}setup${a.kind}Controller } from '../src/controllers/${file}.js';
${a.resource ? `${kindImport(a).replace("'../api/", "'../src/api/")}\n` : ''}import { startTestEnv, type TestEnv } from './support.js';

describe('${a.kind} controller', () => {
  let env: TestEnv;
  before(async () => {
    env = await startTestEnv();
  });
  after(async () => {
    await env.stop();
  });
${reconcileTest}
  it('starts and stops with a manager', async () => {
    const { stop } = await env.startManager(setup${a.kind}Controller);
    await stop();
  });
});
`;
}
