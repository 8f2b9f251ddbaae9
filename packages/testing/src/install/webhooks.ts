/**
 * Webhook configurations for a webhook server on this machine: the
 * operator's own manifests (`config/webhook/manifests.yaml`), with every
 * webhook's clientConfig pointed at `https://127.0.0.1:<port><path>` and the
 * local CA as caBundle, so that the API server calls the webhooks being run
 * or tested (envtest's WebhookInstallOptions, in small). Left behind, they
 * would fail every write of their kinds once the webhook server is gone:
 * remove them with {@link removeLocalWebhooks}.
 */
import {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  ignoreNotFound,
  localWebhookClientConfig,
  type Client,
  type Kind,
  type KubeObject,
} from '@operant/runtime';
import { createOrReplace, type InstallOptions } from './objects.js';

interface WebhookEntry {
  clientConfig?: { service?: { path?: string }; url?: string };
}

/** The webhook configurations installed, to remove when the webhook server goes. */
export type InstalledWebhooks = Array<{ kind: Kind; name: string }>;

/** Where the local webhook server listens, and the CA its certificate is signed by. */
export interface LocalWebhookTarget {
  port: number;
  caPem: string;
}

/**
 * Installs the webhook configurations among `objects` (any other kind is
 * refused), every webhook pointed at `target` on its service's path (or its
 * url's); returns what was installed.
 *
 * @example
 * ```ts
 * import type { Client } from '@operant/runtime';
 * import { installLocalWebhooks, projectManifests, removeLocalWebhooks } from '@operant/testing/install';
 *
 * declare const client: Client;
 * declare const caPem: string;
 * const { webhooks } = await projectManifests('.');
 * const installed = await installLocalWebhooks(client, webhooks, { port: 9443, caPem }, { replace: true });
 * // ... run the webhook server on 9443, then:
 * await removeLocalWebhooks(client, installed);
 * ```
 */
export async function installLocalWebhooks(client: Client, objects: readonly KubeObject[], target: LocalWebhookTarget, opts: InstallOptions = {}): Promise<InstalledWebhooks> {
  const kinds = objects.map((config) => {
    const kind: Kind | undefined = config.kind === 'MutatingWebhookConfiguration' ? MutatingWebhookConfiguration : config.kind === 'ValidatingWebhookConfiguration' ? ValidatingWebhookConfiguration : undefined;
    if (!kind) throw new Error(`webhooks: ${config.kind} ${config.metadata?.name ?? ''} is not a webhook configuration`);
    return kind;
  });
  await Promise.all(
    objects.map((config, i) => {
      const webhooks = ((config as KubeObject & { webhooks?: WebhookEntry[] }).webhooks ?? []).map((w) => {
        const path = w.clientConfig?.service?.path ?? (w.clientConfig?.url ? new URL(w.clientConfig.url).pathname : '/');
        return { ...w, clientConfig: localWebhookClientConfig({ port: target.port, path, caPem: target.caPem }) };
      });
      return createOrReplace(client, kinds[i]!, { ...config, webhooks } as KubeObject, opts);
    }),
  );
  return objects.map((config, i) => ({ kind: kinds[i]!, name: config.metadata.name! }));
}

/** Deletes the webhook configurations {@link installLocalWebhooks} installed; one already gone is no error. */
export async function removeLocalWebhooks(client: Client, installed: InstalledWebhooks): Promise<void> {
  await Promise.all(installed.map(({ kind, name }) => client.delete(kind, name).then(() => undefined, ignoreNotFound)));
}
