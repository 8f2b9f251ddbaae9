/**
 * The tests' environment: an embedded API server (in this process, over real
 * HTTPS), the project's CRDs installed from config/crd/bases, and a manager
 * started with the controllers under test; with `webhooks: true`, also its
 * webhook server on a local port, with config/webhook/manifests.yaml installed
 * and pointed at it (as `operant dev` does).
 *
 * The operator never runs as admin: its managers act as the ServiceAccount
 * `sidecarset-system:controller-manager`, bound to the ClusterRole that
 * `operant generate` writes from the RBAC markers (config/rbac/role.yaml), so
 * a missing marker fails a test as it would fail on a cluster. Its
 * ControllerRevisions go to its namespace, `sidecarset-system`.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import {
  Client,
  ClusterRole,
  ClusterRoleBinding,
  CustomResourceDefinition,
  Namespace,
  generateServingCertificate,
  localWebhookClientConfig,
  Manager,
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  loadKubeConfig,
  type ClientConfig,
  type Kind,
  type KubeObject,
} from '@operant/runtime';

/** The operator's namespace and ServiceAccount, as config/default deploys them. */
export const operatorNamespace = 'sidecarset-system';
const operatorUser = `system:serviceaccount:${operatorNamespace}:controller-manager`;

export interface TestEnv {
  server: RunningApiServer;
  /** An admin client, and its connection. */
  client: Client;
  adminConfig: ClientConfig;
  /** The operator's connection: the ServiceAccount bound to the generated ClusterRole. */
  operatorConfig: ClientConfig;
  /** Starts a manager with the given setup functions; stop() stops it. */
  startManager(...setups: Array<(mgr: Manager) => void>): Promise<{ mgr: Manager; stop(): Promise<void> }>;
  /** The same, serving webhooks that the API server calls. */
  startManagerWithWebhooks(...setups: Array<(mgr: Manager) => void>): Promise<{ mgr: Manager; stop(): Promise<void> }>;
  /** Resolves with the object once `done` holds for it (watching, no polling); rejects after `timeoutMs`. */
  waitFor<T extends KubeObject>(kind: Kind<T>, name: string, done: (obj: T) => boolean, options?: { namespace?: string; timeoutMs?: number }): Promise<T>;
  stop(): Promise<void>;
}

/** Beside this file, not the working directory: a monorepo's test runner may start elsewhere. */
const projectFile = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));

function documents(file: string): KubeObject[] {
  if (!existsSync(file)) return [];
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null);
}

export async function startTestEnv(): Promise<TestEnv> {
  const server = await startApiServer({ port: 0 });
  const config = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
  const client = Client.fromConfig(config);
  const crdDir = projectFile('config/crd/bases');
  const crds = existsSync(crdDir) ? readdirSync(crdDir).filter((f) => f.endsWith('.yaml')) : [];
  for (const file of crds) for (const crd of documents(join(crdDir, file))) await client.create(CustomResourceDefinition, crd);
  await client.create(Namespace, { metadata: { name: operatorNamespace } });
  const operatorConfig = await bindOperatorRole(client, config);

  async function run(mgr: Manager, setups: Array<(mgr: Manager) => void>) {
    for (const setup of setups) setup(mgr);
    const stopper = new AbortController();
    const running = mgr.start(stopper.signal);
    return {
      mgr,
      async stop() {
        stopper.abort();
        await running;
      },
    };
  }

  return {
    server,
    client,
    adminConfig: config,
    operatorConfig,
    async startManager(...setups) {
      return run(await Manager.create({ kubeconfig: operatorConfig }), setups);
    },
    async startManagerWithWebhooks(...setups) {
      const certs = await generateServingCertificate();
      const mgr = await Manager.create({ kubeconfig: operatorConfig, webhook: { port: 0, host: '127.0.0.1', certificates: certs.source } });
      const running = await run(mgr, setups);
      const { port } = await mgr.webhookServer.listening();
      const installed: Array<{ kind: Kind; name: string }> = [];
      for (const configuration of documents(projectFile('config/webhook/manifests.yaml'))) {
        const kind = configuration.kind === 'MutatingWebhookConfiguration' ? MutatingWebhookConfiguration : ValidatingWebhookConfiguration;
        const webhooks = (configuration.webhooks ?? []) as Array<{ clientConfig: { service?: { path?: string } } }>;
        for (const w of webhooks) w.clientConfig = localWebhookClientConfig({ port, path: w.clientConfig.service?.path ?? '/', caPem: certs.caPem });
        await client.create(kind, configuration);
        installed.push({ kind, name: configuration.metadata.name! });
      }
      return {
        mgr,
        async stop() {
          for (const { kind, name } of installed) await client.delete(kind, name);
          await running.stop();
        },
      };
    },
    async waitFor(kind, name, done, options = {}) {
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 10_000);
      let last: unknown;
      try {
        for await (const event of client.watch(kind, { namespace: options.namespace, fieldSelector: `metadata.name=${name}`, signal: abort.signal })) {
          if (event.type !== 'ADDED' && event.type !== 'MODIFIED') continue;
          last = event.object;
          if (done(event.object)) return event.object;
        }
      } catch (err) {
        if (!abort.signal.aborted) throw err;
      } finally {
        clearTimeout(timer);
        abort.abort();
      }
      throw new Error(`${kind.kind} ${name}: not as expected after ${options.timeoutMs ?? 10_000} ms; last seen: ${JSON.stringify(last)}`);
    },
    async stop() {
      client.close();
      await server.stop();
    },
  };
}

/**
 * Installs the generated ClusterRole, binds it to the operator's
 * ServiceAccount, and returns a connection that acts as that account
 * (impersonated by the admin, as `kubectl --as` does).
 */
async function bindOperatorRole(client: Client, admin: ClientConfig): Promise<ClientConfig> {
  const [role] = documents(projectFile('config/rbac/role.yaml'));
  if (!role) throw new Error('config/rbac/role.yaml: no ClusterRole; run `npm run manifests`');
  await client.create(ClusterRole, role as never);
  await client.create(ClusterRoleBinding, {
    metadata: { name: 'manager-rolebinding' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name! },
    subjects: [{ kind: 'ServiceAccount', name: 'controller-manager', namespace: operatorNamespace }],
  });
  return { ...admin, impersonate: { user: operatorUser, groups: ['system:serviceaccounts', `system:serviceaccounts:${operatorNamespace}`, 'system:authenticated'] } };
}
