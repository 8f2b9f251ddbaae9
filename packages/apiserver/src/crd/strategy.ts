/**
 * The CustomResourceDefinition strategy: v1 defaults, the cleanup finalizer,
 * and the status kube's naming and establishing controllers would write,
 * set at once so that custom resources can be created right after the CRD.
 */
import type { KubeObject } from '@operant/apimachinery';
import { baseStrategy, type Strategy } from '../registry/strategy.js';
import { nowTimestamp } from '../registry/object-meta.js';
import { asCrd, crdCleanupFinalizer, type CrdCondition, type CrdNames, type CustomResourceDefinition } from './types.js';
import { validateCrd, validateCrdUpdate } from './validation.js';
import { loadCelIf, mentionsCelRules } from '../cel-loader.js';

/** Lists the other CRDs, for name-conflict checks. */
export type CrdLister = () => CustomResourceDefinition[];

export function crdStrategy(others: CrdLister): Strategy {
  return baseStrategy({
    tracksGeneration: true,
    // apiextensions-apiserver's strategies: an update must name the version it replaces.
    allowUnconditionalUpdate: false,
    hasStatusSubresource: true,
    applyDefaults(o) {
      const spec = asCrd(o).spec;
      if (!spec || typeof spec !== 'object') return;
      const names = spec.names;
      if (names && typeof names === 'object') {
        if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
        if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
      }
      spec.conversion ??= { strategy: 'None' };
      const service = spec.conversion.webhook?.clientConfig?.service;
      if (service) service.port ??= 443;
    },
    prepareForCreate(o) {
      const crd = asCrd(o);
      const finalizers = crd.metadata.finalizers ?? [];
      if (!finalizers.includes(crdCleanupFinalizer)) crd.metadata.finalizers = [...finalizers, crdCleanupFinalizer];
      crd.status = { storedVersions: [] };
      updateStatus(crd, others());
    },
    prepareForUpdate(o) {
      updateStatus(asCrd(o), others());
    },
    // Rules are compiled when the CRD is written: CEL first.
    prepareValidation: (o) => loadCelIf(mentionsCelRules(o.spec)),
    validate: (o) => validateCrd(asCrd(o)),
    validateUpdate: (o, old) => validateCrdUpdate(asCrd(o), asCrd(old)),
  });
}

/** Names taken by other CRDs of the same group: kind, plural, singular, short names. */
function conflicts(crd: CustomResourceDefinition, others: CustomResourceDefinition[]): { reason: string; message: string } | undefined {
  const names = crd.spec.names;
  for (const other of others) {
    if (other.metadata.name === crd.metadata.name || other.spec?.group !== crd.spec.group) continue;
    const taken = other.status?.acceptedNames ?? {};
    if (taken.kind && taken.kind === names.kind) return { reason: 'KindConflict', message: `"${names.kind}" is already in use` };
    if (taken.listKind && taken.listKind === names.listKind) return { reason: 'ListKindConflict', message: `"${names.listKind}" is already in use` };
    if (taken.singular && taken.singular === names.singular) return { reason: 'SingularConflict', message: `"${names.singular}" is already in use` };
    for (const s of names.shortNames ?? []) {
      if ((taken.shortNames ?? []).includes(s)) return { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    }
  }
  return undefined;
}

function setCondition(conditions: CrdCondition[], next: CrdCondition): CrdCondition[] {
  const old = conditions.find((c) => c.type === next.type);
  const merged = { ...next, lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime : nowTimestamp() };
  return [...conditions.filter((c) => c.type !== next.type), merged];
}

/** Sets acceptedNames, NamesAccepted, Established and storedVersions as kube's controllers would. */
function updateStatus(crd: CustomResourceDefinition, others: CustomResourceDefinition[]): void {
  if (!crd.spec?.names || !Array.isArray(crd.spec.versions)) return;
  const status = (crd.status ??= {});
  let conditions = status.conditions ?? [];
  const conflict = conflicts(crd, others);
  if (conflict) {
    conditions = setCondition(conditions, { type: 'NamesAccepted', status: 'False', ...conflict });
    if (!conditions.some((c) => c.type === 'Established')) {
      conditions = setCondition(conditions, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    }
  } else {
    const names = crd.spec.names;
    const accepted: Partial<CrdNames> = { plural: names.plural, singular: names.singular, kind: names.kind, listKind: names.listKind };
    if (names.shortNames?.length) accepted.shortNames = names.shortNames;
    if (names.categories?.length) accepted.categories = names.categories;
    status.acceptedNames = accepted;
    conditions = setCondition(conditions, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    const wasEstablished = conditions.find((c) => c.type === 'Established')?.status === 'True';
    if (!wasEstablished) {
      conditions = setCondition(conditions, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    }
  }
  status.conditions = conditions;
  const stored = status.storedVersions ?? [];
  for (const v of crd.spec.versions) if (v.storage && !stored.includes(v.name)) stored.push(v.name);
  status.storedVersions = stored;
}

/** Whether a CRD is Established (its resources are served). */
export function isEstablished(crd: KubeObject): boolean {
  return (asCrd(crd).status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
}
