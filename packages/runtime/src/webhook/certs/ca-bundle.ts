/**
 * Writing a webhook's CA into the objects that tell the API server to trust
 * it, as cert-manager's cainjector does: `clientConfig.caBundle` of every
 * webhook in the named admission configurations, and of the conversion webhook
 * of the named CRDs. Each object is read fresh, changed only when its bundle
 * differs, and written with its resourceVersion; a 409 means someone else
 * wrote in between, so it is read and tried again.
 */
import type { KubeObject } from '@operant/apimachinery';
import { retryOnConflict, type Client, type GetOptions, type WriteOptions } from '../../client/index.js';
import type { Kind } from '../../kind.js';
import type { WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import { CustomResourceDefinition, MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../../builtins.js';
import { parseCertificate } from './pair.js';

/**
 * The objects to write a caBundle into, by name.
 *
 * @example
 * ```ts
 * import type { CABundleTargets } from '@operant/runtime';
 *
 * const targets: CABundleTargets = { mutating: ['sidecarset-mutating'], validating: ['sidecarset-validating'], crds: ['sidecarsets.apps.kruise.io'] };
 * ```
 */
export interface CABundleTargets {
  /** MutatingWebhookConfiguration names. */
  mutating?: readonly string[];
  /** ValidatingWebhookConfiguration names. */
  validating?: readonly string[];
  /** CustomResourceDefinition names (`<plural>.<group>`); those whose conversion strategy is not Webhook are skipped. */
  crds?: readonly string[];
}

/**
 * What happened to one object: `updated` (written), `unchanged` (already
 * carried the bundle, nothing written) or `skipped` (a CRD without webhook conversion).
 *
 * @example
 * ```ts
 * import type { CABundleOutcome } from '@operant/runtime';
 *
 * const outcome: CABundleOutcome = { kind: 'CustomResourceDefinition', name: 'widgets.example.com', result: 'skipped' };
 * ```
 */
export interface CABundleOutcome {
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration' | 'CustomResourceDefinition';
  name: string;
  result: 'updated' | 'unchanged' | 'skipped';
}

/**
 * Options of {@link injectCABundle}.
 *
 * @example
 * ```ts
 * import type { InjectCABundleOptions } from '@operant/runtime';
 *
 * const options: InjectCABundleOptions = { retries: 10, fieldManager: 'my-operator' };
 * ```
 */
export interface InjectCABundleOptions {
  /** Attempts per object when writes conflict; default 5 (client-go's `retry.DefaultRetry`). */
  retries?: number;
  /** The field manager recorded for the writes. */
  fieldManager?: string;
  signal?: AbortSignal;
}

/**
 * The client calls {@link injectCABundle} makes; a {@link Client} has them.
 *
 * @example
 * ```ts
 * import { type CABundleClient, Client, loadKubeConfig } from '@operant/runtime';
 *
 * const calls: CABundleClient = Client.fromConfig(await loadKubeConfig());
 * ```
 */
export interface CABundleClient {
  get<T extends KubeObject>(kind: Kind<T>, name: string, opts?: GetOptions): Promise<T>;
  update<T extends KubeObject>(kind: Kind<T>, obj: T, opts?: WriteOptions): Promise<T>;
}

/**
 * Sets `clientConfig.caBundle` (base64 of `caPem`) on every webhook of the
 * named Mutating- and ValidatingWebhookConfigurations and on the conversion
 * webhook of the named CRDs. Objects already carrying the bundle are not
 * written; conflicting writes are retried on a fresh read. A named object that
 * does not exist rejects with the client's NotFound error.
 *
 * @example
 * ```ts
 * import { ensureLocalCertificates, injectCABundle } from '@operant/runtime';
 *
 * const certs = await ensureLocalCertificates('.operant/webhook-certs');
 * const outcomes = await injectCABundle(client, certs.caPem, {
 *   mutating: ['sidecarset-mutating'],
 *   validating: ['sidecarset-validating'],
 *   crds: ['sidecarsets.apps.kruise.io'],
 * });
 * ```
 */
export async function injectCABundle(
  client: CABundleClient,
  caPem: string,
  targets: CABundleTargets,
  options: InjectCABundleOptions = {},
): Promise<CABundleOutcome[]> {
  parseCertificate(caPem, 'the CA bundle');
  const caBundle = Buffer.from(caPem, 'utf8').toString('base64');
  const outcomes: CABundleOutcome[] = [];
  const each = async (kind: Kind<KubeObject>, names: readonly string[] | undefined, set: (obj: KubeObject) => boolean | 'skip'): Promise<void> => {
    for (const name of names ?? []) {
      const result = await writeWithRetry(client, kind, name, set, options);
      outcomes.push({ kind: kind.kind as CABundleOutcome['kind'], name, result });
    }
  };
  await each(MutatingWebhookConfiguration, targets.mutating, (obj) => setOnWebhooks(obj, caBundle));
  await each(ValidatingWebhookConfiguration, targets.validating, (obj) => setOnWebhooks(obj, caBundle));
  await each(CustomResourceDefinition, targets.crds, (obj) => setOnConversion(obj, caBundle));
  return outcomes;
}

/**
 * A clientConfig for a webhook served on this machine, for configurations used
 * with a local or embedded API server (`https://127.0.0.1:<port><path>`).
 *
 * @example
 * ```ts
 * import { generateServingCertificate, localWebhookClientConfig } from '@operant/runtime';
 *
 * const certs = await generateServingCertificate();
 * const clientConfig = localWebhookClientConfig({ port: 9443, path: '/convert', caPem: certs.caPem });
 * // { url: 'https://127.0.0.1:9443/convert', caBundle: 'LS0tLS1CRUdJTi...' }
 * ```
 */
export function localWebhookClientConfig(options: { port: number; path: string; host?: string; caPem?: string }): WebhookClientConfig {
  const host = options.host ?? '127.0.0.1';
  const authority = host.includes(':') ? `[${host}]` : host;
  const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
  const config: WebhookClientConfig = { url: `https://${authority}:${options.port}${path}` };
  if (options.caPem !== undefined) config.caBundle = Buffer.from(options.caPem, 'utf8').toString('base64');
  return config;
}

/** Sets the bundle on each webhook; false when every one already had it. */
function setOnWebhooks(obj: KubeObject, caBundle: string): boolean {
  const webhooks = (obj as { webhooks?: Array<{ clientConfig?: WebhookClientConfig }> }).webhooks ?? [];
  let changed = false;
  for (const webhook of webhooks) {
    if (webhook.clientConfig?.caBundle === caBundle) continue;
    webhook.clientConfig = { ...webhook.clientConfig, caBundle };
    changed = true;
  }
  return changed;
}

/** Sets the bundle on the conversion webhook; 'skip' unless the strategy is Webhook (as cainjector does). */
function setOnConversion(obj: KubeObject, caBundle: string): boolean | 'skip' {
  const spec = (obj as { spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: WebhookClientConfig } } } }).spec;
  const conversion = spec?.conversion;
  if (!conversion || conversion.strategy !== 'Webhook') return 'skip';
  conversion.webhook ??= {};
  if (conversion.webhook.clientConfig?.caBundle === caBundle) return false;
  conversion.webhook.clientConfig = { ...conversion.webhook.clientConfig, caBundle };
  return true;
}

/** Read, change, write; on 409 start over from a fresh read, paced as client-go's DefaultRetry. */
function writeWithRetry(
  client: CABundleClient,
  kind: Kind<KubeObject>,
  name: string,
  set: (obj: KubeObject) => boolean | 'skip',
  options: InjectCABundleOptions,
): Promise<CABundleOutcome['result']> {
  return retryOnConflict(
    async () => {
      const obj = await client.get(kind, name, { signal: options.signal, live: true });
      const changed = set(obj);
      if (changed === 'skip') return 'skipped';
      if (!changed) return 'unchanged';
      await client.update(kind, obj, { fieldManager: options.fieldManager, signal: options.signal });
      return 'updated';
    },
    { steps: options.retries, signal: options.signal },
  );
}
