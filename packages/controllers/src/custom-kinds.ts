/**
 * Kinds of custom resources, from their CRDs: what a controller needs to
 * address a resource it knows only by name (a quota's `count/widgets.example.com`)
 * or by kind (an HPA's scale target), as kube's RESTMapper answers from discovery.
 */
import { CustomResourceDefinition, defineKind, type Client, type Kind } from '@operant/runtime';

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
