/**
 * Installing this operator on a cluster for a local run, as the demo and the
 * tests do: the CRDs of config/crd/bases, the operator's namespace, its
 * ServiceAccount bound to the ClusterRole that `operant generate` writes from
 * the RBAC markers (config/rbac/role.yaml), and the webhook configurations of
 * config/webhook/manifests.yaml pointed at a webhook server on this machine.
 *
 * The operator then connects as its ServiceAccount (the admin impersonates
 * it, as `kubectl --as` does), never as admin: a missing RBAC marker fails
 * here as it would on a cluster.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import {
  ClusterRole,
  ClusterRoleBinding,
  CustomResourceDefinition,
  MutatingWebhookConfiguration,
  Namespace,
  ServiceAccount,
  ValidatingWebhookConfiguration,
  ignoreNotFound,
  isAlreadyExists,
  localWebhookClientConfig,
  type Client,
  type ClientConfig,
  type Kind,
  type KubeObject,
} from '@operant/runtime';

/** The operator's namespace and ServiceAccount, as config/default deploys them. */
export const operatorNamespace = 'sidecarset-system';
export const operatorServiceAccount = 'controller-manager';

/** A file of this project (beside demo/, whatever the working directory). */
export const projectFile = (path: string): string => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** The objects of a YAML file (none when it does not exist), read as `T`. */
export function manifests<T extends KubeObject = KubeObject>(file: string): T[] {
  if (!existsSync(file)) return [];
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as T | null)
    .filter((d): d is T => d !== null && typeof d === 'object');
}

/** Creates the object, or replaces the one of that name. */
export async function createOrReplace<T extends KubeObject>(client: Client, kind: Kind<T>, obj: T): Promise<T> {
  try {
    return await client.create(kind, obj);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const current = await client.get(kind, obj.metadata.name!, { namespace: obj.metadata.namespace });
    return client.update(kind, { ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion } });
  }
}

/** Installs (or replaces) the CRDs of config/crd/bases and waits until each is Established. */
export async function installCrds(client: Client): Promise<string[]> {
  const dir = projectFile('config/crd/bases');
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort() : [];
  const names: string[] = [];
  for (const file of files) {
    for (const crd of manifests(join(dir, file))) names.push((await createOrReplace(client, CustomResourceDefinition, crd)).metadata.name!);
  }
  for (const name of names) await waitEstablished(client, name);
  return names;
}

async function waitEstablished(client: Client, name: string, timeoutMs = 15_000): Promise<void> {
  const abort = AbortSignal.timeout(timeoutMs);
  const established = (crd: KubeObject) =>
    ((crd as { status?: { conditions?: Array<{ type: string; status: string }> } }).status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  if (established(await client.get(CustomResourceDefinition, name))) return;
  try {
    for await (const event of client.watch(CustomResourceDefinition, { fieldSelector: `metadata.name=${name}`, signal: abort })) {
      if ((event.type === 'ADDED' || event.type === 'MODIFIED') && established(event.object)) return;
    }
  } catch (err) {
    if (!abort.aborted) throw err;
  }
  throw new Error(`CRD ${name} is not Established after ${timeoutMs / 1000} s`);
}

/**
 * Makes the operator's namespace and ServiceAccount, installs the generated
 * ClusterRole and binds it to the account; returns `admin` turned into a
 * connection that acts as that account.
 */
export async function installOperatorIdentity(client: Client, admin: ClientConfig): Promise<ClientConfig> {
  const [role] = manifests(projectFile('config/rbac/role.yaml'));
  if (!role) throw new Error('config/rbac/role.yaml: no ClusterRole; run `npm run manifests`');
  await client.create(Namespace, { metadata: { name: operatorNamespace } }).catch(ignoreAlreadyExists);
  await createOrReplace(client, ServiceAccount, { metadata: { name: operatorServiceAccount, namespace: operatorNamespace } });
  await createOrReplace(client, ClusterRole, role as never);
  await createOrReplace(client, ClusterRoleBinding, {
    metadata: { name: 'manager-rolebinding' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name! },
    subjects: [{ kind: 'ServiceAccount', name: operatorServiceAccount, namespace: operatorNamespace }],
  });
  const user = `system:serviceaccount:${operatorNamespace}:${operatorServiceAccount}`;
  return { ...admin, impersonate: { user, groups: ['system:serviceaccounts', `system:serviceaccounts:${operatorNamespace}`, 'system:authenticated'] } };
}

/** What {@link installLocalWebhooks} installed, to remove when the webhook server goes. */
export type InstalledWebhooks = Array<{ kind: Kind; name: string }>;

/**
 * Installs (or replaces) config/webhook/manifests.yaml with every webhook
 * pointed at `https://127.0.0.1:<port><path>`, trusting `caPem`.
 */
export async function installLocalWebhooks(client: Client, target: { port: number; caPem: string }): Promise<InstalledWebhooks> {
  const installed: InstalledWebhooks = [];
  for (const configuration of manifests(projectFile('config/webhook/manifests.yaml'))) {
    const kind: Kind = configuration.kind === 'MutatingWebhookConfiguration' ? MutatingWebhookConfiguration : ValidatingWebhookConfiguration;
    const webhooks = ((configuration as { webhooks?: Array<{ clientConfig: { service?: { path?: string } } }> }).webhooks ?? []).map((w) => ({
      ...w,
      clientConfig: localWebhookClientConfig({ port: target.port, path: w.clientConfig.service?.path ?? '/', caPem: target.caPem }),
    }));
    await createOrReplace(client, kind, { ...configuration, webhooks } as never);
    installed.push({ kind, name: configuration.metadata.name! });
  }
  return installed;
}

/** Deletes the webhook configurations installed (a configuration left behind would fail every pod creation). */
export async function removeLocalWebhooks(client: Client, installed: InstalledWebhooks): Promise<void> {
  for (const { kind, name } of installed) await client.delete(kind, name).catch(ignoreNotFound);
}

function ignoreAlreadyExists(err: unknown): void {
  if (!isAlreadyExists(err)) throw err;
}
