/**
 * The embedded API server: HTTPS (or plain HTTP for tests) in front of the
 * MVCC store, serving discovery, OpenAPI and every registered resource, with
 * the built-in controllers (namespace lifecycle, garbage collector) running
 * beside it.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { badRequest, methodNotAllowed, StatusError, tooManyRequests } from '@operant/apimachinery';
import { MvccStore } from './storage/mvcc-store.js';
import { defaultCompactionIntervalMs, startCompactor } from './storage/compactor.js';
import { startIdleReclaim } from './memory/idle-reclaim.js';
import { StoreError } from './storage/types.js';
import { ResourceCatalog } from './registry/catalog.js';
import { ResourceStore } from './registry/resource-store.js';
import { builtinResources } from './registry/builtin-resources.js';
import { builtinStrategies } from './registry/builtin-strategies.js';
import { baseStrategy } from './registry/strategy.js';
import { ClusterIpAllocator } from './registry/cluster-ip.js';
import { schemaDecoder, schemaEncoder, schemaPatcher } from './registry/codec.js';
import { eventsV1Conversion } from './registry/event-conversion.js';
import { autoscalingV1Conversion } from './registry/autoscaling-conversion.js';
import { priorityClassStrategy } from './registry/scheduling-strategies.js';
import { ResourceQuotaAdmission } from './admission/resource-quota.js';
import { persistentVolumeClaimStrategy } from './registry/volume-strategies.js';
import { parseResourcePath } from './http/request-info.js';
import { ResourceHandler, notFoundPath } from './http/resource-handler.js';
import { defaultResourceVersionWaitMs } from './registry/revision-wait.js';
import { answerClientError, answerRequestTimeout, sendError, sendJson } from './http/respond.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './http/discovery.js';
import { OpenApiRoutes } from './http/openapi-routes.js';
import { aggregatedContentType, aggregatedDiscovery, wantsAggregated } from './http/aggregated-discovery.js';
import { serveReview } from './http/reviews.js';
import type { PrivateSocket } from './http/private-socket.js';
import { loadOrCreateServingMaterial, providedServingMaterial, type ProvidedServingMaterial, type ServingHosts } from './tls/material.js';
import { cachedServingMaterial } from './tls/serving-cache.js';
import { kubeconfigText, writeKubeconfig } from './tls/kubeconfig.js';
import { kubeVersion } from './version.js';
import { NamespaceController } from './controllers/namespace-lifecycle.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { APIServiceRegistrationController } from './controllers/apiservice-registration.js';
import { FlowSchemaStatusController } from './controllers/flowschema-status.js';
import { ValidatingAdmissionPolicyStatusController } from './controllers/validating-admission-policy-status.js';
import { CsrSigningController } from './controllers/csr-signing.js';
import { bootstrap, ensureKubernetesService, type BootstrapWrites } from './bootstrap.js';
import { AccessControl, nonResourceAttributes, resourceAttributes } from './auth/access-control.js';
import { ServiceAccountTokenAuthority } from './auth/authn/index.js';
import type { UserInfo } from './auth/authn/user-info.js';
import { rbacGroup, rbacPolicyResources, rbacWritePolicy } from './auth/rbac/storage-policy.js';
import { ClusterRoleAggregationController } from './auth/rbac/aggregation-controller.js';
import { AdmissionChain } from './admission/dispatcher.js';
import type { ParamStore } from './admission/policy/params.js';
import { serveTokenRequest } from './http/token-request.js';
import { servePodLog } from './http/pod-log.js';
import { serveBindings, servePodBinding } from './http/pod-binding.js';
import { servePodEviction } from './http/pod-eviction.js';
import { embeddedComponents, serveComponentStatuses } from './http/component-statuses.js';
import { crdStrategy } from './crd/strategy.js';
import { asCrd } from './crd/types.js';
import { CustomResourceServing } from './crd/serving.js';
import { resourcePrefix } from './registry/keys.js';
import { ApiServerMetrics, type RequestKind } from './metrics/apiserver-metrics.js';
import { nonResourceRequestLabels, resourceRequestLabels, type RequestLabels } from './metrics/request-labels.js';
import { prepareDataDir } from './storage/data-dir.js';

export interface ApiServerOptions {
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Directory for durable data; omitted keeps everything in memory. */
  dataDir?: string;
  /** Where to write a kubeconfig for the admin once serving. */
  kubeconfigPath?: string;
  /** Serve plain HTTP instead of HTTPS (tests only). */
  insecureHttp?: boolean;
  /** Recent events kept for watches and consistent pagination. */
  historyCapacity?: number;
  /**
   * About how many bytes of objects (as JSON) those events may hold; default
   * 64 MiB. Past it the oldest go, and watches and continue tokens from before
   * then get 410 Expired, as after etcd's compaction.
   */
  historyMaxBytes?: number;
  /**
   * How often the event history is compacted, as kube-apiserver's
   * --etcd-compaction-interval (default 5 minutes; 0 never): each compaction
   * drops what is older than the previous one's revision, in memory and in
   * the data dir's event log, so the history kept covers one to two
   * intervals. A watch or a continued list from before it gets 410 Expired.
   */
  etcdCompactionIntervalMs?: number;
  /**
   * Once a burst is over (RSS grown by more than a sixth since the last
   * reclaim, no longer growing, and the event loop idle for most of the last
   * second), ask V8 for a full collection and glibc
   * to hand its freed heap back (malloc_trim, through the optional `koffi`
   * package when it is installed). It acts on the whole process: on in
   * `operant server`, off by default here.
   */
  reclaimIdleMemory?: boolean;
  /** Interval of BOOKMARK events to watchers that allow them. */
  bookmarkIntervalMs?: number;
  /** Unsent bytes after which a slow watcher is disconnected. */
  maxWatchBufferBytes?: number;
  /**
   * How long a watch without `timeoutSeconds` lasts before the server ends it
   * (each watch gets between this and twice this, as kube's --min-request-timeout);
   * default 30 minutes. Tests shorten it to exercise clients' re-watching.
   */
  defaultWatchTimeoutMs?: number;
  /**
   * How long a GET or LIST at a resourceVersion the server has not reached
   * (and a watch that sends the initial state from one) waits for it before
   * the 504 Too large resource version; default 3 s, kube's watch cache
   * blockTimeout. It ends as soon as the revision is written.
   */
  resourceVersionWaitMs?: number;
  /**
   * How long a client may take to send a whole request, headers and body;
   * default 60 s, as kube-apiserver cuts request bodies (a body that never
   * ends would otherwise hold its connection for Node's 300 s). Watches are
   * not cut: their request ends with its headers.
   */
  requestTimeoutMs?: number;
  /**
   * How many requests may be served at once, as kube-apiserver's
   * --max-requests-inflight (default 400) and --max-mutating-requests-inflight
   * (default 200): past them a request gets 429 with Retry-After. Watches are
   * not counted, and system:masters (the admin) is exempt, as in kube.
   */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /**
   * Serve with this CA and serving certificate instead of making (or, with
   * `dataDir`, loading) them, so that starting costs no certificate
   * generation: test environments share one pair per process. The certificate
   * must be issued by the CA and cover `host` (127.0.0.1 by default). Client
   * certificates signed by the CA authenticate, as with the server's own CA.
   */
  servingMaterial?: ProvidedServingMaterial;
  /**
   * In memory only (no `dataDir`, no `servingMaterial`): a private directory
   * (0700, its file 0600) where the CA and serving certificate are kept across
   * starts, so that a start finding them there generates none; the admin token
   * is still new at each start. `operant server` uses
   * {@link defaultServingCacheDir}. Omitted: certificates are made at each start.
   */
  servingCacheDir?: string;
  /**
   * How the bootstrap objects (default RBAC policy, namespaces, PriorityClasses)
   * are written to a new store: `auto` (the default) skips the write path's
   * steps that leave them unchanged; `full` sends each through the whole create
   * path. Both store the same bytes; `full` is for the test that proves it.
   */
  bootstrapWrites?: BootstrapWrites;
  /**
   * Also serve plain HTTP on a Unix domain socket in a fresh private
   * directory (0700, the socket 0600; its path is
   * {@link RunningApiServer.socketPath}), for a client in the process that
   * embeds the server and should not pay for TLS to reach it (a test
   * environment's fault proxy, or the simulated cluster's process that
   * `operant server --nodes` starts beside it). Requests on it are
   * authenticated as over HTTPS, by bearer token (no TLS, so no client
   * certificates). The directory goes at stop, or when the process exits
   * first; one a killed process left is swept by a later process's first
   * socket. Default false; `operant server` sets it only with `--nodes`,
   * for its simulated cluster.
   */
  privateSocket?: boolean;
}

/** A running server. */
export interface RunningApiServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The CA certificate that signed the serving certificate (PEM). */
  caPem: string;
  /** The bearer token of the admin identity. */
  adminToken: string;
  /** With `privateSocket`: the Unix domain socket serving plain HTTP (a new one at each start). */
  socketPath?: string;
  /**
   * With `privateSocket`: serves a request that another HTTP server of this
   * process took in, with the same handler as the private socket's, so that a
   * proxy in the process (a test environment's fault proxy) need not send it
   * on over the socket: no second HTTP request, head and answer. The request
   * is taken as it is (its URL, its headers, its body still to be read) and
   * authenticated as one on the private socket, by its Authorization header
   * alone (a client certificate the other server was shown does not count:
   * that TLS connection was not made to this server). False,
   * with the request left alone, once the server is stopping: it must go
   * elsewhere. The server's `requestTimeoutMs` applies as on its own
   * connections: a body not received whole by then gets 408 Timeout, and the
   * connection is closed. At stop, an answer still under way is cut, as the
   * private socket's connections are: `cut` is called for the caller to end
   * the response as it ends one whose connection to the server closed (a
   * proxy's 502); without `cut` the response is destroyed.
   */
  serveInProcess?(req: IncomingMessage, res: ServerResponse, cut?: () => void): boolean;
  /** A kubeconfig for the admin, as YAML. */
  kubeconfig: string;
  /**
   * Compacts the event history through the current revision, as etcd's
   * compaction: watches resuming from, and paginated lists continuing at, an
   * older resourceVersion get 410 Expired; open watches go on. Returns the
   * revision compacted through. (Tests and fault injection use it.)
   */
  compact(): number;
  /** Stops serving and closes storage; pending watches are ended. */
  stop(): Promise<void>;
}

/**
 * Starts the embedded API server.
 *
 * @example
 * const server = await startApiServer({ port: 0, kubeconfigPath: '.operant/kubeconfig' });
 * console.log(`ready ${server.url}`);
 * await server.stop();
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<RunningApiServer> {
  const host = options.host ?? '127.0.0.1';
  // A data dir that cannot be used says why before anything is written into it (certificates included).
  if (options.dataDir) prepareDataDir(options.dataDir);
  // Certificates first: a pair that cannot serve fails the start before storage is opened.
  const material = options.servingMaterial
    ? await providedServingMaterial(options.servingMaterial, options.dataDir, reachableHost(host))
    : !options.dataDir && options.servingCacheDir
      ? await cachedServingMaterial(options.servingCacheDir, servingHosts(host), (warning) => process.stderr.write(`warning: ${warning}\n`))
      : await loadOrCreateServingMaterial(options.dataDir ? join(options.dataDir) : undefined, servingHosts(host));
  // SQLite (a native module) is loaded only when there is a data dir: in memory, start-up skips it.
  const persistence = options.dataDir ? new (await import('./storage/sqlite-persistence.js')).SqlitePersistence(options.dataDir) : undefined;
  const store = new MvccStore({ historyCapacity: options.historyCapacity, historyMaxBytes: options.historyMaxBytes, persistence });
  const catalog = new ResourceCatalog();
  const allocator = new ClusterIpAllocator(() => usedServiceAddresses(store));
  const metrics = new ApiServerMetrics(() => storageObjectCounts(catalog, store));
  const admission = new AdmissionChain(store, {
    observeWebhook: (...args) => metrics.observeWebhook(...args),
    // ValidatingAdmissionPolicies read params of any served kind (CRDs too) and ask RBAC for their `authorizer`.
    policies: {
      params: (group, version, kind) => paramStore(catalog.lookupKind(group, version, kind)),
      authorizer: { authorize: (attrs) => access.rbac.authorize(attrs) },
      observeCheck: (...args) => metrics.observePolicyCheck(...args),
    },
  });
  const quota = new ResourceQuotaAdmission(store);
  const serviceAccountTokens = await ServiceAccountTokenAuthority.load(options.dataDir);
  const access = new AccessControl(store, { adminToken: material.adminToken, clientCA: material.ca.certPem, serviceAccountTokens });
  const priorityClasses = {
    get: (name: string) => store.get(`/scheduling.k8s.io/priorityclasses/${name}`)?.value,
    list: () => store.list('/scheduling.k8s.io/priorityclasses/').items.map((v) => v.value),
  };
  const strategies = builtinStrategies(allocator, { nodeRegistered: (node) => store.get(`/core/nodes/${node}`) !== undefined, priorityClasses });
  // RBAC escalation prevention: writes of roles and bindings granting more than the writer holds.
  for (const resource of rbacPolicyResources) {
    const key = `${rbacGroup}/${resource}`;
    strategies.set(key, { ...strategies.get(key)!, authorizeWrite: rbacWritePolicy(resource, access.rbac) });
  }
  strategies.set('/persistentvolumeclaims', persistentVolumeClaimStrategy(() => store.list('/storage.k8s.io/storageclasses/').items.map((v) => v.value)));
  strategies.set('scheduling.k8s.io/priorityclasses', priorityClassStrategy(priorityClasses.list));
  strategies.set('apiextensions.k8s.io/customresourcedefinitions', crdStrategy(() => store.list('/apiextensions.k8s.io/customresourcedefinitions/').items.map((v) => asCrd(v.value))));
  for (const info of builtinResources) {
    const strategy = strategies.get(`${info.group}/${info.resource}`) ?? baseStrategy();
    // events.k8s.io/v1 Events share the core Events' storage, as in kube.
    const sharesCoreEvents = info.group === 'events.k8s.io' && info.resource === 'events';
    // autoscaling/v1 HPAs are the stored autoscaling/v2 ones, converted.
    const hpaV1 = info.group === 'autoscaling' && info.version === 'v1' && info.resource === 'horizontalpodautoscalers';
    const location = sharesCoreEvents ? { group: '', resource: 'events' } : { group: info.group, resource: info.resource };
    const conversion = sharesCoreEvents ? eventsV1Conversion : hpaV1 ? autoscalingV1Conversion : undefined;
    catalog.add(
      new ResourceStore(info, location, strategy, { store, decoder: schemaDecoder(info), patcher: schemaPatcher(info), encoder: schemaEncoder(info), conversion, admission, quota }),
    );
  }
  // Revision 1 is where every store starts: nothing was ever written to it.
  const newStore = store.revision === 1;
  await readOnlyIfFull(() => bootstrap(catalog, options.bootstrapWrites), 'the bootstrap objects (RBAC policy, initial namespaces, flow control)');
  const bootstrapped = store.revision;

  const resources = new ResourceHandler(catalog, {
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 30_000,
    maxWatchBufferBytes: options.maxWatchBufferBytes ?? 16 * 1024 * 1024,
    defaultWatchTimeoutMs: options.defaultWatchTimeoutMs ?? 30 * 60_000,
    resourceVersionWaitMs: options.resourceVersionWaitMs ?? defaultResourceVersionWaitMs,
  });
  const openapi = new OpenApiRoutes(catalog);
  const namespaces = new NamespaceController(catalog);
  const gc = new GarbageCollector(catalog);
  const clusterRoleAggregation = new ClusterRoleAggregationController(catalog);
  const apiServiceRegistration = new APIServiceRegistrationController(catalog);
  const flowSchemaStatus = new FlowSchemaStatusController(catalog);
  const policyStatus = new ValidatingAdmissionPolicyStatusController(catalog);
  // Signing needs the CA's key; a server given only a CA certificate signs nothing, as
  // kube-controller-manager without --cluster-signing-key-file.
  const caKeyPem = material.ca.keyPem;
  const csrSigning = caKeyPem === undefined ? undefined : new CsrSigningController(catalog, { certPem: material.ca.certPem, keyPem: caKeyPem });
  const customResources = new CustomResourceServing(catalog, store, admission, quota);
  await customResources.start();
  const components = embeddedComponents(() => store.get('/health'));

  let serverAddress = '';
  const inflight = { readOnly: 0, mutating: 0 };
  const inflightLimits = { readOnly: options.maxRequestsInflight ?? 400, mutating: options.maxMutatingRequestsInflight ?? 200 };
  /** kube's WithMaxInFlightLimit: a slot per request until its response is done, or 429. */
  const takeInflightSlot = (kind: RequestKind, user: UserInfo, res: ServerResponse): void => {
    if (kind === 'longRunning' || user.groups.includes('system:masters')) return;
    if (inflight[kind] >= inflightLimits[kind]) throw tooManyRequests('Too many requests, please try again later.', 1);
    inflight[kind]++;
    res.once('close', () => inflight[kind]--);
  };
  /** Requests another server of the process took in (serveInProcess): no client certificate of theirs authenticates here. */
  const handedOver = new WeakSet<IncomingMessage>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res, measure(req, res)).catch((err: unknown) => sendError(res, err));
  };
  /** Measures a request once it is known what it addresses; paths served by no route go unmeasured, as in kube. */
  const measure = (req: IncomingMessage, res: ServerResponse): ((labels: RequestLabels, kind: RequestKind) => void) => {
    const startedAt = process.hrtime.bigint();
    let measured = false;
    return (labels, kind) => {
      if (measured) return;
      measured = true;
      const finish = metrics.track(labels, kind, startedAt);
      res.once('close', () => finish(res.statusCode));
    };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse, measured: ReturnType<typeof measure>): Promise<void> => {
    const url = requestUrl(req.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const readOnly = method === 'GET' || method === 'HEAD';
    if (isPublic(path)) {
      // `/healthz/<anything>` is answered too, but only the fixed paths get a label value.
      if (publicPaths.has(path)) measured(nonResourceRequestLabels(method, path, url.searchParams), 'readOnly');
      return servePublic(path, res);
    }
    const user = await access.identify(req, { handedOver: handedOver.has(req) });
    if (!servedMethods.has(method)) throw methodNotAllowed();
    const rr = parseResourcePath(path, method, url.searchParams);
    const kind: RequestKind = rr?.verb === 'watch' ? 'longRunning' : readOnly ? 'readOnly' : 'mutating';
    // Only served resources and routed paths: a made-up path must not mint label values.
    if (rr && catalog.lookup(rr.group, rr.version, rr.resource)) {
      measured(resourceRequestLabels(method, rr, url.searchParams, req.headers['content-type'] ?? ''), kind);
    } else if (isRoutedPath(path)) {
      measured(nonResourceRequestLabels(method, path, url.searchParams), kind);
    }
    takeInflightSlot(kind, user, res);
    access.authorize(rr ? resourceAttributes(user, rr, path) : nonResourceAttributes(user, method, path));
    if (path === '/metrics') return serveMetrics(req, res, metrics);
    if (rr) {
      if (rr.group === 'authorization.k8s.io' || rr.group === 'authentication.k8s.io') return serveReview(req, res, rr, catalog, access, user);
      if (rr.group === '' && rr.resource === 'serviceaccounts' && rr.subresource === 'token') {
        return serveTokenRequest(req, res, rr, catalog, serviceAccountTokens, store);
      }
      if (rr.group === '' && rr.resource === 'pods' && rr.subresource === 'binding') return servePodBinding(req, res, rr, catalog, url.searchParams, user);
      if (rr.group === '' && rr.resource === 'pods' && rr.subresource === 'log') return servePodLog(req, res, rr, catalog, url.searchParams);
      if (rr.group === '' && rr.resource === 'pods' && rr.subresource === 'eviction') return servePodEviction(req, res, rr, catalog, url.searchParams, user);
      if (rr.group === '' && rr.resource === 'bindings') return serveBindings(req, res, rr, catalog, url.searchParams, user);
      if (rr.group === '' && rr.resource === 'componentstatuses') {
        return serveComponentStatuses(req, res, rr, url.searchParams, catalog.lookup('', 'v1', 'componentstatuses')!, components);
      }
      return resources.handle(req, res, rr, url.searchParams, user);
    }
    if (path === '/api' || path === '/apis') {
      const aggregated = wantsAggregated(req.headers.accept);
      if (aggregated) return sendJson(res, 200, aggregatedDiscovery(catalog.infos(), path === '/api', aggregated), aggregatedContentType(aggregated));
      return sendJson(res, 200, path === '/api' ? apiVersions(serverAddress) : apiGroupList(catalog.infos()));
    }
    if (path.startsWith('/openapi/')) return openapi.serve(req, res, path, url.searchParams);
    const parts = path.split('/').filter(Boolean);
    if (parts[0] === 'api' && parts.length === 2) return sendOr404(res, apiResourceList(catalog.infos(), '', parts[1]));
    if (parts[0] === 'apis' && parts.length === 2) return sendOr404(res, apiGroup(catalog.infos(), parts[1]));
    if (parts[0] === 'apis' && parts.length === 3) return sendOr404(res, apiResourceList(catalog.infos(), parts[1], parts[2]));
    throw notFoundPath();
  };

  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  // Node checks the timeouts on an interval (30 s by default): a short timeout needs a shorter one.
  const timeouts = { requestTimeout, headersTimeout: Math.min(60_000, requestTimeout), connectionsCheckingInterval: Math.min(30_000, Math.max(50, requestTimeout / 4)) };
  const server: Server = options.insecureHttp
    ? createHttpServer(timeouts, handler)
    : // Clients may present a certificate signed by the CA; the authenticator judges it, so a
      // bad certificate can still fall back to a token, as in kube.
      createHttpsServer({ ...timeouts, cert: material.serving.certPem, key: material.serving.keyPem, ca: material.ca.certPem, requestCert: true, rejectUnauthorized: false }, handler);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  // Every TCP connection, from its accept: closeAllConnections() knows only those that got as far as
  // HTTP, so one still in its TLS handshake (or that never starts it) would hold stop() until Node's
  // 120 s handshake timeout.
  const sockets = new Set<Socket>();
  const reclaim = options.reclaimIdleMemory ? startIdleReclaim() : undefined;
  // Connections closed by the hundred leave their TLS buffers free in glibc's heap: a hint to reclaim.
  let connectionsPeak = 0;
  const trackConnections = (s: Server): void => {
    s.on('connection', (socket: Socket) => {
      sockets.add(socket);
      connectionsPeak = Math.max(connectionsPeak, sockets.size);
      socket.once('close', () => {
        sockets.delete(socket);
        if (reclaim && connectionsPeak >= 200 && sockets.size <= connectionsPeak / 2) {
          reclaim.hint(true);
          connectionsPeak = sockets.size;
        }
      });
    });
  };
  trackConnections(server);
  let privateSocket: PrivateSocket | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    if (options.privateSocket) {
      const local = createHttpServer(timeouts, handler);
      local.keepAliveTimeout = server.keepAliveTimeout;
      local.on('clientError', answerClientError);
      trackConnections(local);
      // Loaded only here: it needs node:fs/promises, seven of Node's modules that a start otherwise skips.
      const { listenPrivateSocket } = await import('./http/private-socket.js');
      privateSocket = await listenPrivateSocket(local);
    }
  } catch (err) {
    // Nothing will serve: let go of what was opened for it (an open database keeps the data dir locked).
    if (server.listening) server.close();
    customResources.stop();
    store.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const reached = reachableHost(host);
  const urlHost = reached.includes(':') ? `[${reached}]` : reached;
  serverAddress = `${urlHost}:${port}`;
  const url = `${options.insecureHttp ? 'http' : 'https'}://${serverAddress}`;
  const kubeconfig = kubeconfigText({ server: url, caPem: material.ca.certPem, token: material.adminToken });
  let stopCompactor: () => void = () => {};
  let stopped: Promise<void> | undefined;
  /** The responses of requests handed over in the process (serveInProcess) and not yet done, with how to cut each at stop. */
  const inProcess = new Map<ServerResponse, (() => void) | undefined>();
  const serveInProcess = (req: IncomingMessage, res: ServerResponse, cut?: () => void): boolean => {
    if (stopped) return false;
    handedOver.add(req);
    inProcess.set(res, cut);
    // The request timeout, which Node applies to the server's own connections only: a body still
    // coming when it ends gets the 408 those get.
    const timer = req.complete
      ? undefined
      : setTimeout(() => {
          if (!req.complete) answerRequestTimeout(res);
        }, requestTimeout).unref();
    res.once('close', () => {
      inProcess.delete(res);
      clearTimeout(timer);
    });
    handler(req, res);
    return true;
  };
  const running: RunningApiServer = {
    url,
    port,
    caPem: material.ca.certPem,
    adminToken: material.adminToken,
    ...(privateSocket ? { socketPath: privateSocket.path, serveInProcess } : {}),
    kubeconfig,
    compact: () => store.compact(),
    stop(): Promise<void> {
      stopped ??= new Promise<void>((resolve) => {
        stopCompactor();
        reclaim?.stop();
        namespaces.stop();
        gc.stop();
        customResources.stop();
        // Storage closes once the controllers' passes under way have ended, and the connections.
        const passes = Promise.all([clusterRoleAggregation.stop(), apiServiceRegistration.stop(), flowSchemaStatus.stop(), policyStatus.stop(), csrSigning?.stop()]);
        const closed = Promise.all([new Promise<void>((done) => server.close(() => done())), privateSocket?.close()]);
        void closed.then(() =>
          passes.then(() => {
            store.close();
            resolve();
          }),
        );
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        for (const [res, cut] of inProcess) {
          if (cut) cut();
          else res.destroy();
        }
      });
      return stopped;
    },
  };
  try {
    if (options.kubeconfigPath) await writeKubeconfig(options.kubeconfigPath, kubeconfig);
    await readOnlyIfFull(
      () =>
        ensureKubernetesService(
          catalog,
          host === '0.0.0.0' || host === '::' || host === 'localhost' ? '127.0.0.1' : host,
          port,
          // Stored as the bootstrap objects are when nothing but those was ever written (no request has come in since listen).
          (options.bootstrapWrites ?? 'auto') === 'auto' && newStore && store.revision === bootstrapped,
        ),
      'the kubernetes Service and Endpoints',
    );
    namespaces.start();
    gc.start();
    clusterRoleAggregation.start();
    apiServiceRegistration.start();
    flowSchemaStatus.start();
    policyStatus.start();
    csrSigning?.start();
    // A compaction drops the burst's events, garbage now: urgent, so that a server whose data grew still
    // collects at each compaction (one collection per interval at most) rather than keep a burst's history.
    stopCompactor = startCompactor(store, options.etcdCompactionIntervalMs ?? defaultCompactionIntervalMs, reclaim && (() => reclaim.hint(true)));
  } catch (err) {
    // A start that fails once it serves (a damaged value read by a controller, a kubeconfig it cannot write)
    // lets go of all it opened, as a stop does: the port, the connections, the data dir's lock.
    await running.stop();
    throw err;
  }
  return running;
}

const publicPaths = new Set(['/version', '/healthz', '/livez', '/readyz']);

/** The methods the API answers; others (OPTIONS, TRACE, ...) get 405, as go-restful gives them. */
const servedMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** The request target as a URL; always a path (`//x` is a path here, not a host). */
function requestUrl(target: string | undefined): URL {
  const raw = target ?? '/';
  try {
    return new URL(`http://x${raw.startsWith('/') ? '' : '/'}${raw}`);
  } catch {
    throw badRequest(`parse ${JSON.stringify(raw)}: invalid URI for request`);
  }
}

/** The non-resource paths the server routes (discovery, OpenAPI, metrics), whose requests are measured by path. */
function isRoutedPath(path: string): boolean {
  return path === '/metrics' || path === '/api' || path === '/apis' || path === '/openapi/v2' || path === '/openapi/v3';
}

/** `/metrics`, for users allowed to GET it (cluster-admin, system:monitoring). */
async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: ApiServerMetrics): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  const body = await metrics.text();
  res.writeHead(200, { 'Content-Type': metrics.contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** `apiserver_storage_objects`: each storage location once (core and events.k8s.io events share one), as `<resource>.<group>`. */
/**
 * Runs a start-up write; on a full disk the server starts anyway, read-only,
 * and says why: reads and watches are served from what is stored, and writes
 * answer etcd's NOSPACE error until space frees.
 */
async function readOnlyIfFull(write: () => Promise<void>, what: string): Promise<void> {
  try {
    await write();
  } catch (e) {
    if (!(e instanceof StoreError && e.code === 'NoSpace')) throw e;
    process.stderr.write(`warning: starting read-only: the data dir is full (${e.message}), so ${what} could not be written; reads and watches are served, and writes are accepted again once space frees\n`);
  }
}

/** A resource's objects as a policy's params see them: in the served version, none when absent. */
function paramStore(rs: ResourceStore | undefined): ParamStore | undefined {
  if (!rs) return undefined;
  return {
    namespaced: rs.info.namespaced,
    get: async (namespace, name) => {
      try {
        return await rs.get(namespace, name);
      } catch (e) {
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      }
    },
    list: async (namespace) => (await rs.list(namespace, {})).items,
  };
}

function* storageObjectCounts(catalog: ResourceCatalog, store: MvccStore): Iterable<[string, number]> {
  const seen = new Set<string>();
  for (const rs of catalog.stores()) {
    if (rs.info.virtual) continue;
    const prefix = resourcePrefix(rs.location);
    if (seen.has(prefix)) continue;
    seen.add(prefix);
    const { group, resource } = rs.location;
    yield [group ? `${resource}.${group}` : resource, store.list(prefix).items.length];
  }
}

function isPublic(path: string): boolean {
  return publicPaths.has(path) || /^\/(healthz|livez|readyz)\/[a-z-]+$/.test(path);
}

function servePublic(path: string, res: ServerResponse): void {
  if (path === '/version') return sendJson(res, 200, kubeVersion);
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('ok');
}

function sendOr404(res: ServerResponse, body: object | undefined): void {
  if (!body) throw notFoundPath();
  sendJson(res, 200, body);
}

function usedServiceAddresses(store: MvccStore): { ips: Set<string>; nodePorts: Set<number> } {
  const ips = new Set<string>();
  const nodePorts = new Set<number>();
  for (const v of store.list('/core/services/').items) {
    const spec = (v.value.spec ?? {}) as { clusterIP?: string; ports?: Array<{ nodePort?: number }>; healthCheckNodePort?: number };
    if (spec.clusterIP) ips.add(spec.clusterIP);
    for (const p of spec.ports ?? []) if (p.nodePort) nodePorts.add(p.nodePort);
    // A LoadBalancer's health check port comes from the node port range too.
    if (spec.healthCheckNodePort) nodePorts.add(spec.healthCheckNodePort);
  }
  return { ips, nodePorts };
}

/** The names the serving certificate covers: kube's service names, loopback, the service IP, and `host` when it is another address. */
function servingHosts(host: string): ServingHosts {
  return {
    dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
    ipAddresses: ['127.0.0.1', '::1', '10.96.0.1', ...(host !== '127.0.0.1' && host !== 'localhost' && host !== '0.0.0.0' && host !== '::' ? [host] : [])],
  };
}

/** The address clients reach the server at: the listening address, or loopback for a wildcard one. */
function reachableHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}
