/**
 * The SidecarSet webhooks (Kruise's pkg/webhook/sidecarset): the defaulting
 * one fills the defaults and writes the two hash annotations, on create and
 * update; the validating one refuses, with Kruise's field errors, a
 * SidecarSet that is invalid or that conflicts with another. Both decide in
 * pure functions (src/sidecarset); here they get what those need from the
 * manager's cache.
 */
import {
  ControllerRevision,
  defaulter,
  mutatePath,
  Namespace,
  ValidationError,
  validatePath,
  validator,
  type AdmissionContext,
  type CustomDefaulter,
  type CustomValidator,
  type Manager,
} from '@operant/runtime';
import { SidecarSet } from '../../api/v1alpha1/zz_generated.kinds.js';
import { operatorNamespace } from '../../sidecarset/revision/namespace.js';
import { defaultSidecarSet } from '../../sidecarset/defaults/sidecarset-defaults.js';
import { validateSidecarSetAdmission } from '../../sidecarset/validation/index.js';

// +kubebuilder:webhook:path=/mutate-apps-kruise-io-v1alpha1-sidecarset,mutating=true,failurePolicy=fail,sideEffects=None,groups=apps.kruise.io,resources=sidecarsets,verbs=create;update,versions=v1alpha1,name=msidecarset.kb.io,admissionReviewVersions=v1

/** Sets Kruise's defaults and the hash annotations on SidecarSets when they are created or updated. */
export const sidecarSetDefaulter: CustomDefaulter<SidecarSet> = {
  default(obj) {
    defaultSidecarSet(obj);
  },
};

export function setupSidecarSetDefaultingWebhook(mgr: Manager): void {
  mgr.webhookServer.register(mutatePath(SidecarSet), defaulter(SidecarSet, sidecarSetDefaulter));
}

// +kubebuilder:webhook:path=/validate-apps-kruise-io-v1alpha1-sidecarset,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps.kruise.io,resources=sidecarsets,verbs=create;update,versions=v1alpha1,name=vsidecarset.kb.io,admissionReviewVersions=v1

async function validate(obj: SidecarSet, old: SidecarSet | undefined, ctx: AdmissionContext): Promise<void> {
  const [others, namespaces, revisions] = await Promise.all([
    ctx.client.list(SidecarSet),
    ctx.client.list(Namespace),
    // Only a SidecarSet that names a revision needs them (and the informer they start).
    obj.spec?.injectionStrategy?.revision ? ctx.client.list(ControllerRevision, { namespace: operatorNamespace() }) : undefined,
  ]);
  const labels = new Map(namespaces.items.map((ns) => [ns.metadata.name ?? '', ns.metadata.labels ?? {}]));
  const errs = validateSidecarSetAdmission(obj, old, {
    others: others.items,
    namespaceLabels: (name) => labels.get(name),
    revisions: revisions?.items,
  });
  if (errs.length > 0) throw new ValidationError(errs);
}

/** Refuses invalid SidecarSets, and SidecarSets that conflict with another one, with Kruise's messages. */
export const sidecarSetValidator: CustomValidator<SidecarSet> = {
  validateCreate: (obj, ctx) => validate(obj, undefined, ctx),
  validateUpdate: (oldObj, newObj, ctx) => validate(newObj, oldObj, ctx),
};

export function setupSidecarSetValidatingWebhook(mgr: Manager): void {
  mgr.webhookServer.register(validatePath(SidecarSet), validator(SidecarSet, sidecarSetValidator));
}
