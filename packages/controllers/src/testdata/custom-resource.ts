/**
 * A namespaced custom resource for the controllers' tests: its CRD (any
 * content, optional subresources) installed and Established, and its Kind.
 */
import { CustomResourceDefinition, defineKind, type Client, type Kind } from '@operant/runtime';
import { watchUntil } from './watch-until.js';

type Json = Record<string, unknown>;

/** Installs `<plural>.<group>` (version v1) and resolves once it is Established. */
export async function installCustomResource(client: Client, names: { group: string; plural: string; kind: string }, subresources?: Json): Promise<Kind> {
  const name = `${names.plural}.${names.group}`;
  await client.create(CustomResourceDefinition, {
    metadata: { name },
    spec: {
      group: names.group,
      scope: 'Namespaced',
      names: { plural: names.plural, singular: names.kind.toLowerCase(), kind: names.kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, ...(subresources ? { subresources } : {}) }],
    },
  } as never);
  const established = (o: Map<string, { status?: unknown }>): boolean =>
    ((o.get(name)?.status as { conditions?: Json[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
  await watchUntil(client, CustomResourceDefinition, undefined, established);
  return defineKind({ group: names.group, version: 'v1', kind: names.kind, plural: names.plural, namespaced: true });
}
