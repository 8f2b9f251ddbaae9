/**
 * Installing this operator on a cluster for a local run, as the demo and the
 * tests do: the CRDs of config/crd/bases, the operator's namespace, its
 * ServiceAccount bound to the ClusterRole that `operant generate` writes from
 * the RBAC markers (config/rbac/role.yaml), and the webhook configurations of
 * config/webhook/manifests.yaml pointed at a webhook server on this machine.
 *
 * The operator then connects as its ServiceAccount (the admin impersonates
 * it, as `kubectl --as` does), never as admin: a missing RBAC marker fails
 * here as it would on a cluster. The installing itself is @operant/testing's
 * (the one `operant dev` and TestEnv use); what is here is this project's.
 */
import { fileURLToPath } from 'node:url';
import { ClusterRole, ClusterRoleBinding, Namespace, ServiceAccount, ignoreAlreadyExists, type Client, type ClientConfig } from '@operant/runtime';
import {
  createOrReplace,
  installCrds as installCrdObjects,
  installLocalWebhooks as installWebhookObjects,
  projectManifests,
  readManifests,
  removeLocalWebhooks,
  type InstalledWebhooks,
} from '@operant/testing/install';

export { removeLocalWebhooks, type InstalledWebhooks };

/** The operator's namespace and ServiceAccount, as config/default deploys them. */
export const operatorNamespace = 'sidecarset-system';
export const operatorServiceAccount = 'controller-manager';

/** A file of this project (beside demo/, whatever the working directory). */
export const projectFile = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Installs (or replaces) the CRDs of config/crd/bases and waits until each is Established; returns their names. */
export async function installCrds(client: Client): Promise<string[]> {
  const { crds } = await projectManifests(projectFile(''));
  await installCrdObjects(client, crds, { replace: true });
  return crds.map((crd) => crd.metadata.name!);
}

/**
 * Makes the operator's namespace and ServiceAccount, installs the generated
 * ClusterRole and binds it to the account; returns `admin` turned into a
 * connection that acts as that account.
 */
export async function installOperatorIdentity(client: Client, admin: ClientConfig): Promise<ClientConfig> {
  const replace = { replace: true };
  const [role] = await readManifests(projectFile('config/rbac/role.yaml'));
  if (!role) throw new Error('config/rbac/role.yaml: no ClusterRole; run `npm run manifests`');
  await client.create(Namespace, { metadata: { name: operatorNamespace } }).catch(ignoreAlreadyExists);
  await createOrReplace(client, ServiceAccount, { metadata: { name: operatorServiceAccount, namespace: operatorNamespace } }, replace);
  await createOrReplace(client, ClusterRole, role as never, replace);
  await createOrReplace(client, ClusterRoleBinding, {
    metadata: { name: 'manager-rolebinding' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name! },
    subjects: [{ kind: 'ServiceAccount', name: operatorServiceAccount, namespace: operatorNamespace }],
  }, replace);
  const user = `system:serviceaccount:${operatorNamespace}:${operatorServiceAccount}`;
  return { ...admin, impersonate: { user, groups: ['system:serviceaccounts', `system:serviceaccounts:${operatorNamespace}`, 'system:authenticated'] } };
}

/**
 * Installs (or replaces) config/webhook/manifests.yaml with every webhook
 * pointed at `https://127.0.0.1:<port><path>`, trusting `caPem`.
 */
export async function installLocalWebhooks(client: Client, target: { port: number; caPem: string }): Promise<InstalledWebhooks> {
  const { webhooks } = await projectManifests(projectFile(''));
  return installWebhookObjects(client, webhooks, target, { replace: true });
}
