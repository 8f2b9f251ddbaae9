/**
 * The webhook configurations of a test environment: the operator's own
 * manifests (`config/webhook/manifests.yaml`), with every webhook's
 * clientConfig pointed at this machine, `https://127.0.0.1:<port><path>`, and
 * the process CA as caBundle, so that the API server calls the webhook server
 * of the manager under test (envtest's WebhookInstallOptions, in small).
 */
import {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  localWebhookClientConfig,
  type Client,
  type Kind,
  type KubeObject,
} from '@operant/runtime';

interface WebhookEntry {
  clientConfig?: { service?: { path?: string }; url?: string };
}

/** Installs the webhook configurations among `objects`, pointed at `port`; returns what was installed. */
export async function installWebhooks(client: Client, objects: readonly KubeObject[], target: { port: number; caPem: string }): Promise<Array<{ kind: Kind; name: string }>> {
  const installed: Array<{ kind: Kind; name: string }> = [];
  await Promise.all(
    objects.map(async (config) => {
      const kind: Kind | undefined = config.kind === 'MutatingWebhookConfiguration' ? MutatingWebhookConfiguration : config.kind === 'ValidatingWebhookConfiguration' ? ValidatingWebhookConfiguration : undefined;
      if (!kind) throw new Error(`webhooks: ${config.kind} ${config.metadata?.name ?? ''} is not a webhook configuration`);
      const webhooks = ((config as KubeObject & { webhooks?: WebhookEntry[] }).webhooks ?? []).map((w) => {
        const path = w.clientConfig?.service?.path ?? (w.clientConfig?.url ? new URL(w.clientConfig.url).pathname : '/');
        return { ...w, clientConfig: localWebhookClientConfig({ port: target.port, path, caPem: target.caPem }) };
      });
      await client.create(kind, { ...config, webhooks } as KubeObject);
      installed.push({ kind, name: config.metadata.name! });
    }),
  );
  return installed;
}
