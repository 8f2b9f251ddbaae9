/**
 * Installing CRDs into a test environment: create each (in parallel), then
 * wait until each is Established, and know the kinds they serve (their
 * storage version), for the helpers that watch "everything the operator owns".
 */
import { CustomResourceDefinition, defineKind, type Client, type Kind, type KubeObject } from '@operant/runtime';
import { eventually } from '../wait/eventually.js';

interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: { kind: string; plural: string };
  versions: Array<{ name: string; served?: boolean; storage?: boolean }>;
}

/** Creates the CRDs among `objects` (others are refused), waits for them to be Established, and returns their kinds. */
export async function installCrds(client: Client, objects: readonly KubeObject[], timeoutMs = 10_000): Promise<Kind[]> {
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') throw new Error(`crds: ${o.kind} ${o.metadata?.name ?? ''} is not a CustomResourceDefinition`);
  }
  const created = await Promise.all(objects.map((crd) => client.create(CustomResourceDefinition, crd as never)));
  await Promise.all(
    created
      // The embedded server answers the create with the CRD already Established; a cluster may take a moment.
      .filter((crd) => !established(crd))
      .map((crd) =>
        eventually(async () => established(await client.get(CustomResourceDefinition, crd.metadata.name!)), {
          timeout: timeoutMs,
          interval: 10,
          message: `CRD ${crd.metadata.name} is Established`,
        }),
      ),
  );
  return objects.map((o) => kindOfCrd(o));
}

function established(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/** The kind a CRD serves, at its storage version. */
export function kindOfCrd(crd: KubeObject): Kind {
  const spec = (crd as KubeObject & { spec: CrdSpec }).spec;
  const version = spec.versions.find((v) => v.storage) ?? spec.versions.find((v) => v.served !== false) ?? spec.versions[0];
  return defineKind({ group: spec.group, version: version?.name ?? 'v1', kind: spec.names.kind, plural: spec.names.plural, namespaced: spec.scope !== 'Cluster' });
}
