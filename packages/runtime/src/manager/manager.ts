/**
 * The manager (controller-runtime's `pkg/manager`): one client, one shared
 * informer cache and one metrics registry for every controller of an
 * operator; it starts the caches, then the runnables that need no leader,
 * then campaigns for the Lease and starts the others only while leading;
 * serves `/metrics`, `/healthz` and `/readyz`; and on shutdown stops the
 * runnables within a grace period, stops the caches and releases the Lease.
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '@operant/apimachinery';
import { CacheReader } from '../cache/reader.js';
import { SharedInformerFactory } from '../cache/shared-informers.js';
import { CacheSyncTimeoutError } from '../cache/sync-timeout.js';
import { Client } from '../client/client.js';
import type { ClientConfig } from '../config/client-config.js';
import { loadKubeConfig, type LoadKubeConfigOptions } from '../config/load.js';
import { controllerBuilder, type ControllerBuilder, type ControllerDeps } from '../controller/builder.js';
import { childLogger } from '../controller/logger.js';
import { EventRecorder } from '../events/recorder.js';
import type { Kind } from '../kind.js';
import { createLogger } from '../logging/logger.js';
import { metricsHandler } from '../metrics/handler.js';
import { MetricsRegistry } from '../metrics/registry.js';
import { HealthChecks, type HealthCheck } from './health.js';
import { listen, type RunningServer, type ServerAddress } from './http-server.js';
import { leaderIdentity } from './identity.js';
import { LeaderElector } from './leader-election.js';
import { LeaseLock } from './lease-lock.js';
import type { LeaderElectionConfig, ManagerOptions } from './options.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateSource } from '../webhook/contracts.js';
import { directoryCertificateSource } from '../webhook/certs/directory-source.js';
import { WebhookBuilder, type TypedWebhook } from '../webhook/builder.js';
import {
  checkCaSigned,
  installConfigurations,
  localConfigurationObjects,
  removeConfigurations,
  type InstalledConfiguration,
} from '../webhook/local-configurations.js';
import { WebhookServer } from '../webhook/server.js';
import { RunnableGroup, type Runnable } from './runnable.js';
import { deadline, settlesWithin } from './timing.js';
import type { Logger } from '../logging/log.js';

/**
 * Why {@link Manager.start} rejected after this replica stopped being the
 * leader without being asked to (the Lease could not be renewed in time):
 * its leader runnables have been stopped; the process should exit, as a Go
 * operator does, and be restarted to campaign again.
 *
 * @example
 * ```ts
 * import { handleSignals, LeaderElectionLostError } from '@operant/runtime';
 *
 * try {
 *   await mgr.start(handleSignals());
 * } catch (err) {
 *   if (err instanceof LeaderElectionLostError) process.exitCode = 1;
 * }
 * ```
 */
export class LeaderElectionLostError extends Error {
  constructor(readonly lease: string) {
    super(`leader election lost: lease ${lease} could not be renewed`);
    this.name = 'LeaderElectionLostError';
  }
}

/**
 * Why {@link Manager.start} rejected when runnables did not return within the
 * grace period after shutdown began. The Lease is then left to expire rather
 * than released, so a stuck reconcile never overlaps a successor's.
 *
 * @example
 * ```ts
 * import { ShutdownTimeoutError } from '@operant/runtime';
 *
 * await mgr.start(signal).catch((err) => {
 *   if (err instanceof ShutdownTimeoutError) console.error(err.message);
 * });
 * ```
 */
export class ShutdownTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`runnables did not stop within the graceful shutdown timeout of ${timeoutMs} ms`);
    this.name = 'ShutdownTimeoutError';
  }
}

type Phase = 'new' | 'running' | 'stopping' | 'stopped';

/**
 * Runs an operator's controllers with shared clients and caches, leader
 * election, metrics, health probes and graceful shutdown.
 *
 * @example
 * ```ts
 * import { ConfigMap, handleSignals, Manager } from '@operant/runtime';
 *
 * declare function serveStatusPage(signal: AbortSignal): Promise<void>; // resolves once signal aborts
 * const mgr = await Manager.create({ leaderElection: { id: 'sidecarset-operator' }, metricsPort: 8080, healthPort: 8081 });
 * mgr.controller('settings').for(ConfigMap).reconcile((req, { log }) => log.info({}, 'reconciling')); // leader only
 * mgr.add({ needLeaderElection: false, start: (signal) => serveStatusPage(signal) }); // every replica
 * mgr.addReadyCheck('cache', () => mgr.informers.informers().every((i) => i.hasSynced()));
 * await mgr.start(handleSignals());
 * ```
 */
export class Manager {
  /**
   * The client every controller shares: `get` and `list` read from the shared
   * informer cache (starting a kind's informer on first use), unless called
   * with `live: true`; writes go to the server. Requests are counted in `rest_client_*`.
   * Its connections are closed when the manager stops (it stays usable: new requests reconnect).
   */
  readonly client: Client;
  /** A client on the same connections that always reads from the server (controller-runtime's `GetAPIReader()`). */
  readonly apiReader: Client;
  /** The cache `client` reads from: add field indexes here (`mgr.cache.indexField(...)`), ideally before `start`. */
  readonly cache: CacheReader;
  /** The shared informer cache; informers requested before `start` sync before any runnable starts. */
  readonly informers: SharedInformerFactory;
  /** The metrics served on `/metrics`; hand `metrics.controller` and `metrics.workqueue` to controllers and queues. */
  readonly metrics: MetricsRegistry;
  /** The `logger` option (as a {@link Logger}: one without `child` gets one), else a {@link createLogger} logger. */
  readonly logger: Logger;
  /** This replica's leader-election identity, when leader election is on. */
  readonly identity: string | undefined;

  private readonly log: Logger;
  private readonly leaderElection: LeaderElectionConfig | undefined;
  private readonly healthz = new HealthChecks('healthz', 500);
  private readonly readyz = new HealthChecks('readyz', 503);
  private readonly others: RunnableGroup;
  private readonly leaders: RunnableGroup;
  private readonly stopping = new AbortController();
  private readonly electedPromise: Promise<void>;
  private resolveElected: () => void = () => {};
  private phase: Phase = 'new';
  private cachesSynced = false;
  private failure: { error: unknown } | undefined;
  private readonly elector: LeaderElector | undefined;
  private leaseName = '';
  private metricsServer: RunningServer | undefined;
  private healthServer: RunningServer | undefined;
  private readonly webhookServerInstance: WebhookServer | undefined;
  /** What `webhook(kind)` registered: the local webhook configurations are made from it. */
  private readonly typedWebhooks: TypedWebhook[] = [];
  private readonly installedWebhooks: InstalledConfiguration[] = [];
  private readonly recorders = new Map<string, EventRecorder>();
  /** Aborted when the recorders could not flush within the grace period: they drop what is left. */
  private readonly recordersStop = new AbortController();
  private recordersClosed = false;

  private constructor(
    config: ClientConfig,
    private readonly options: ManagerOptions,
    webhookCertificates: CertificateSource | undefined,
  ) {
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.logger = options.logger ? childLogger(options.logger, {}) : createLogger();
    this.log = childLogger(this.logger, { component: 'manager' });
    this.apiReader = Client.fromConfig(config, { ...options.client, metrics: this.metrics.restClient });
    this.informers = new SharedInformerFactory(this.apiReader, {
      logger: this.logger,
      ...options.cache,
      metrics: this.metrics.informers,
    });
    this.cache = new CacheReader(this.informers, { syncTimeoutMs: options.cacheSyncTimeoutMs });
    this.client = this.apiReader.withCache(this.cache, { readYourWrites: options.client?.readYourWrites });
    this.leaderElection = options.leaderElection;
    this.identity = this.leaderElection ? (this.leaderElection.identity ?? leaderIdentity()) : undefined;
    this.elector = this.leaderElection && this.identity ? this.makeElector(this.leaderElection, this.identity) : undefined;
    this.others = new RunnableGroup((err, stopping) => this.runnableFailed(err, stopping));
    this.leaders = new RunnableGroup((err, stopping) => this.runnableFailed(err, stopping));
    this.electedPromise = new Promise((resolve) => (this.resolveElected = resolve));
    this.healthz.add('ping', () => true);
    this.readyz.add('informers', () => this.checkCaches());
    if (webhookCertificates) {
      const { certDir: _certDir, certificates: _certificates, localConfigurations: _local, ...serverOptions } = options.webhook ?? {};
      this.webhookServerInstance = new WebhookServer({
        ...serverOptions,
        certificates: webhookCertificates,
        client: this.client,
        metrics: this.metrics.webhook,
        // The server names itself (`component: webhook-server`): a second `component` would repeat the key.
        logger: this.logger,
      });
      this.readyz.add('webhook', this.webhookServerInstance.startedChecker());
    }
    this.readyz.add('shutdown', () => {
      if (this.phase === 'stopping' || this.phase === 'stopped') throw new Error('the manager is shutting down');
    });
  }

  private makeElector(config: LeaderElectionConfig, identity: string): LeaderElector {
    const namespace = config.namespace ?? this.client.namespace;
    this.leaseName = `${namespace}/${config.id}`;
    return new LeaderElector(new LeaseLock(this.apiReader, { name: config.id, namespace, identity }), {
      name: config.id,
      leaseDurationMs: config.leaseDurationMs,
      renewDeadlineMs: config.renewDeadlineMs,
      retryPeriodMs: config.retryPeriodMs,
      // The manager releases the lease itself, once the leader runnables have stopped.
      releaseOnCancel: false,
      metrics: this.metrics.leaderElection,
      logger: childLogger(this.logger, { component: 'leader-election' }),
      onStartedLeading: () => {
        if (this.stopping.signal.aborted) return;
        this.leaders.start();
        this.resolveElected();
      },
    });
  }

  /**
   * Makes a manager: loads the configuration (unless one is given) and creates
   * the client, the informer cache and the metrics. Nothing runs until {@link start}.
   *
   * @example
   * ```ts
   * import { Manager } from '@operant/runtime';
   *
   * const mgr = await Manager.create({ kubeconfig: { context: 'staging' }, healthPort: 8081 });
   * ```
   */
  static async create(options: ManagerOptions = {}): Promise<Manager> {
    const webhook = options.webhook;
    if (webhook?.localConfigurations && webhook.certDir !== undefined) {
      throw new TypeError(
        'webhook.localConfigurations is for a local run with generated certificates (webhook.certificates); ' +
          'with webhook.certDir the manager runs as deployed, and its webhook configurations are deployed with it',
      );
    }
    if (webhook?.localConfigurations && !webhook.certificates) {
      throw new TypeError('webhook.localConfigurations needs webhook.certificates: the pair its caPem signed (ensureLocalCertificates makes both)');
    }
    const config = isClientConfig(options.kubeconfig) ? options.kubeconfig : await loadKubeConfig(options.kubeconfig ?? {});
    const certificates = webhook
      ? (webhook.certificates ?? (await directoryCertificateSource(webhook.certDir ?? join(tmpdir(), 'k8s-webhook-server', 'serving-certs'))))
      : undefined;
    return new Manager(config, options, certificates);
  }

  /**
   * Starts building a controller wired to this manager: its client, shared
   * informers, logger and metrics (`controller_runtime_*` and `workqueue_*`
   * under the controller's name). The controller is added when `reconcile`
   * builds it, and runs only on the leader.
   *
   * @example
   * ```ts
   * import { ConfigMap, Deployment, generationChanged, handleSignals, Pod, Secret } from '@operant/runtime';
   *
   * mgr.controller('deployment-config')
   *   .for(Deployment)
   *   .owns(ConfigMap)
   *   .watches(Secret, (secret) => [{ namespace: secret.metadata.namespace ?? '', name: secret.metadata.labels?.['app'] ?? '' }])
   *   .withEventFilter(generationChanged())
   *   .maxConcurrentReconciles(4)
   *   .reconcile(async (req, { client, log }) => ({ requeueAfter: 30_000 }));
   * await mgr.start(handleSignals());
   * ```
   */
  controller(name: string, options: Omit<ControllerDeps, 'client' | 'informers' | 'onBuild'> = {}): ControllerBuilder {
    return controllerBuilder(name, {
      metrics: this.metrics.controller,
      queueMetrics: this.metrics.workqueue,
      logger: this.logger,
      cacheSyncTimeoutMs: this.options.cacheSyncTimeoutMs,
      ...options,
      client: this.client,
      informers: this.informers,
      onBuild: (controller) => this.add(controller),
    });
  }

  /**
   * Adds a runnable. Before `start` it waits for its turn; afterwards it starts
   * at once if its group runs (leader runnables only while leading).
   */
  add(runnable: Runnable): void {
    if (this.phase === 'stopping' || this.phase === 'stopped') throw new Error('cannot add a runnable to a manager that has stopped');
    (runnable.needLeaderElection === false ? this.others : this.leaders).add(runnable);
  }

  /**
   * Adds a liveness check to `/healthz` (which always has `ping`).
   *
   * @example
   * ```ts
   * import { monitorEventLoopDelay } from 'node:perf_hooks';
   *
   * const delay = monitorEventLoopDelay();
   * delay.enable();
   * mgr.addHealthCheck('event-loop', () => delay.max / 1e6 < 5_000); // no 5 s stall
   * ```
   */
  addHealthCheck(name: string, check: HealthCheck): void {
    this.healthz.add(name, check);
  }

  /**
   * Adds a readiness check to `/readyz` (which always has `informers`: every
   * running informer has synced, and `shutdown`: the manager is not stopping).
   *
   * @example
   * ```ts
   * mgr.addReadyCheck('webhook', mgr.webhookServer.startedChecker());
   * ```
   */
  addReadyCheck(name: string, check: HealthCheck): void {
    this.readyz.add(name, check);
  }

  /** Where `/metrics` is served, once {@link start} has bound it. */
  get metricsAddress(): ServerAddress | undefined {
    return this.metricsServer?.address;
  }

  /**
   * The webhook server, when the manager was created with `webhook` options:
   * register admission and conversion handlers on it before {@link start}. It
   * runs on every replica (not only the leader) and starts before the caches,
   * since reading a multi-version custom resource may need its conversion webhook.
   *
   * @example
   * ```ts
   * import { defaulter, Deployment, ensureLocalCertificates, Manager, mutatePath } from '@operant/runtime';
   *
   * const local = await ensureLocalCertificates('.operant/webhook-certs');
   * const mgr = await Manager.create({ webhook: { port: 9443, certificates: local.source } });
   * mgr.webhookServer.register(mutatePath(Deployment), defaulter(Deployment, { default: (d) => void (d.metadata.labels ??= {}) }));
   * ```
   */
  get webhookServer(): WebhookServer {
    if (!this.webhookServerInstance) throw new Error('this manager has no webhook server: pass the webhook option to Manager.create');
    return this.webhookServerInstance;
  }

  /**
   * Starts the typed webhooks of a kind (controller-runtime's
   * `ctrl.NewWebhookManagedBy(mgr).For(&T{})`): `.defaulter(impl)` serves
   * `/mutate-<group>-<version>-<kind>` and `.validator(impl)` serves
   * `/validate-...`, kubebuilder's paths, on {@link webhookServer}, each
   * registered at once (a second defaulter for a kind throws there). Register
   * them before {@link start}: with `webhook.localConfigurations`, the manager
   * installs configurations for what is registered when it starts.
   *
   * @example
   * ```ts
   * import { defineKind, ensureLocalCertificates, fieldErrors, Manager, ValidationError, type Typed } from '@operant/runtime';
   *
   * // What `operant generate` writes into src/api/v1/zz_generated.kinds.ts:
   * type CronJob = Typed<{ spec: { schedule: string; concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace' } }>;
   * const CronJob = defineKind<CronJob>({ group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true });
   *
   * const local = await ensureLocalCertificates('.operant/webhook-certs');
   * const mgr = await Manager.create({ webhook: { port: 9443, certificates: local.source } });
   * mgr
   *   .webhook(CronJob)
   *   .defaulter({ default: (cj) => void (cj.spec.concurrencyPolicy ??= 'Allow') })
   *   .validator({
   *     validateCreate(cj) {
   *       if ((cj.metadata.name ?? '').length > 52) throw new ValidationError(fieldErrors.invalid('metadata.name', cj.metadata.name, 'must be no more than 52 characters'));
   *     },
   *   });
   * ```
   */
  webhook<T extends KubeObject>(kind: Kind<T>): WebhookBuilder<T> {
    const server = this.webhookServer;
    return new WebhookBuilder(kind, (webhook, handler) => {
      server.register(webhook.path, handler);
      this.typedWebhooks.push(webhook);
    });
  }

  /**
   * The event recorder of `name` (controller-runtime's
   * `mgr.GetEventRecorderFor(name)`): Events written to events.k8s.io/v1 with
   * `name` as their reporting controller (what `kubectl describe` shows as
   * From), in the background, repeats folded into series. The manager owns
   * it: the same name gives the same recorder, and at shutdown, once the
   * controllers have stopped, it writes what is pending and closes it within
   * the grace period (what is still unwritten then is dropped). A recorder
   * asked for after that records nothing.
   *
   * @example
   * ```ts
   * import { Job, type ReconcileFunc } from '@operant/runtime';
   *
   * const recorder = mgr.eventRecorderFor('cronjob-controller');
   * const reconcile: ReconcileFunc = async (req, { client }) => {
   *   const job = await client.get(Job, req.name, { namespace: req.namespace });
   *   recorder.event(job, 'Normal', 'SuccessfulCreate', `Created job ${req.name}`);
   * };
   * ```
   */
  eventRecorderFor(name: string): EventRecorder {
    let recorder = this.recorders.get(name);
    if (!recorder) {
      // One stop listener per recorder, and a manager may run many controllers (a simulated cluster runs a dozen).
      if (this.recorders.size === 0) setMaxListeners(0, this.recordersStop.signal);
      recorder = new EventRecorder(this.apiReader, {
        reportingController: name,
        logger: childLogger(this.logger, { component: 'event-recorder', reportingController: name }),
        signal: this.recordersStop.signal,
      });
      this.recorders.set(name, recorder);
      if (this.recordersClosed) void recorder.close();
    }
    return recorder;
  }

  /** Where `/healthz` and `/readyz` are served, once {@link start} has bound them. */
  get healthAddress(): ServerAddress | undefined {
    return this.healthServer?.address;
  }

  /** True while this replica leads (always true once started without leader election). */
  get isLeader(): boolean {
    return this.leaderElection ? (this.elector?.isLeader() ?? false) : this.leaders.started;
  }

  /**
   * Resolves when leader runnables start: on winning the election, or as soon
   * as the manager runs when leader election is off (controller-runtime's `Elected()`).
   * Stays pending on a replica that never leads.
   */
  elected(): Promise<void> {
    return this.electedPromise;
  }

  /**
   * Runs until `signal` aborts, then shuts down gracefully and resolves. In
   * order: binds the metrics and health servers, starts the informers and
   * waits for them to sync, starts the runnables that need no leader, then
   * (with leader election) campaigns and starts the leader runnables on
   * winning. Rejects when a watched kind is not served ({@link NoKindMatchError},
   * at once), the caches do not sync within `cacheSyncTimeoutMs`
   * ({@link CacheSyncTimeoutError}), a runnable rejects, a server cannot bind,
   * leadership is lost ({@link LeaderElectionLostError}) or runnables outlive
   * the grace period ({@link ShutdownTimeoutError}); everything is stopped
   * first. A manager starts once.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.phase !== 'new') throw new Error('a manager can be started only once');
    this.phase = 'running';
    const onAbort = (): void => this.stopping.abort();
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const cacheStop = new AbortController();
    const electionStop = new AbortController();
    let election: Promise<void> = Promise.resolve();
    const webhookStop = new AbortController();
    let webhook: Promise<void> = Promise.resolve();
    // Each informer and each cache-sync wait listens on these: one per kind watched, unbounded by design.
    setMaxListeners(0, cacheStop.signal, this.stopping.signal);
    try {
      if (!this.stopping.signal.aborted) await this.startServers();
      if (!this.stopping.signal.aborted && this.webhookServerInstance) {
        const server = this.webhookServerInstance;
        webhook = server.start(webhookStop.signal).catch((err: unknown) => this.fail(err));
        await Promise.race([server.listening(), aborted(this.stopping.signal)]);
        if (!this.stopping.signal.aborted && server.address) await this.installLocalWebhooks(server.address.host, server.address.port);
      }
      if (!this.stopping.signal.aborted) {
        this.informers.startAll(cacheStop.signal);
        this.cachesSynced = await this.waitForCaches();
      }
      if (!this.stopping.signal.aborted) this.others.start();
      if (!this.stopping.signal.aborted) election = this.startLeaderElection(electionStop.signal);
      await aborted(this.stopping.signal);
    } catch (err) {
      this.fail(err);
    } finally {
      signal.removeEventListener('abort', onAbort);
      await this.shutdown(cacheStop, electionStop, election, async () => {
        webhookStop.abort();
        await webhook;
      });
    }
    if (this.failure) throw this.failure.error;
  }

  /**
   * A local run's webhook configurations (`webhook.localConfigurations`), for
   * the typed webhooks registered so far, pointed at the port just bound.
   */
  private async installLocalWebhooks(boundHost: string, port: number): Promise<void> {
    const local = this.options.webhook?.localConfigurations;
    const certificates = this.options.webhook?.certificates;
    if (!local || !certificates || this.typedWebhooks.length === 0) return;
    checkCaSigned(local.caPem, certificates);
    // A server bound to every interface is called on the loopback one.
    const host = local.host ?? (boundHost === '0.0.0.0' || boundHost === '::' || boundHost === '' ? '127.0.0.1' : boundHost);
    const objects = localConfigurationObjects(this.typedWebhooks, { ...local, host, port });
    await installConfigurations(this.apiReader, objects, this.installedWebhooks, this.stopping.signal);
    this.log.info(
      { configurations: this.installedWebhooks.map((c) => `${c.kind.kind}/${c.name}`), url: `https://${host.includes(':') ? `[${host}]` : host}:${port}` },
      'installed local webhook configurations; they are removed at shutdown',
    );
  }

  private async startServers(): Promise<void> {
    if (this.options.metricsPort !== undefined) {
      const serve = metricsHandler(this.metrics);
      this.metricsServer = await listen(this.options.metricsHost ?? '0.0.0.0', this.options.metricsPort, (req, res, path) => {
        if (path !== '/metrics') return false;
        serve(req, res);
        return true;
      });
      this.log.info({ address: this.metricsServer.address }, 'serving metrics');
    }
    if (this.options.healthPort !== undefined) {
      this.healthServer = await listen(this.options.healthHost ?? '0.0.0.0', this.options.healthPort, async (req, res, path) => {
        for (const checks of [this.healthz, this.readyz]) {
          const base = `/${checks.endpoint}`;
          if (path === base || path.startsWith(`${base}/`)) {
            await checks.serve(req, res, path.slice(base.length));
            return true;
          }
        }
        return false;
      });
      this.log.info({ address: this.healthServer.address }, 'serving health probes');
    }
  }

  /**
   * Waits for the informers requested so far to sync. Rejects at once when
   * one cannot ever sync (its kind is not served), and after
   * `cacheSyncTimeoutMs` when one has not, so that a manager never waits
   * forever with no controller running; resolves false when stopping.
   */
  private async waitForCaches(): Promise<boolean> {
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    const wait = deadline(timeoutMs, this.stopping.signal);
    // One listener per informer waited for.
    setMaxListeners(0, wait.signal);
    try {
      if (await this.informers.waitForCacheSync(wait.signal)) return true;
    } finally {
      wait.dispose();
    }
    if (this.stopping.signal.aborted) return false;
    const pending = this.informers.informers().filter((i) => !i.hasSynced());
    if (!wait.signal.aborted) throw new Error(`informers stopped before they synced: ${pending.map((i) => i.name).join(', ')}`);
    const first = pending[0];
    throw new CacheSyncTimeoutError({ waiter: 'manager', source: first?.name ?? 'informers', kind: first?.kind, timeoutMs });
  }

  private startLeaderElection(signal: AbortSignal): Promise<void> {
    const elector = this.elector;
    if (!elector) {
      this.leaders.start();
      this.resolveElected();
      return Promise.resolve();
    }
    return elector.run(signal).then(
      (outcome) => {
        if (outcome === 'lost') this.fail(new LeaderElectionLostError(this.leaseName));
      },
      (err: unknown) => this.fail(err),
    );
  }

  /**
   * controller-runtime's stop procedure: leader runnables, then the others,
   * then the caches, all within the grace period; then the Lease is released
   * (only if everything stopped in time) and the servers and client are closed.
   */
  private async shutdown(
    cacheStop: AbortController,
    electionStop: AbortController,
    election: Promise<void>,
    stopWebhooks: () => Promise<void>,
  ): Promise<void> {
    this.phase = 'stopping';
    this.stopping.abort();
    const graceMs = this.options.gracefulShutdownTimeoutMs ?? 30_000;
    this.log.info({ graceMs }, 'stopping runnables');
    const stopped = (async () => {
      await this.leaders.stop();
      await this.others.stop();
      cacheStop.abort();
      await this.informers.stopAll();
      // Nothing records any more: what the controllers recorded is written now.
      await this.closeRecorders();
    })();
    const inTime = await settlesWithin(stopped, graceMs);
    if (!inTime) {
      this.fail(new ShutdownTimeoutError(graceMs));
      // Whatever is stuck, the caches stop now, so that they do not keep the process alive.
      cacheStop.abort();
      await settlesWithin(this.informers.stopAll(), 1000);
      this.recordersStop.abort();
    }
    electionStop.abort();
    await election;
    if (inTime && this.elector && (this.leaderElection?.releaseOnCancel ?? true)) await this.elector.release();
    // The local configurations go before the server that answers them: a write in between still succeeds.
    await removeConfigurations(this.apiReader, this.installedWebhooks.splice(0), this.log);
    // Webhooks stop last, as in controller-runtime: the API server may call them until the very end.
    await stopWebhooks();
    await Promise.all([this.metricsServer?.close(), this.healthServer?.close()]);
    this.client.close();
    this.phase = 'stopped';
    this.log.info({}, 'manager stopped');
  }

  private async closeRecorders(): Promise<void> {
    this.recordersClosed = true;
    await Promise.all([...this.recorders.values()].map((r) => r.close()));
  }

  private runnableFailed(err: unknown, stopping: boolean): void {
    if (stopping) {
      this.log.error({ err }, 'runnable failed while stopping');
      return;
    }
    this.log.error({ err }, 'runnable failed; stopping the manager');
    this.fail(err);
  }

  private fail(err: unknown): void {
    this.failure ??= { error: err };
    this.stopping.abort();
  }

  private checkCaches(): void {
    if (!this.cachesSynced) throw new Error('caches have not synced yet');
    const unsynced = this.informers
      .informers()
      .filter((i) => i.running && !i.hasSynced())
      .map((i) => i.name);
    if (unsynced.length > 0) throw new Error(`caches not synced: ${unsynced.join(', ')}`);
  }
}

function isClientConfig(value: ClientConfig | LoadKubeConfigOptions | undefined): value is ClientConfig {
  return value !== undefined && 'server' in value && 'credentials' in value;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
