/**
 * The tests' environment: an embedded API server (in this process, over real
 * HTTPS), the project's CRDs installed from config/crd/bases, and a manager
 * started with the controllers under test, or the whole operator with its
 * webhook server on a local port and config/webhook/manifests.yaml installed
 * and pointed at it (as `operant dev` does).
 *
 * The operator never runs as admin: its managers act as the ServiceAccount
 * `sidecarset-system:controller-manager`, bound to the ClusterRole that
 * `operant generate` writes from the RBAC markers (config/rbac/role.yaml), so
 * a missing marker fails a test as it would fail on a cluster. Its
 * ControllerRevisions go to its namespace, `sidecarset-system`. The
 * installing is demo/local-operator.ts, which `npm start` uses too.
 */
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Client, generateServingCertificate, Manager, loadKubeConfig, type ClientConfig, type Kind, type KubeObject } from '@operant/runtime';
import { installCrds, installLocalWebhooks, installOperatorIdentity, removeLocalWebhooks } from '../demo/local-operator.js';
import { setupSidecarSetController } from '../src/controllers/sidecarset-controller.js';
import { setupSidecarSetDefaultingWebhook, setupSidecarSetValidatingWebhook } from '../src/webhooks/v1alpha1/sidecarset-webhook.js';
import { setupPodDefaultingWebhook } from '../src/webhooks/v1/pod-webhook.js';

export { operatorNamespace } from '../demo/local-operator.js';

export interface TestEnv {
  server: RunningApiServer;
  /** An admin client, and its connection. */
  client: Client;
  adminConfig: ClientConfig;
  /** The operator's connection: the ServiceAccount bound to the generated ClusterRole. */
  operatorConfig: ClientConfig;
  /** Starts a manager with the given setup functions; stop() stops it. */
  startManager(...setups: Array<(mgr: Manager) => void>): Promise<{ mgr: Manager; stop(): Promise<void> }>;
  /** The whole operator (controller and webhooks), connecting with `kubeconfig` (default: as its ServiceAccount). */
  startOperator(options?: { kubeconfig?: ClientConfig }): Promise<{ mgr: Manager; stop(): Promise<void> }>;
  /** Resolves with the object once `done` holds for it (watching, no polling); rejects after `timeoutMs`. */
  waitFor<T extends KubeObject>(kind: Kind<T>, name: string, done: (obj: T) => boolean, options?: { namespace?: string; timeoutMs?: number }): Promise<T>;
  stop(): Promise<void>;
}

export async function startTestEnv(): Promise<TestEnv> {
  const server = await startApiServer({ port: 0 });
  const config = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
  const client = Client.fromConfig(config);
  await installCrds(client);
  const operatorConfig = await installOperatorIdentity(client, config);

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

  /** A manager with `setups`, its webhook server on a local port, and the webhook configurations pointed at it. */
  async function runWithWebhooks(kubeconfig: ClientConfig, setups: Array<(mgr: Manager) => void>) {
    const certs = await generateServingCertificate();
    const mgr = await Manager.create({ kubeconfig, webhook: { port: 0, host: '127.0.0.1', certificates: certs.source } });
    const running = await run(mgr, setups);
    const { port } = await mgr.webhookServer.listening();
    const installed = await installLocalWebhooks(client, { port, caPem: certs.caPem });
    return {
      mgr,
      async stop() {
        await removeLocalWebhooks(client, installed);
        await running.stop();
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
    startOperator(options = {}) {
      return runWithWebhooks(options.kubeconfig ?? operatorConfig, [setupSidecarSetController, setupSidecarSetDefaultingWebhook, setupPodDefaultingWebhook, setupSidecarSetValidatingWebhook]);
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
