/**
 * ControllerRevisions, the history StatefulSets and DaemonSets keep of their
 * templates (kube's pkg/controller/history): one revision per distinct
 * template, named `<owner>-<hash>`, numbered in order of use; the pods carry
 * the revision's name in their `controller-revision-hash` label.
 */
import { isAlreadyExists, isControlledBy, ControllerRevision, setControllerReference, type Kind, type KubeObject, type Typed } from '@operant/runtime';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type { ControllerContext } from '../context.js';
import { computeHash } from '../deployment/hash.js';
import { canonicalJson } from '../json.js';
import type { PodTemplateSpec } from '../objects.js';

/** The label that names a pod's revision. */
export const revisionLabel = 'controller-revision-hash';

type RevisionObject = Typed<appsv1.ControllerRevision>;

/** A revision as the controllers use it: its name, number and template. */
export interface Revision {
  name: string;
  revision: number;
  template: PodTemplateSpec;
}

function templateOf(r: RevisionObject): PodTemplateSpec {
  return ((r.data as { spec?: { template?: PodTemplateSpec } } | undefined)?.spec?.template ?? {}) as PodTemplateSpec;
}

/** The owner's revisions, oldest first. */
export async function listRevisions(ctx: ControllerContext, owner: KubeObject): Promise<RevisionObject[]> {
  const list = await ctx.client.list(ControllerRevision, { namespace: owner.metadata.namespace });
  return (list.items as RevisionObject[]).filter((r) => isControlledBy(r, owner)).sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0));
}

/**
 * The revision of the owner's current template: found among `existing`, or
 * created with the next number. (kube renumbers a reused old revision to the
 * newest; so do we, so that history reads in order of use.)
 */
export async function ensureRevision(ctx: ControllerContext, owner: KubeObject, ownerKind: Kind, template: PodTemplateSpec | undefined, existing: RevisionObject[]): Promise<Revision> {
  const t = template ?? {};
  const name = `${owner.metadata.name}-${computeHash(t)}`;
  const next = Math.max(0, ...existing.map((r) => r.revision ?? 0)) + 1;
  const found = existing.find((r) => r.metadata.name === name);
  if (found && canonicalJson(templateOf(found)) === canonicalJson(t)) {
    const newest = existing.at(-1) === found;
    if (newest) return { name, revision: found.revision ?? 1, template: t };
    const renumbered = (await ctx.client.update(ControllerRevision, { ...found, revision: next } as never)) as RevisionObject;
    return { name, revision: renumbered.revision ?? next, template: t };
  }
  const revision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name, namespace: owner.metadata.namespace, labels: { ...t.metadata?.labels, [revisionLabel]: computeHash(t) } },
    data: { spec: { template: t } },
    revision: next,
  };
  setControllerReference(owner, revision as KubeObject, ownerKind);
  try {
    await ctx.client.create(ControllerRevision, revision as never);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return { name, revision: next, template: t };
}

/** The template a revision recorded, by name, among `existing`. */
export function revisionTemplate(existing: RevisionObject[], name: string | undefined): PodTemplateSpec | undefined {
  const r = existing.find((x) => x.metadata.name === name);
  return r ? templateOf(r) : undefined;
}

/** Deletes the oldest revisions no pod uses, beyond `limit` (kube's truncateHistory). */
export async function truncateHistory(ctx: ControllerContext, existing: RevisionObject[], live: Set<string>, limit: number): Promise<void> {
  const history = existing.filter((r) => !live.has(r.metadata.name ?? ''));
  const excess = history.length - limit;
  for (const r of history.slice(0, Math.max(0, excess))) {
    await ctx.client.delete(ControllerRevision, r.metadata.name!, { namespace: r.metadata.namespace }).catch(() => undefined);
  }
}
