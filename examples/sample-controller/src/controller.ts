/**
 * The Foo controller, in the informer-handler style of
 * kubernetes/sample-controller's controller.go: informer event handlers put
 * keys on a rate-limited work queue, and workers run `syncHandler` for each,
 * which makes the Foo's Deployment exist with the Foo's replicas and copies
 * the Deployment's available replicas into the Foo's status.
 *
 * With `writes: 'apply'` it writes with server-side apply instead of the
 * original's create and update: it applies the fields of the Deployment it
 * owns (owner reference, selector, template, replicas) and the Foo's status,
 * so other managers may own other fields of the same Deployment (an
 * annotation, or the replicas when the Foo leaves them unset) without either
 * undoing the other's writes.
 */
import {
  Deployment,
  applyConfiguration,
  getControllerOf,
  isConflict,
  isControlledBy,
  setControllerReference,
  type ApplyConfiguration,
  type Client,
  type Logger,
  type Informer,
  type Tombstone,
  type Typed,
} from '@operant/runtime';
import { deletedObject, objectKey, splitKey } from '@operant/runtime/cache';
import { RateLimitingQueue } from '@operant/runtime/workqueue';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { FooKind, type Foo } from './foo.js';

type DeploymentObject = Typed<appsv1.Deployment>;

/** Event reasons and messages, as the original's constants. */
export const SuccessSynced = 'Synced';
export const ErrResourceExists = 'ErrResourceExists';
export const MessageResourceSynced = 'Foo synced successfully';
export const messageResourceExists = (name: string): string => `Resource "${name}" already exists and is not managed by Foo`;

/** The field manager the controller applies as, in `writes: 'apply'` mode. */
export const fieldManager = 'sample-controller';

/** Where the controller reports what it did to a Foo (an events.k8s.io recorder). */
export interface FooEventRecorder {
  event(regarding: Foo, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

/** What the controller is built from; main.ts wires the real ones. */
export interface FooControllerDeps {
  client: Client;
  foos: Informer<Foo>;
  deployments: Informer<DeploymentObject>;
  recorder: FooEventRecorder;
  logger: Logger;
  queue?: RateLimitingQueue<string>;
  /**
   * How the Deployment and the Foo's status are written: `update`, the
   * original's create and read-modify-write update (the default), or `apply`,
   * server-side apply of only the fields the controller owns.
   */
  writes?: 'update' | 'apply';
}

/**
 * Keeps a Deployment for each Foo.
 *
 * @example
 * ```ts
 * const controller = new FooController({ client, foos, deployments, recorder, logger });
 * informers.startAll(signal);
 * await controller.run(2, signal);
 * ```
 */
export class FooController {
  private readonly queue: RateLimitingQueue<string>;

  constructor(private readonly deps: FooControllerDeps) {
    this.queue = deps.queue ?? new RateLimitingQueue<string>({ name: 'Foos' });
    deps.foos.addEventHandler({
      add: (foo) => this.enqueueFoo(foo),
      update: (_old, foo) => this.enqueueFoo(foo),
    });
    // A change to a Deployment that a Foo owns makes that Foo sync again.
    deps.deployments.addEventHandler({
      add: (deployment) => this.handleObject(deployment),
      update: (old, deployment) => {
        // Periodic resyncs send updates for every object; an unchanged one needs no work.
        if (old.metadata.resourceVersion === deployment.metadata.resourceVersion) return;
        this.handleObject(deployment);
      },
      delete: (deployment) => this.handleObject(deployment),
    });
  }

  /**
   * Waits for the informers' caches, runs `workers` workers until `signal`
   * aborts, then lets the queue drain and returns.
   */
  async run(workers: number, signal: AbortSignal): Promise<void> {
    const log = this.deps.logger;
    log.info({}, 'Starting Foo controller');
    log.info({}, 'Waiting for informer caches to sync');
    const synced = await Promise.all([this.deps.foos.waitForCacheSync(signal), this.deps.deployments.waitForCacheSync(signal)]);
    if (!synced.every(Boolean)) {
      this.queue.shutDown();
      if (signal.aborted) return;
      throw new Error('failed to wait for caches to sync');
    }
    log.info({ count: workers }, 'Starting workers');
    const running = Array.from({ length: workers }, () => this.runWorker());
    log.info({}, 'Started workers');
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log.info({}, 'Shutting down workers');
    await this.queue.shutDownWithDrain();
    await Promise.all(running);
  }

  private async runWorker(): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (item.shutdown) return;
      const key = item.key;
      try {
        await this.syncHandler(key);
        // Success: the key's backoff history starts afresh.
        this.queue.forget(key);
        this.deps.logger.info({ resourceName: key }, 'Successfully synced');
      } catch (err) {
        this.queue.addRateLimited(key);
        // A write from a stale cached copy: the next sync reads the newer one. Not worth an error line.
        if (isConflict(err)) this.deps.logger.debug({ resourceName: key }, 'Conflict while syncing; requeuing');
        else this.deps.logger.error({ err, resourceName: key }, 'Error syncing; requeuing for later retry');
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** Brings the Deployment of the Foo named by `key` to the Foo's spec, and the Foo's status to the Deployment's. */
  private async syncHandler(key: string): Promise<void> {
    const { namespace } = splitKey(key);
    const log = this.deps.logger;
    const foo = this.deps.foos.store.get(key);
    if (!foo) {
      // The Foo is gone; its Deployment goes with it through garbage collection.
      log.info({ resourceName: key }, 'Foo in work queue no longer exists');
      return;
    }
    const deploymentName = foo.spec?.deploymentName;
    if (!deploymentName) {
      // Retrying cannot help until the user edits the Foo, which queues it again.
      log.error({ resourceName: key }, `${key}: deployment name must be specified`);
      return;
    }
    let deployment = this.deps.deployments.store.get(`${namespace}/${deploymentName}`);
    if (deployment && !isControlledBy(deployment, foo)) {
      const message = messageResourceExists(deploymentName);
      this.deps.recorder.event(foo, 'Warning', ErrResourceExists, message);
      throw new Error(message);
    }
    if (this.deps.writes === 'apply') {
      // Force: the controller is the authority on the fields it applies. An unchanged configuration is no write.
      deployment = await this.deps.client.apply(Deployment, deploymentConfiguration(foo), { fieldManager, force: true });
    } else {
      if (!deployment) deployment = await this.deps.client.create(Deployment, newDeployment(foo));
      const replicas = foo.spec?.replicas;
      if (replicas !== undefined && replicas !== deployment.spec?.replicas) {
        log.info({ resourceName: key, want: replicas, have: deployment.spec?.replicas }, 'Updating the Deployment to the Foo\'s replicas');
        const spec = deployment.spec ?? newDeployment(foo).spec!;
        deployment = await this.deps.client.update(Deployment, { ...deployment, spec: { ...spec, replicas } });
      }
    }
    await this.updateFooStatus(foo, deployment);
    this.deps.recorder.event(foo, 'Normal', SuccessSynced, MessageResourceSynced);
  }

  private async updateFooStatus(foo: Foo, deployment: DeploymentObject): Promise<void> {
    const available = deployment.status?.availableReplicas ?? 0;
    if (foo.status?.availableReplicas === available) return;
    if (this.deps.writes === 'apply') {
      const status = applyConfiguration(FooKind, foo.metadata.name ?? '', foo.metadata.namespace, { status: { availableReplicas: available } });
      await this.deps.client.applyStatus(FooKind, status, { fieldManager, force: true });
      return;
    }
    // Objects from the cache are shared: write a copy.
    await this.deps.client.updateStatus(FooKind, { ...foo, status: { ...foo.status, availableReplicas: available } });
  }

  private enqueueFoo(foo: Foo): void {
    this.queue.add(objectKey(foo));
  }

  /** Queues the Foo that controls `obj`, if any (the original's handleObject). */
  private handleObject(obj: DeploymentObject | Tombstone<DeploymentObject>): void {
    const object = deletedObject(obj);
    const owner = getControllerOf(object);
    if (!owner || owner.kind !== FooKind.kind) return;
    const foo = this.deps.foos.store.get(`${object.metadata.namespace}/${owner.name}`);
    if (!foo) {
      this.deps.logger.debug({ object: objectKey(object), foo: owner.name }, 'Ignoring orphaned object');
      return;
    }
    this.enqueueFoo(foo);
  }
}

/** The Deployment a Foo asks for: nginx, labelled for the Foo, controlled by it. */
export function newDeployment(foo: Foo): DeploymentObject {
  const labels = { app: 'nginx', controller: foo.metadata.name ?? '' };
  const deployment: DeploymentObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: foo.spec?.deploymentName ?? '', namespace: foo.metadata.namespace ?? '' },
    spec: {
      replicas: foo.spec?.replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
      },
    },
  };
  setControllerReference(foo, deployment, FooKind);
  return deployment;
}

/**
 * What the controller owns of a Foo's Deployment, as an apply configuration:
 * the Deployment {@link newDeployment} makes, whose replicas are left out when
 * the Foo has none (so that another manager, say an autoscaler, may own them).
 */
export function deploymentConfiguration(foo: Foo): ApplyConfiguration<DeploymentObject> {
  const desired = newDeployment(foo);
  return applyConfiguration(Deployment, desired.metadata.name ?? '', desired.metadata.namespace, {
    metadata: { ownerReferences: desired.metadata.ownerReferences },
    spec: desired.spec,
  });
}
