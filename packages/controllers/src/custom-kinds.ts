/**
 * Kinds by name, for a controller that knows a resource only by its name (a
 * quota's `count/widgets.example.com`) or by apiVersion and kind (an HPA's
 * scale target), as kube's RESTMapper answers from discovery: the built-ins
 * the simulated cluster scales or reads, and custom resources by their CRDs.
 */
import { CustomResourceDefinition, defineKind, Deployment, Pod, ReplicaSet, ReplicationController, Service, StatefulSet, type Client, type Kind } from '@operant/runtime';

/** Which custom resource: its group, and its plural or its kind; a version it must serve (else its storage version). */
export interface CustomResourceName {
  group: string;
  plural?: string;
  kind?: string;
  version?: string;
}

/** The Kind of a namespaced custom resource, or undefined when no established CRD serves it. */
export async function customResourceKind(client: Client, name: CustomResourceName): Promise<Kind | undefined> {
  const crds = (await client.list(CustomResourceDefinition)).items;
  const crd = crds.find(
    (c) => c.spec.group === name.group && c.spec.scope === 'Namespaced' && (name.plural === undefined || c.spec.names.plural === name.plural) && (name.kind === undefined || c.spec.names.kind === name.kind),
  );
  if (!crd) return undefined;
  const versions = crd.spec.versions.filter((v) => v.served);
  const version = (name.version ? versions.find((v) => v.name === name.version) : versions.find((v) => v.storage))?.name;
  if (!version) return undefined;
  return defineKind({ group: crd.spec.group, version, kind: crd.spec.names.kind, plural: crd.spec.names.plural, namespaced: true });
}

/** The kinds a scale target or a described object may be, by `<group>/<Kind>`. */
const knownKinds = new Map<string, Kind>([Deployment, ReplicaSet, StatefulSet, ReplicationController, Service, Pod].map((k) => [`${k.group}/${k.kind}`, k]));

/** The Kind of an `apiVersion` and `kind` (a built-in, or a custom resource by its CRD), or kube's RESTMapper error. */
export async function kindOf(client: Client, apiVersion: string | undefined, kind: string): Promise<Kind> {
  const slash = apiVersion?.indexOf('/') ?? -1;
  const group = slash >= 0 ? apiVersion!.slice(0, slash) : '';
  const found = knownKinds.get(`${group}/${kind}`) ?? (group ? await customResourceKind(client, { group, kind, version: apiVersion!.slice(slash + 1) }) : undefined);
  if (!found) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
  return found;
}
