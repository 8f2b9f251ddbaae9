/**
 * Webhook configurations for a manager run on a developer's machine (`node
 * src/main.ts` against a cluster or an embedded API server): one
 * MutatingWebhookConfiguration and one ValidatingWebhookConfiguration that
 * point the API server at this process (`https://127.0.0.1:<port><path>`,
 * the local CA as caBundle), made from the typed webhooks the builder
 * registered, installed when the webhook server listens and deleted at
 * shutdown. Deleting matters more than installing: a configuration left
 * behind points at a dead port, and with kubebuilder's `failurePolicy: Fail`
 * every write of its kinds then fails. A run killed before it could delete
 * them is repaired by the next one, which replaces configurations of the same
 * name; `kubectl delete mutatingwebhookconfigurations,validatingwebhookconfigurations
 * -l app.kubernetes.io/managed-by=operant-local` removes them by hand.
 *
 * In a cluster none of this runs: the configurations are deployed with the
 * operator (config/webhook) and the caBundle injected by cert-manager.
 */
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '@operant/apimachinery';
import type { Client } from '../client/client.js';
import { isConflict, isNotFound } from '../client/api-error.js';

import type { Kind } from '../kind.js';
import {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  type MutatingWebhookConfigurationObject,
  type Typed,
  type ValidatingWebhookConfigurationObject,
  type WebhookRule,
} from '../builtins.js';
import type { TypedWebhook } from './builder.js';
import { localWebhookClientConfig } from './certs/ca-bundle.js';
import { CertificateError, parseCertificate } from './certs/pair.js';
import type { CertificateSource } from './contracts.js';
import type { LogMethods } from '../logging/log.js';

/**
 * Options of a manager that installs its own webhook configurations (a local
 * run only; see `ManagerWebhookOptions.localConfigurations`).
 *
 * @example
 * ```ts
 * import { ensureLocalCertificates, type LocalWebhookConfigurations } from '@operant/runtime';
 *
 * const local = await ensureLocalCertificates('.operant/webhook-certs');
 * const configurations: LocalWebhookConfigurations = { caPem: local.caPem, name: 'cronjob-operator-local' };
 * ```
 */
export interface LocalWebhookConfigurations {
  /** The CA that signed the serving certificate (PEM): the configurations' caBundle. */
  caPem: string;
  /**
   * The name of both configurations; default `operant-local-webhooks`. Give each
   * operator its own when several run locally against one cluster.
   */
  name?: string;
  /**
   * The host the API server calls; default `127.0.0.1` (an API server on this
   * machine). E.g. `host.docker.internal` for a kind cluster, with that name in
   * the serving certificate.
   */
  host?: string;
}

/** The label that marks configurations installed this way, so leftovers can be found. */
export const localWebhookLabel = Object.freeze({ 'app.kubernetes.io/managed-by': 'operant-local' });

/** A configuration that was installed, to delete at shutdown (only if it is still the one installed). */
export interface InstalledConfiguration {
  readonly kind: Kind;
  readonly name: string;
  readonly uid: string;
}

/** The configurations the typed webhooks need, pointed at `https://<host>:<port><path>`. */
export function localConfigurationObjects(
  webhooks: readonly TypedWebhook[],
  options: LocalWebhookConfigurations & { port: number },
): { mutating?: Typed<MutatingWebhookConfigurationObject>; validating?: Typed<ValidatingWebhookConfigurationObject> } {
  const name = options.name ?? 'operant-local-webhooks';
  const metadata = (): KubeObject['metadata'] => ({ name, labels: { ...localWebhookLabel } });
  const entry = (w: TypedWebhook) => ({
    name: w.name,
    clientConfig: localWebhookClientConfig({ port: options.port, path: w.path, host: options.host, caPem: options.caPem }),
    rules: [rule(w)],
    failurePolicy: w.failurePolicy,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  });
  const mutating = webhooks.filter((w) => w.type === 'mutating').map(entry);
  const validating = webhooks.filter((w) => w.type === 'validating').map(entry);
  return {
    ...(mutating.length > 0 ? { mutating: { metadata: metadata(), webhooks: mutating } } : {}),
    ...(validating.length > 0 ? { validating: { metadata: metadata(), webhooks: validating } } : {}),
  };
}

function rule(w: TypedWebhook): WebhookRule {
  return { operations: [...w.operations], apiGroups: [w.kind.group], apiVersions: [w.kind.version], resources: [w.kind.plural] };
}

/**
 * Refuses a caBundle that did not sign the serving certificate: the API server
 * would refuse every call, and each write of the kinds would fail with a TLS error.
 */
export function checkCaSigned(caPem: string, certificates: CertificateSource): void {
  const ca = parseCertificate(caPem, 'webhook.localConfigurations.caPem');
  const leaf = new X509Certificate(certificates.current().cert);
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey)) {
    throw new CertificateError(
      `webhook.localConfigurations.caPem did not sign the webhook server's certificate (${leaf.subject.replaceAll('\n', ', ')}): the API server would refuse to call it`,
      ['webhook.localConfigurations.caPem'],
    );
  }
}

/**
 * Creates each configuration, or replaces the one of that name (a leftover of
 * a run that did not stop cleanly), adding each to `installed` as soon as it
 * is written: if the second write fails, the first is still removed at shutdown.
 */
export async function installConfigurations(
  client: Client,
  objects: ReturnType<typeof localConfigurationObjects>,
  installed: InstalledConfiguration[],
  signal?: AbortSignal,
): Promise<void> {
  const put = async <T extends KubeObject>(kind: Kind<T>, obj: T): Promise<void> => {
    const name = obj.metadata.name!;
    const current = await client.get(kind, name, { live: true, signal }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    const written = current
      ? await client.update(kind, { ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata.resourceVersion } }, { signal })
      : await client.create(kind, obj, { signal });
    installed.push({ kind, name, uid: written.metadata.uid ?? '' });
  };
  if (objects.mutating) await put(MutatingWebhookConfiguration, objects.mutating);
  if (objects.validating) await put(ValidatingWebhookConfiguration, objects.validating);
}

/**
 * Deletes what {@link installConfigurations} installed, unless it was replaced
 * since (another run of the operator took the name: the uid precondition
 * fails). Never throws: a failure is logged, as the manager is stopping.
 */
export async function removeConfigurations(client: Client, installed: readonly InstalledConfiguration[], log: LogMethods, timeoutMs = 10_000): Promise<void> {
  for (const { kind, name, uid } of installed) {
    try {
      await client.delete(kind, name, { preconditions: { uid }, signal: AbortSignal.timeout(timeoutMs) });
      log.info({ configuration: `${kind.kind}/${name}` }, 'removed local webhook configuration');
    } catch (err) {
      if (isNotFound(err)) continue;
      if (isConflict(err)) log.info({ configuration: `${kind.kind}/${name}` }, 'local webhook configuration was replaced by another run; leaving it');
      else log.error({ err, configuration: `${kind.kind}/${name}` }, 'could not remove local webhook configuration: writes of its kinds fail until it is deleted');
    }
  }
}
