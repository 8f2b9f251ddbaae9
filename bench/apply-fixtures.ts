/**
 * The objects of the `apply` benchmark (apply.ts): a Deployment as an operator
 * applies it, and the `crd` benchmark's Application custom resource, each with
 * one field set from a counter so that every write changes something.
 */
import type { Client } from './client.js';
import { application, applicationCrd, checkedSchema, countFields } from './crd-fixtures.js';

const group = 'apply.bench.operant.dev';
export const applyType = 'application/apply-patch+yaml';
export const manager = 'bench-operator';

export interface Target {
  name: string;
  collection: string;
  /** The object a manager owns, with one field set from `i` so that each write changes it. */
  object(name: string, i: number): Record<string, unknown>;
}

export const deployments: Target = {
  name: 'Deployment',
  collection: '/apis/apps/v1/namespaces/default/deployments',
  object: (name, i) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels: { app: 'shop', tier: 'frontend' }, annotations: { 'bench.operant.dev/revision': String(i) } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'shop', tier: 'frontend' } },
      template: {
        metadata: { labels: { app: 'shop', tier: 'frontend' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'registry.example.com/shop/frontend:v1.27.3',
              ports: [{ name: 'http', containerPort: 8080 }],
              env: [
                { name: 'LOG_LEVEL', value: 'info' },
                { name: 'DATABASE_URL', value: 'postgres://db.example.com:5432/shop' },
              ],
              resources: { requests: { cpu: '500m', memory: '256Mi' }, limits: { memory: '512Mi' } },
              readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 5 },
            },
            { name: 'proxy', image: 'registry.example.com/proxy:2.4', ports: [{ name: 'metrics', containerPort: 9090 }] },
          ],
        },
      },
    },
  }),
};

export const applications: Target = {
  name: `CR (${countFields(checkedSchema)}-field schema)`,
  collection: `/apis/${group}/v1/namespaces/default/applications`,
  object: (name, i) => {
    const o = application(group, name, 7) as { spec: Record<string, unknown> };
    o.spec.displayName = `Bench application ${i}`;
    return o;
  },
};

/** Installs the Application CRD and checks that an apply of one is accepted. */
export async function installApplicationCrd(client: Client): Promise<void> {
  await client.ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', applicationCrd(group, checkedSchema));
  const probe = JSON.stringify(applications.object('probe', 0));
  const r = await client.send('PATCH', `${applications.collection}/probe?fieldManager=${manager}&dryRun=All`, probe, applyType);
  if (r.status !== 201) throw new Error(`apply of an Application: ${r.status} ${r.body.toString('utf8').slice(0, 500)}`);
}
