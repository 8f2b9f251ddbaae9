/**
 * What a manager is made from: where the cluster is, leader election, the
 * metrics and health endpoints, and the shutdown grace period.
 */
import type { SharedInformerFactoryOptions } from '../cache/shared-informers.js';
import type { ClientOptions } from '../client/client.js';
import type { CachedClientOptions } from '../client/cached-client.js';
import type { ClientConfig } from '../config/client-config.js';
import type { LoadKubeConfigOptions } from '../config/load.js';

import type { MetricsRegistry } from '../metrics/registry.js';
import type { CertificateSource } from '../webhook/contracts.js';
import type { LocalWebhookConfigurations } from '../webhook/local-configurations.js';
import type { WebhookServerOptions } from '../webhook/server.js';
import type { LogMethods } from '../logging/log.js';

/**
 * Leader election settings (controller-runtime's `LeaderElection*` options).
 *
 * @example
 * ```ts
 * import type { LeaderElectionConfig } from '@operant/runtime';
 *
 * const le: LeaderElectionConfig = { id: 'sidecarset-operator', namespace: 'kruise-system', leaseDurationMs: 15_000 };
 * ```
 */
export interface LeaderElectionConfig {
  /** The Lease's name, shared by every replica of the operator. */
  id: string;
  /** The Lease's namespace; default the client's namespace (the context's, or the pod's service-account namespace). */
  namespace?: string;
  /** How long others wait for a silent leader before taking over; default 15 s. */
  leaseDurationMs?: number;
  /** How long the leader retries a renewal before it steps down (and `start` rejects); default 10 s. */
  renewDeadlineMs?: number;
  /** The interval between attempts to acquire or renew; default 2 s. */
  retryPeriodMs?: number;
  /** This replica's identity; default host name + `_` + a random UUID. */
  identity?: string;
  /**
   * Release the Lease on a graceful shutdown, once the leader's runnables have
   * stopped, so a successor starts at once; default true. With false the Lease
   * is left to expire (as after a crash).
   */
  releaseOnCancel?: boolean;
}

/**
 * Options of {@link Manager.create}.
 *
 * @example
 * ```ts
 * import type { ManagerOptions } from '@operant/runtime';
 *
 * const options: ManagerOptions = {
 *   kubeconfig: { path: '.operant/kubeconfig' },
 *   leaderElection: { id: 'sidecarset-operator' },
 *   metricsPort: 8080,
 *   healthPort: 8081,
 * };
 * ```
 */
export interface ManagerOptions {
  /** A loaded configuration, or options for `loadKubeConfig`; default what `loadKubeConfig()` finds. */
  kubeconfig?: ClientConfig | LoadKubeConfigOptions;
  /** Client settings (QPS, burst, user agent, read-your-own-writes of `mgr.client`); request metrics are the manager's. */
  client?: Omit<ClientOptions, 'metrics'> & CachedClientOptions;
  /**
   * Settings for every shared informer (namespace, transform, resync...), and
   * per-kind scopes (`byKind`: namespace, label and field selectors); metrics are the manager's.
   */
  cache?: Omit<SharedInformerFactoryOptions, 'metrics'>;
  /** Campaign for a Lease and run leader-election runnables only while leading; default off (they run at once). */
  leaderElection?: LeaderElectionConfig;
  /** Serve `/metrics` on this port (0 = any free port); default no metrics server. */
  metricsPort?: number;
  /** Default `0.0.0.0`, so Prometheus can reach a pod. */
  metricsHost?: string;
  /** Serve `/healthz` and `/readyz` on this port (0 = any free port); default no health server. */
  healthPort?: number;
  /** Default `0.0.0.0`, so the kubelet can probe a pod. */
  healthHost?: string;
  /** How long runnables get to stop after the start signal aborts; default 30 s. */
  gracefulShutdownTimeoutMs?: number;
  /**
   * How long `start` waits for the informers to sync before it fails with a
   * {@link CacheSyncTimeoutError} (the server keeps failing the lists); also
   * the default of each controller's wait for its sources, and of a cached
   * read's wait for a new informer. Default 2 minutes, as controller-runtime's
   * `CacheSyncTimeout`. A kind the server does not serve fails `start` at once
   * ({@link NoKindMatchError}), whatever this is.
   */
  cacheSyncTimeoutMs?: number;
  /** Where metrics are recorded; default a new {@link MetricsRegistry} per manager. */
  metrics?: MetricsRegistry;
  /** The manager's logger, also given to the informers (pino's signature); default {@link createLogger}'s pino logger (JSON to stderr, pretty on a terminal). */
  logger?: LogMethods;
  /** Serve admission and conversion webhooks (`mgr.webhookServer`) on every replica; default none. */
  webhook?: ManagerWebhookOptions;
}

/**
 * The manager's webhook server: where its certificate comes from, plus the
 * server's own settings (port, host, limits, TLS). Without `certificates`,
 * the pair is read from `certDir` and reloaded when it changes.
 *
 * @example
 * ```ts
 * import { ensureLocalCertificates, Manager } from '@operant/runtime';
 *
 * const local = await ensureLocalCertificates('.operant/webhook-certs');
 * await Manager.create({ webhook: { port: 9443, certificates: local.source } });     // a local run
 * await Manager.create({ webhook: { certDir: '/tmp/k8s-webhook-server/serving-certs' } }); // in a cluster
 * ```
 */
export interface ManagerWebhookOptions extends Omit<WebhookServerOptions, 'certificates' | 'client' | 'metrics' | 'logger'> {
  certificates?: CertificateSource;
  /** Directory with `tls.crt` and `tls.key` (a mounted Secret); default controller-runtime's `<tmpdir>/k8s-webhook-server/serving-certs`. */
  certDir?: string;
  /**
   * For a local run only (`node src/main.ts` on a developer's machine, with
   * generated `certificates` and no `certDir`): the manager installs a
   * MutatingWebhookConfiguration and a ValidatingWebhookConfiguration for the
   * webhooks registered with {@link Manager.webhook} (kind, path, operations),
   * pointing at this process with `caPem` as caBundle, once its webhook server
   * listens; and deletes them at shutdown, before the server stops. Left
   * behind, they would point the API server at a dead port, and every write of
   * their kinds would fail (`failurePolicy: Fail`); a run that was killed is
   * repaired by the next, which replaces configurations of the same name.
   * Opt-in, and refused with `certDir`, so a manager deployed in a cluster
   * never touches webhook configurations (they are deployed with it, from
   * config/webhook). Not needed under `operant dev`, which installs
   * config/webhook/manifests.yaml itself: both would call each webhook twice.
   *
   * @example
   * ```ts
   * import { ensureLocalCertificates, Manager } from '@operant/runtime';
   *
   * const inCluster = process.env.KUBERNETES_SERVICE_HOST !== undefined;
   * const local = inCluster ? undefined : await ensureLocalCertificates('.operant/webhook-certs');
   * const mgr = await Manager.create({
   *   webhook: local
   *     ? { port: 9443, certificates: local.source, localConfigurations: { caPem: local.caPem } }
   *     : { certDir: '/tmp/k8s-webhook-server/serving-certs' },
   * });
   * ```
   */
  localConfigurations?: LocalWebhookConfigurations;
}
