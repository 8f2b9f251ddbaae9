/**
 * What "converged" means for the sample-controller, as a list of what is
 * still wrong: every live Foo has exactly one Deployment it controls, named
 * as the Foo asks, with the Foo's replicas; the Foo's status agrees with the
 * Deployment's; no Deployment outlives its Foo. With `available`, the pods
 * must also be up: the Deployment and the Foo's status count every replica
 * available (a simulated cluster runs them).
 */
import { Deployment, getControllerOf, type Client, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import { FooKind } from '../src/foo.js';

type DeploymentObject = Typed<appsv1.Deployment>;

/** Which of the checks above apply. */
export interface ProblemOptions {
  /** The Deployment is named `spec.deploymentName` and the Foo's status mirrors it (false for controllers that use generateName). */
  namedAsAsked: boolean;
  /** Every replica is available, in the Deployment's status and in the Foo's. */
  available?: boolean;
}

/** What is wrong with the Foos and Deployments of `namespace`, one line each; empty when converged. */
export async function problems(client: Client, namespace: string, options: ProblemOptions): Promise<string[]> {
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
    const replicas = foo.spec?.replicas;
    if (options.namedAsAsked && d.metadata.name !== foo.spec?.deploymentName) out.push(`Foo ${name}'s Deployment is ${d.metadata.name}, not ${foo.spec?.deploymentName}`);
    if (d.spec?.replicas !== replicas) out.push(`Foo ${name} wants ${replicas} replicas, its Deployment has ${d.spec?.replicas}`);
    if (options.namedAsAsked && (foo.status?.availableReplicas ?? -1) !== (d.status?.availableReplicas ?? 0)) {
      out.push(`Foo ${name} reports ${foo.status?.availableReplicas} available replicas, its Deployment ${d.status?.availableReplicas ?? 0}`);
    }
    if (options.available && (d.status?.availableReplicas ?? 0) !== replicas) out.push(`Foo ${name}'s Deployment has ${d.status?.availableReplicas ?? 0} of ${replicas} replicas available`);
  }
  return out;
}
