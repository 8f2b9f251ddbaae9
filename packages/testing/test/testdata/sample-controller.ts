/**
 * examples/sample-controller as the chaos tests run it: wired as its main.ts
 * wires it but connected through a fault proxy, and the check of what it
 * owns (one Deployment per Foo, as asked, with the Foo's status following it).
 */
import { Client, Deployment, EventRecorder, getControllerOf, type Logger, type Typed } from '@operant/runtime';
import { SharedInformerFactory } from '@operant/runtime/cache';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { FooController } from '@operant/sample-controller/src/controller.js';
import { FooKind } from '@operant/sample-controller/src/foo.js';
import type { FaultProxy } from '../../src/index.js';

type DeploymentObject = Typed<appsv1.Deployment>;

/**
 * What is wrong with the Foos and Deployments of `namespace`, one line each:
 * a Foo without exactly one Deployment it controls, or with the wrong name or
 * replicas, or whose status disagrees with its Deployment; a Deployment whose
 * Foo is gone.
 */
export async function problems(client: Client, namespace: string, options: { namedAsAsked: boolean }): Promise<string[]> {
  const [foos, deployments] = await Promise.all([client.list(FooKind, { namespace }), client.list(Deployment, { namespace })]);
  const out: string[] = [];
  const live = foos.items.filter((f) => !f.metadata.deletionTimestamp);
  const byOwner = new Map<string, DeploymentObject[]>();
  for (const d of deployments.items) {
    const owner = getControllerOf(d);
    const foo = foos.items.find((f) => f.metadata.uid === owner?.uid);
    if (!foo) out.push(`Deployment ${d.metadata.name} has no Foo (controller ${owner ? `${owner.kind}/${owner.name}` : 'none'})`);
    else byOwner.set(foo.metadata.uid!, [...(byOwner.get(foo.metadata.uid!) ?? []), d]);
  }
  for (const foo of live) {
    const owned = byOwner.get(foo.metadata.uid!) ?? [];
    const name = foo.metadata.name;
    if (owned.length !== 1) {
      out.push(`Foo ${name} has ${owned.length} Deployments${owned.length ? `: ${owned.map((d) => d.metadata.name).join(', ')}` : ''}`);
      continue;
    }
    const d = owned[0]!;
    if (options.namedAsAsked && d.metadata.name !== foo.spec?.deploymentName) out.push(`Foo ${name}'s Deployment is ${d.metadata.name}, not ${foo.spec?.deploymentName}`);
    if (d.spec?.replicas !== foo.spec?.replicas) out.push(`Foo ${name} wants ${foo.spec?.replicas} replicas, its Deployment has ${d.spec?.replicas}`);
    if (options.namedAsAsked && (foo.status?.availableReplicas ?? -1) !== (d.status?.availableReplicas ?? 0)) {
      out.push(`Foo ${name} reports ${foo.status?.availableReplicas} available replicas, its Deployment ${d.status?.availableReplicas ?? 0}`);
    }
  }
  return out;
}

/** The sample controller as its main.ts wires it, but connected through `proxy`. */
export async function runSampleController(proxy: FaultProxy, signal: AbortSignal, logger: Logger): Promise<() => Promise<void>> {
  const client = Client.fromConfig(await proxy.clientConfig());
  const informers = new SharedInformerFactory(client, { logger, resyncPeriodMs: 30_000 });
  const recorder = new EventRecorder(client, { reportingController: 'sample-controller', logger });
  const controller = new FooController({ client, foos: informers.informerFor(FooKind), deployments: informers.informerFor(Deployment), recorder, logger });
  informers.startAll(signal);
  const running = controller.run(2, signal);
  return async () => {
    await running;
    await informers.stopAll();
    await recorder.close();
    client.close();
  };
}

