/**
 * Installing CRDs: create (or replace) each, in parallel, then wait until
 * each is Established, watching rather than polling; and know the kinds they
 * serve (their storage version), for the helpers that watch "everything the
 * operator owns".
 */
import { CustomResourceDefinition, defineKind, type Client, type Kind, type KubeObject } from '@operant/runtime';
import { createOrReplace, type InstallOptions } from './objects.js';

interface CrdSpec {
  group: string;
  scope: 'Namespaced' | 'Cluster';
  names: { kind: string; plural: string };
  versions: Array<{ name: string; served?: boolean; storage?: boolean }>;
}

/** How CRDs are installed. */
export interface CrdInstallOptions extends InstallOptions {
  /** How long each CRD may take to become Established (default 15 s). */
  timeoutMs?: number;
}

/**
 * Installs the CRDs among `objects` (any other kind is refused), waits until
 * each is Established, and returns their kinds.
 *
 * @example
 * ```ts
 * import type { Client } from '@operant/runtime';
 * import { installCrds, projectManifests } from '@operant/testing/install';
 *
 * declare const client: Client;
 * const { crds } = await projectManifests('.');
 * const kinds = await installCrds(client, crds, { replace: true });
 * kinds.map((k) => k.kind); // e.g. ['SidecarSet']
 * ```
 */
export async function installCrds(client: Client, objects: readonly KubeObject[], opts: CrdInstallOptions = {}): Promise<Kind[]> {
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition') throw new Error(`crds: ${o.kind} ${o.metadata?.name ?? ''} is not a CustomResourceDefinition`);
  }
  const timeoutMs = opts.timeoutMs ?? 15_000;
  await Promise.all(
    objects.map(async (crd) => {
      const written = await createOrReplace(client, CustomResourceDefinition, crd as never, opts);
      // The embedded server answers the write with the CRD already Established; a cluster may take a moment.
      if (!established(written)) await waitEstablished(client, written, timeoutMs);
    }),
  );
  return objects.map((o) => kindOfCrd(o));
}

function established(crd: KubeObject): boolean {
  const conditions = (crd.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Established' && c.status === 'True');
}

/** Watches the CRD `written` until it is Established, or throws after `timeoutMs`. */
async function waitEstablished(client: Client, written: KubeObject, timeoutMs: number): Promise<void> {
  const name = written.metadata.name!;
  const abort = AbortSignal.timeout(timeoutMs);
  try {
    // From the write's resourceVersion: no change after the write can slip by unseen.
    const watch = client.watch(CustomResourceDefinition, { fieldSelector: `metadata.name=${name}`, resourceVersion: written.metadata.resourceVersion, signal: abort });
    for await (const event of watch) {
      if ((event.type === 'ADDED' || event.type === 'MODIFIED') && established(event.object)) return;
    }
  } catch (err) {
    if (!abort.aborted) throw err;
  }
  throw new Error(`CRD ${name} is not Established after ${timeoutMs / 1000} s`);
}

/**
 * The kind a CRD serves, at its storage version.
 *
 * @example
 * ```ts
 * import type { KubeObject } from '@operant/runtime';
 * import { kindOfCrd } from '@operant/testing/install';
 *
 * declare const crd: KubeObject;
 * const kind = kindOfCrd(crd); // its group, storage version, kind and plural
 * ```
 */
export function kindOfCrd(crd: KubeObject): Kind {
  const spec = (crd as KubeObject & { spec: CrdSpec }).spec;
  const version = spec.versions.find((v) => v.storage) ?? spec.versions.find((v) => v.served !== false) ?? spec.versions[0];
  return defineKind({ group: spec.group, version: version?.name ?? 'v1', kind: spec.names.kind, plural: spec.names.plural, namespaced: spec.scope !== 'Cluster' });
}
