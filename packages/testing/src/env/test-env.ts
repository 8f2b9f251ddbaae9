/**
 * A test environment (controller-runtime's envtest): the embedded API server
 * started in this process and reached over real HTTPS, with the operator's
 * CRDs installed and Established, its webhook configurations pointed at a
 * local port, an admin client and a kubeconfig (file and text). Cheap enough
 * for one per test file: the server starts in tens of milliseconds, and the
 * certificates it serves, like those of webhooks and proxies, are made once
 * per process (read from a cache directory after the first process).
 *
 * Per test it hands out fresh namespaces, runs the operator under test (a
 * Manager on the environment's kubeconfig, or a fault proxy's), and puts
 * fault proxies in front of the server; each is disposable, or tied to a test
 * scope, and whatever is left is stopped with the environment.
 */
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeVersion, startApiServer, type ApiServerOptions, type RunningApiServer } from '@operant/apiserver';
import type { SimulatedCluster, SimulatedClusterOptions } from '@operant/controllers';
import {
  Client,
  ConfigMap,
  CronJob,
  DaemonSet,
  Deployment,
  Job,
  Pod,
  ReplicaSet,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
  loadKubeConfig,
  type CertificateSource,
  type ClientConfig,
  type Kind,
  type Manager,
  type ManagerOptions,
} from '@operant/runtime';
import { processCertificates } from '../certificates.js';
import { FaultProxy, type FaultProxyOptions } from '../chaos/proxy.js';
import type { ServerFaultHandler } from '../chaos/handed-faults.js';
import { convergesSeeing, indentPlayed, type ConvergesOptions } from '../wait/converges.js';
import { openChangeTracker, type Changes } from '../wait/change-tracker.js';
import { KeptWatches } from './kept-watches.js';
import { Replicas, type ReplicaProgram, type ReplicasSettings } from '../replicas/replicas.js';
import { installCrds } from '../install/crds.js';
import { createNamespace, type TestNamespace } from './namespaces.js';
import { runManager, type RunningManager, type StartManagerOptions } from './operator.js';
import { describeReconcileErrors, ReconcileErrorLog, type ReconcileErrorRecord } from './reconcile-errors.js';
import { WaitError } from '../wait/wait-error.js';
import { freePort } from './free-port.js';
import { readManifests, type ManifestSource } from '../install/manifests.js';
import { ScopedCleanups, type TestScope } from './scope.js';
import { installLocalWebhooks } from '../install/webhooks.js';
import { LiveServer } from './live-server.js';

/**
 * Options of {@link TestEnv.start}.
 *
 * @example
 * ```ts
 * import type { TestEnvOptions } from '@operant/testing';
 *
 * const options: TestEnvOptions = {
 *   crds: ['config/crd/bases'],
 *   webhooks: { manifests: 'config/webhook/manifests.yaml' },
 *   server: { bookmarkIntervalMs: 1_000 },
 *   cluster: { nodes: 3 },
 * };
 * ```
 */
export interface TestEnvOptions {
  /** CRD manifests: files, directories of them, or objects. */
  crds?: ManifestSource;
  /** Webhook configurations to install, pointed at {@link TestEnv.webhook}'s port on this machine. */
  webhooks?: { manifests: ManifestSource };
  /** Settings of the embedded server (bookmark interval, watch timeouts, history...). */
  server?: Omit<ApiServerOptions, 'port' | 'host' | 'dataDir' | 'kubeconfigPath' | 'insecureHttp' | 'servingMaterial' | 'privateSocket'>;
  /**
   * A simulated cluster beside the server (@operant/controllers): `nodes`
   * simulated nodes (`node-1`...), the scheduler and every controller of
   * kube-controller-manager that package has (`controllers`, as
   * kube-controller-manager's `--controllers`, leaves some out: `['*',
   * '-statefulset']`), so that Deployments get pods that run and become
   * ready. Default none: only the API server and its own controllers
   * (namespaces, garbage collection). It runs in this process and reaches
   * the server on the server's private Unix socket, in plain HTTP with the
   * admin token (see `ApiServerOptions.privateSocket`), so that its many
   * connections cost no TLS handshakes; the kubeconfig and client the
   * environment hands out stay HTTPS. The nodes' kubelets do not record
   * their start in events here (`nodeStartEvents: true` asks for them): those
   * writes would be a third of a small cluster's start.
   */
  cluster?: Omit<SimulatedClusterOptions, 'kubeconfig'>;
  /**
   * Keep the server's data on disk (SQLite, as `operant server --data-dir`,
   * in the environment's temporary directory) instead of in memory, so that
   * {@link TestEnv.restartServer} can stop the server and start it again with
   * everything it had. Writes then cost an fsync each. Default false.
   */
  durable?: boolean;
}

/**
 * The kubeconfig of an environment: a file (for child processes and kubectl),
 * its text, and the loaded configuration (for `Client.fromConfig` and `Manager.create`).
 *
 * @example
 * ```ts
 * import { execFileSync } from 'node:child_process';
 * import type { EnvKubeconfig } from '@operant/testing';
 *
 * declare const kubeconfig: EnvKubeconfig;
 * execFileSync('kubectl', ['--kubeconfig', kubeconfig.path, 'get', 'crds']);
 * ```
 */
export interface EnvKubeconfig {
  readonly path: string;
  readonly text: string;
  readonly config: ClientConfig;
}

/**
 * Where the environment's webhook configurations send the API server: the
 * port the manager's webhook server must listen on, and the CA they trust
 * (the process CA, whose serving certificate `certificates` serves).
 *
 * @example
 * ```ts
 * import { Manager } from '@operant/runtime';
 * import type { EnvWebhook } from '@operant/testing';
 *
 * declare const webhook: EnvWebhook;
 * const mgr = await Manager.create({ webhook: { host: '127.0.0.1', port: webhook.port, certificates: webhook.certificates } });
 * ```
 */
export interface EnvWebhook {
  readonly port: number;
  readonly caPem: string;
  readonly certificates: CertificateSource;
}

/**
 * Options of {@link TestEnv.faultProxy}.
 *
 * @example
 * ```ts
 * import { test } from 'node:test';
 * import type { EnvFaultProxyOptions } from '@operant/testing';
 *
 * test('through a plain-HTTP proxy', async (t) => {
 *   const options: EnvFaultProxyOptions = { scope: t, plainHttp: true };
 * });
 * ```
 */
export interface EnvFaultProxyOptions {
  /** Stop the proxy when this test ends. */
  scope?: TestScope;
  /**
   * Serve plain HTTP on 127.0.0.1 instead of HTTPS (default false): a test's
   * requests then skip a second TLS termination. Only the proxy's own token
   * (its kubeconfig's) passes. See {@link FaultProxyOptions.plainHttp}.
   */
  plainHttp?: boolean;
}

/**
 * Options of {@link TestEnv.replicas}: those of {@link Replicas.start}, with
 * the environment's kubeconfig and admin client by default, and a fault
 * proxy as a kubeconfig.
 *
 * @example
 * ```ts
 * import type { EnvReplicasOptions } from '@operant/testing';
 *
 * declare const proxy: import('@operant/testing').FaultProxy;
 * const options: EnvReplicasOptions = { command: './bin/manager', args: ['--leader-elect'], count: 3, kubeconfig: proxy, lease: { name: 'my-operator', namespace: 'default' } };
 * ```
 */
export type EnvReplicasOptions = ReplicaProgram & Omit<ReplicasSettings, 'kubeconfig' | 'client'> & {
  /** The kubeconfig file they use, or a fault proxy (its kubeconfig is written for them); default the environment's. */
  kubeconfig?: string | FaultProxy;
  /** Reads their Lease; default the environment's admin client. */
  client?: Client;
  /** Stop them when this test ends. */
  scope?: TestScope;
};

/** A TestScope (node:test's `t`, or a function), told from fault proxy options. */
function isScope(value: TestScope | EnvFaultProxyOptions): value is TestScope {
  return typeof value === 'function' || typeof (value as { after?: unknown }).after === 'function';
}

/** What {@link TestEnv.converges} watches by default besides the environment's CRD kinds. */
const workloadKinds: readonly Kind[] = [Pod, Service, ConfigMap, Secret, ServiceAccount, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob];

/**
 * A running test environment.
 *
 * @example
 * ```ts
 * import assert from 'node:assert/strict';
 * import { after, test } from 'node:test';
 * import { ConfigMap } from '@operant/runtime';
 * import { TestEnv } from '@operant/testing';
 *
 * const env = await TestEnv.start({ crds: ['config/crd/bases'] });
 * after(() => env.stop());
 *
 * test('a ConfigMap gets its digest annotation', async (t) => {
 *   const ns = await env.namespace(t);
 *   await env.startManager((mgr) => {
 *     mgr.controller('digest').for(ConfigMap).reconcile(async (req, { client }) => {
 *       const cm = await client.get(ConfigMap, req.name, { namespace: req.namespace });
 *       if (!cm.metadata.annotations?.['digest']) await client.patch(ConfigMap, req.name, { metadata: { annotations: { digest: 'x' } } }, { namespace: req.namespace });
 *     });
 *   }, { scope: t });
 *   await env.client.create(ConfigMap, { metadata: { name: 'settings', namespace: ns.name }, data: { a: '1' } });
 *   await env.converges(async () => {
 *     const cm = await env.client.get(ConfigMap, 'settings', { namespace: ns.name });
 *     assert.equal(cm.metadata.annotations?.['digest'], 'x');
 *   }, { namespace: ns.name });
 * });
 * ```
 */
export class TestEnv implements AsyncDisposable {
  /** How long {@link start} took, ms (the benchmark reads it). */
  readonly startMs: number;
  private namespaces = 0;
  private readonly cleanups = new Set<() => Promise<void>>();
  /** The reconcile errors of each manager {@link startManager} ran. */
  private readonly reconcileErrorLogs = new Set<{ list(since: number): ReconcileErrorRecord[] }>();
  /** The fault proxies of {@link faultProxy}, whose last schedule a failed {@link converges} shows. */
  private readonly proxies = new Set<FaultProxy>();
  private replicaSets = 0;
  private readonly scoped = new ScopedCleanups();
  private stopped: Promise<void> | undefined;
  /**
   * The watches {@link converges} sees changes through, a set per namespace,
   * on the server's private socket: kept while calls in that namespace follow
   * each other (up to five seconds after the last one ends), so that a call opens
   * no connection.
   */
  private readonly changeWatches = new KeptWatches(() => this.live.onSocket(this.kubeconfig.config), 5_000);
  private restarting: Promise<void> | undefined;

  private constructor(
    /** The server, replaced at each restart. */
    private readonly live: LiveServer,
    /** How the server was started, to start it again (durable environments only). */
    private readonly restartOptions: ApiServerOptions | undefined,
    /** An admin client (unthrottled) on the environment's kubeconfig. */
    readonly client: Client,
    readonly kubeconfig: EnvKubeconfig,
    /** The kinds of the CRDs installed at start, at their storage versions. */
    readonly crdKinds: readonly Kind[],
    /** Where webhooks are expected, when the environment was started with some. */
    readonly webhook: EnvWebhook | undefined,
    /** The simulated cluster, when the environment was started with `cluster`. */
    readonly cluster: SimulatedCluster | undefined,
    private readonly dir: string,
    started: number,
  ) {
    this.startMs = performance.now() - started;
  }

  /** The embedded server (a new one after {@link restartServer}, on the same port and data). */
  get server(): RunningApiServer {
    return this.live.current;
  }

  /**
   * Starts the server, installs the CRDs (waiting until they are Established)
   * and the webhook configurations, and returns the environment.
   *
   * @example
   * ```ts
   * import { TestEnv } from '@operant/testing';
   *
   * const env = await TestEnv.start({ crds: 'config/crd/bases', webhooks: { manifests: 'config/webhook/manifests.yaml' } });
   * console.log(env.kubeconfig.path, env.webhook?.port);
   * await env.stop();
   * ```
   */
  static async start(options: TestEnvOptions = {}): Promise<TestEnv> {
    const started = performance.now();
    const wantsWebhooks = options.webhooks !== undefined;
    // The server serves the process's certificate (made once, then read from
    // the cache), so no start mints one. Everything else that does not need
    // the server is done while it starts.
    const certs = await processCertificates();
    const dirMade = mkdtemp(join(tmpdir(), 'operant-testenv-'));
    // The private socket is how the environment's simulated cluster and fault proxies reach the server: no TLS leg to this same process.
    const serverOptions: ApiServerOptions = { ...options.server, port: 0, servingMaterial: { caPem: certs.caPem, certPem: certs.cert, keyPem: certs.key }, privateSocket: true };
    // A durable server needs its directory first; an in-memory one starts while the directory is made.
    if (options.durable) serverOptions.dataDir = join(await dirMade, 'data');
    const serverStart = startApiServer(serverOptions);
    let server: RunningApiServer | undefined;
    let client: Client | undefined;
    let clusterStart: Promise<SimulatedCluster> | undefined;
    let dir: string | undefined;
    try {
      const [running, madeDir, crdObjects, webhookObjects, port] = await Promise.all([
        serverStart,
        dirMade,
        readManifests(options.crds).catch(rethrowAs('crds')),
        readManifests(options.webhooks?.manifests).catch(rethrowAs('webhooks.manifests')),
        wantsWebhooks ? freePort() : undefined,
      ]);
      server = running;
      dir = madeDir;
      const path = join(dir, 'kubeconfig');
      const config = await loadKubeConfig({ kubeconfigText: server.kubeconfig });
      client = Client.fromConfig(config, { qps: Infinity });
      const webhook = wantsWebhooks && port !== undefined ? { port, caPem: certs.caPem, certificates: certs.source } : undefined;
      const live = new LiveServer(server);
      // The cluster runs in this process: on the private socket, its controllers' and kubelets' connections cost no TLS handshakes.
      // Its kubelets report the server's version, known here without asking `/version`.
      clusterStart = options.cluster ? startCluster({ kubeletVersion: kubeVersion.gitVersion, nodeStartEvents: false, ...options.cluster, kubeconfig: live.onSocket(config) }) : undefined;
      const [crdKinds, cluster] = await Promise.all([
        installCrds(client, crdObjects, { timeoutMs: 10_000 }),
        clusterStart,
        webhook ? installLocalWebhooks(client, webhookObjects, webhook) : undefined,
        // A test's kubeconfig needs no fsync: it lives as long as the process.
        writeFile(path, server.kubeconfig, { mode: 0o600 }),
      ]);
      const restartOptions = options.durable ? { ...serverOptions, port: server.port } : undefined;
      return new TestEnv(live, restartOptions, client, { path, text: server.kubeconfig, config }, crdKinds, webhook, cluster, dir, started);
    } catch (err) {
      await (await clusterStart?.catch(() => undefined))?.stop();
      client?.close();
      await (server ?? (await serverStart.catch(() => undefined)))?.stop();
      const made = dir ?? (await dirMade.catch(() => undefined));
      if (made) await rm(made, { recursive: true, force: true });
      throw err;
    }
  }

  /**
   * A new namespace, deleted when `scope` ends, when it is disposed, or at the
   * latest with the environment.
   *
   * @example
   * ```ts
   * import { test } from 'node:test';
   * import { ConfigMap } from '@operant/runtime';
   *
   * declare const env: import('@operant/testing').TestEnv;
   * test('in a namespace of its own', async (t) => {
   *   const ns = await env.namespace(t, { prefix: 'configmaps' }); // configmaps-1, deleted after the test
   *   await env.client.create(ConfigMap, { metadata: { name: 'a', namespace: ns.name } });
   * });
   * ```
   */
  async namespace(scope?: TestScope, options: { prefix?: string } = {}): Promise<TestNamespace> {
    this.refuseIfStopped('namespace');
    const ns = await createNamespace(this.client, `${options.prefix ?? 'test'}-${++this.namespaces}`);
    // Once the environment stops, its server takes the namespace with it.
    const dispose = (): Promise<void> => {
      this.cleanups.delete(dispose);
      return this.stopped ? Promise.resolve() : ns.dispose();
    };
    this.track(scope, dispose);
    return { ...ns, dispose, [Symbol.asyncDispose]: dispose, toString: () => ns.name };
  }

  /**
   * Runs the operator under test: a Manager on the environment's kubeconfig
   * (or `options.kubeconfig`), with a webhook server on the environment's
   * webhook port and certificate when it has webhooks. `setup` registers the
   * controllers and webhooks, and may be async; whatever else it returns (the
   * builder's Controller, from `(mgr) => mgr.controller(...)...reconcile(...)`)
   * is ignored. The promise resolves once the caches have
   * synced and the controllers run. It stops when `scope` ends, when
   * disposed, or with the environment. One manager with webhooks at a time per
   * environment (they share the port).
   *
   * @example
   * ```ts
   * import { Deployment } from '@operant/runtime';
   *
   * declare const env: import('@operant/testing').TestEnv;
   * await using running = await env.startManager((mgr) => {
   *   mgr.controller('deployments').for(Deployment).reconcile(async () => {});
   * });
   * ```
   */
  async startManager(setup: (mgr: Manager) => unknown, options: StartManagerOptions = {}): Promise<RunningManager> {
    this.refuseIfStopped('startManager');
    const webhook = this.webhook;
    const managerOptions: ManagerOptions = {
      gracefulShutdownTimeoutMs: 10_000,
      ...options.manager,
      kubeconfig: options.kubeconfig ?? this.kubeconfig.config,
      ...(webhook ? { webhook: { host: '127.0.0.1', port: webhook.port, certificates: webhook.certificates } } : {}),
    };
    const errors = new ReconcileErrorLog();
    this.reconcileErrorLogs.add(errors);
    const running = await runManager(managerOptions, setup, errors);
    const stop = (): Promise<void> => {
      this.cleanups.delete(stop);
      return running.stop();
    };
    this.track(options.scope, stop);
    return { ...running, stop, [Symbol.asyncDispose]: stop };
  }

  /**
   * A fault proxy in front of this environment's server: point the operator
   * under test at `proxy.clientConfig()` (e.g. `startManager(setup, { kubeconfig })`).
   * It carries out server faults on this server: `compact` compacts its
   * history, `restart-server` restarts it (a durable environment's; an
   * in-memory one records them as misses).
   * It stops when `scope` ends, when disposed, or with the environment.
   * It serves HTTPS, or plain HTTP on 127.0.0.1 with `{ plainHttp: true }`
   * (cheaper per request; only its own token passes). A request no fault can
   * act on (and no watch) is handed to the server's handler in this process
   * (`RunningApiServer.serveInProcess`); the others reach the server on its
   * private Unix socket, in plain HTTP with the admin token (no TLS inside the
   * process; see `ApiServerOptions.privateSocket`).
   *
   * @example
   * ```ts
   * import type { Manager } from '@operant/runtime';
   * import { chaos } from '@operant/testing';
   *
   * declare const env: import('@operant/testing').TestEnv;
   * declare function setupOperator(mgr: Manager): void; // registers the controllers under test
   * const proxy = await env.faultProxy();
   * await env.startManager(setupOperator, { kubeconfig: await proxy.clientConfig() });
   * const report = await proxy.play(chaos({ seed: 1234, duration: 12_000 }));
   * const plain = await env.faultProxy({ plainHttp: true }); // http://127.0.0.1:<port>
   * ```
   */
  async faultProxy(options: TestScope | EnvFaultProxyOptions = {}): Promise<FaultProxy> {
    this.refuseIfStopped('faultProxy');
    const { scope, plainHttp } = isScope(options) ? { scope: options, plainHttp: false } : options;
    const proxy = await FaultProxy.start({
      upstream: this.kubeconfig.config,
      server: this.serverFaults,
      plainHttp,
      upstreamSocket: this.live.socketPath,
      upstreamInProcess: (req, res, cut) => this.live.current.serveInProcess?.(req, res, cut) ?? false,
    });
    this.proxies.add(proxy);
    const stop = (): Promise<void> => {
      this.cleanups.delete(stop);
      this.proxies.delete(proxy);
      return proxy.stop();
    };
    this.track(scope, stop);
    return proxy;
  }

  /**
   * Runs an operator as its Deployment would, in processes of its own (see
   * {@link Replicas}): `count` replicas of a command or a module, on the
   * environment's kubeconfig or a fault proxy's, started again when they
   * exit; a Lease tells which leads. They stop (SIGTERM, then SIGKILL after
   * the grace period) when `scope` ends, when disposed, or with the
   * environment, before the proxies started earlier. The reconcile errors
   * their output reports join those a failed {@link converges} lists.
   *
   * @example
   * ```ts
   * import { chaos, operatorFaultKinds } from '@operant/testing';
   *
   * declare const env: import('@operant/testing').TestEnv;
   * const proxy = await env.faultProxy();
   * // A Go operator: its binary, three replicas on its Lease, through the proxy.
   * const replicas = await env.replicas({
   *   command: './bin/manager',
   *   args: ['--leader-elect'],
   *   count: 3,
   *   kubeconfig: proxy,
   *   lease: { name: 'my-operator.example.com', namespace: 'default' },
   * });
   * await replicas.firstLeader();
   * await proxy.play(chaos({ seed: 11, duration: 15_000, faults: [...operatorFaultKinds] }), { operator: replicas.operatorFaults() });
   * ```
   */
  async replicas(options: EnvReplicasOptions): Promise<Replicas> {
    this.refuseIfStopped('replicas');
    const { scope, kubeconfig = this.kubeconfig.path, client = this.client, ...rest } = options;
    let path: string;
    if (typeof kubeconfig === 'string') path = kubeconfig;
    else {
      path = join(this.dir, `replicas-${++this.replicaSets}-kubeconfig`);
      await kubeconfig.writeKubeconfig(path);
    }
    const replicas = Replicas.start({ ...rest, kubeconfig: path, client });
    const errors = { list: (since: number) => replicas.reconcileErrors(since) };
    this.reconcileErrorLogs.add(errors);
    const stop = (): Promise<void> => {
      this.cleanups.delete(stop);
      return replicas.stop();
    };
    this.track(scope, stop);
    return replicas;
  }

  /**
   * Resolves once `check` passes and nothing has changed for `quiet` ms (see
   * the standalone `converges`). By default it watches the environment's CRD
   * kinds and the built-in workload kinds (Pods, Services, ConfigMaps,
   * Secrets, ServiceAccounts, Deployments, ReplicaSets, StatefulSets,
   * DaemonSets, Jobs, CronJobs); Events and Leases, which operators write all
   * the time, do not count. The environment keeps those watches (in
   * `namespace`, on the server's private socket) while calls in that
   * namespace follow each other, closing them five seconds after the last one
   * ends: a call that comes meanwhile opens no connection. Each call sees
   * only the changes made since it began, to its kinds, in its `namespace`
   * (cluster-scoped objects count everywhere), so tests sharing the
   * environment in namespaces of their own do not disturb each other. When it fails, its message also shows the
   * schedule each of its running fault proxies played last (its seed and
   * faults, and what struck once it ended; `options.schedule` names one
   * instead), and the last reconcile errors that the managers of
   * {@link startManager} and the replicas of {@link replicas} logged while it waited.
   *
   * @example
   * ```ts
   * import assert from 'node:assert/strict';
   * import { Deployment } from '@operant/runtime';
   *
   * declare const env: import('@operant/testing').TestEnv;
   * await env.converges(async () => {
   *   const { items } = await env.client.list(Deployment, { namespace: 'team-a' });
   *   assert.deepEqual(items.map((d) => d.spec?.replicas), [3]);
   * }, { within: 15_000, quiet: 1_000, namespace: 'team-a' });
   * ```
   */
  async converges<T>(check: () => T | Promise<T>, options: ConvergesOptions = {}): Promise<T> {
    const since = performance.now();
    try {
      const kinds = options.kinds ?? [...this.crdKinds, ...workloadKinds];
      const changes = (): Changes => {
        // Once stopped, as the standalone converges: watches of its own, for this call.
        if (this.stopped) return openChangeTracker(this.client, kinds, options.namespace);
        return this.changeWatches.view(kinds, options.namespace);
      };
      return await convergesSeeing(changes, check, options);
    } catch (err) {
      if (!(err instanceof WaitError)) throw err;
      const errors = [...this.reconcileErrorLogs].flatMap((log) => log.list(since)).sort((a, b) => a.at - b.at);
      // The schedules its live proxies played (unless the caller named one, which the message has already).
      const played = options.schedule ? [] : [...this.proxies].flatMap((p) => (p.isStopped ? [] : (p.lastPlayed() ?? [])));
      if (errors.length === 0 && played.length === 0) throw err;
      const more = [...played.map(indentPlayed), ...(errors.length > 0 ? [describeReconcileErrors(errors)] : [])];
      throw new WaitError(`${err.message}\n${more.join('\n')}`, err.helper, err.attempts, err.lastValue, { cause: err.cause });
    }
  }

  /**
   * Stops the server and starts it again on the same port from the same data
   * (a durable environment only), as a kube-apiserver restart: watches end,
   * requests meanwhile are refused, clients and informers reconnect on their
   * own. With `downMs`, the server stays down that long first.
   *
   * @example
   * ```ts
   * import { TestEnv } from '@operant/testing';
   *
   * const env = await TestEnv.start({ durable: true });
   * await env.restartServer({ downMs: 500 }); // the objects are still there; the operator's informers reconnect
   * ```
   */
  async restartServer(options: { downMs?: number } = {}): Promise<void> {
    if (!this.restartOptions) throw new Error('TestEnv.restartServer: this environment keeps its data in memory; start it with { durable: true }');
    this.refuseIfStopped('restartServer');
    if (this.restarting) throw new Error('TestEnv.restartServer: a restart is under way');
    await this.outage(new Promise((resolve) => setTimeout(resolve, options.downMs ?? 0)));
  }

  /**
   * What a stopped environment answers a call that would start something on it: its server is
   * gone, so a namespace got ECONNREFUSED, and a fault proxy or manager started to a dead server
   * and kept running past the test.
   */
  private refuseIfStopped(method: string): void {
    if (this.stopped) throw new Error(`TestEnv.${method}: the environment is stopped`);
  }

  /** Stops the server, waits for `over`, and starts it again on the same port and data. */
  private async outage(over: Promise<unknown>): Promise<void> {
    const restartOptions = this.restartOptions!;
    this.restarting = (async () => {
      await this.live.current.stop();
      await over;
      // While it was down, the port may have been handed to some client's outgoing connection: wait for it back.
      for (let attempt = 1; ; attempt++) {
        try {
          this.live.current = await startApiServer(restartOptions);
          return;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw err;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    })();
    try {
      await this.restarting;
    } finally {
      this.restarting = undefined;
    }
  }

  /** What server faults do here: `compact` compacts the history; `restart-server` has the server down for the fault's window. */
  private readonly serverFaults: ServerFaultHandler = async (fault, window) => {
    if (fault.kind === 'compact') {
      if (this.restarting || this.stopped) return { detail: this.stopped ? 'the environment is stopped' : 'the server is restarting' };
      return { target: `the API server's history`, detail: `compacted through revision ${this.live.current.compact()}` };
    }
    if (!this.restartOptions) return { detail: 'the environment keeps its data in memory: start it with { durable: true } to restart its server' };
    if (this.restarting || this.stopped) return { detail: this.stopped ? 'the environment is stopped' : 'a restart is under way' };
    const down = performance.now();
    await this.outage(window.aborted ? Promise.resolve() : once(window, 'abort'));
    return { target: `the API server on port ${this.live.current.port}`, detail: `down ${Math.round(performance.now() - down)} ms, started again from its data` };
  };

  /** Stops what is still running (managers, proxies, the simulated cluster), then the server, and removes the kubeconfig file. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      const errors: unknown[] = [];
      for (const cleanup of [...this.cleanups].reverse()) await cleanup().catch((err: unknown) => errors.push(err));
      await this.cluster?.stop().catch((err: unknown) => errors.push(err));
      await this.changeWatches.close();
      this.client.close();
      // A restart under way ends first, so that the server it starts is the one stopped.
      await this.restarting?.catch(() => undefined);
      await this.live.current.stop();
      await rm(this.dir, { recursive: true, force: true });
      if (errors.length === 1) throw errors[0];
      if (errors.length > 1) throw new AggregateError(errors, 'stopping the test environment');
    })();
    return this.stopped;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** Undoes `cleanup` when `scope` ends, or at the latest when the environment stops. */
  private track(scope: TestScope | undefined, cleanup: () => Promise<void>): void {
    this.cleanups.add(cleanup);
    this.scoped.add(scope, cleanup);
  }
}

/** The simulated cluster's controllers are loaded only by environments that ask for one: the others do not pay for the import. */
async function startCluster(options: SimulatedClusterOptions): Promise<SimulatedCluster> {
  const { startSimulatedCluster } = await import('@operant/controllers');
  return startSimulatedCluster(options);
}

/** A manifest that cannot be read fails the start naming the option it came from (`TestEnv.start: crds: config/crds: no such file ...`). */
function rethrowAs(option: string): (err: unknown) => never {
  return (err) => {
    if (!(err instanceof Error)) throw err;
    throw Object.assign(new Error(`TestEnv.start: ${option}: ${err.message}`, { cause: err }), 'code' in err ? { code: err.code } : {});
  };
}
