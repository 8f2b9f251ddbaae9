/**
 * The config/ kustomize tree of an operant project, laid out as kubebuilder
 * v4 (go/v4) lays it out, so its docs and habits carry over: `init` writes the
 * base, `create api` adds a kind's CRD, roles and sample, `create webhook`
 * turns on the webhook and cert-manager. Each step leaves a tree that
 * `kubectl kustomize config/default` renders. The templates live in config/.
 */
import { type ProjectFiles } from './project-files.js';
import { addResources, addToKustomization, createIfMissing, editFile, uncomment } from './config/edit.js';
import { type ProjectInfo, type ResourceInfo } from './config/types.js';
import * as defaults from './config/default.js';
import { managerKustomization, managerYaml } from './config/manager.js';
import { initialRbacFiles, kindRoleFiles, kindRolesComment } from './config/rbac.js';
import { crdBase, crdKustomization, crdKustomizeConfig } from './config/crd.js';
import { sample, sampleFileName, samplesKustomization } from './config/samples.js';
import { webhookKustomization, webhookManifestsPlaceholder, webhookService } from './config/webhook.js';
import { certManagerFiles } from './config/certmanager.js';
import { prometheusFiles } from './config/prometheus.js';
import { allowMetricsTraffic, allowWebhookTraffic, networkPolicyKustomization } from './config/network-policy.js';

export type { ProjectInfo, ResourceInfo } from './config/types.js';

const defaultKustomization = 'config/default/kustomization.yaml';

/** Stages each file of `dir`; an existing one is an error. */
function createAll(files: ProjectFiles, dir: string, contents: Record<string, string>): void {
  for (const [name, content] of Object.entries(contents)) files.create(`${dir}/${name}`, content);
}

/** Stages the whole config/ tree of a new project (kubebuilder init). */
export function scaffoldInitialConfig(files: ProjectFiles, project: ProjectInfo): void {
  createAll(files, 'config/default', {
    'kustomization.yaml': defaults.defaultKustomization(project),
    'manager_metrics_patch.yaml': defaults.managerMetricsPatch,
    'metrics_service.yaml': defaults.metricsService(project),
    'cert_metrics_manager_patch.yaml': defaults.certMetricsManagerPatch,
  });
  createAll(files, 'config/manager', { 'kustomization.yaml': managerKustomization, 'manager.yaml': managerYaml(project) });
  createAll(files, 'config/rbac', initialRbacFiles(project));
  createAll(files, 'config/prometheus', prometheusFiles(project));
  createAll(files, 'config/network-policy', {
    'kustomization.yaml': networkPolicyKustomization,
    'allow-metrics-traffic.yaml': allowMetricsTraffic(project),
  });
}

/**
 * Stages what `create api` adds for a new kind: its CRD in
 * config/crd/kustomization.yaml (bases/<qualifiedGroup>_<plural>.yaml, written
 * by `operant generate`), ../crd turned on in config/default, its
 * admin/editor/viewer ClusterRoles in config/rbac and a sample in
 * config/samples. Nothing for a kind the project does not own (resource=false),
 * as kubebuilder adds nothing for a core or external type.
 * A second version of a kind only adds its sample (the kind's roles and CRD
 * file are shared); the same version twice is a ScaffoldError (the sample exists).
 */
export function scaffoldApiConfig(files: ProjectFiles, project: ProjectInfo, r: ResourceInfo): void {
  if (!r.resource) return;

  const sampleFile = sampleFileName(r);
  files.create(`config/samples/${sampleFile}`, sample(project, r));
  addToKustomization(files, 'config/samples/kustomization.yaml', [sampleFile], samplesKustomization);

  const roles = kindRoleFiles(project, r);
  for (const [name, content] of Object.entries(roles)) createIfMissing(files, `config/rbac/${name}`, content);
  editFile(files, 'config/rbac/kustomization.yaml', addResources('config/rbac/kustomization.yaml', Object.keys(roles), kindRolesComment(project)));

  addToKustomization(files, 'config/crd/kustomization.yaml', [crdBase(r.qualifiedGroup, r.plural)], crdKustomization);
  createIfMissing(files, 'config/crd/kustomizeconfig.yaml', crdKustomizeConfig);
  editFile(files, defaultKustomization, uncomment(defaultKustomization, defaults.crdResource));
}

/**
 * Stages what `create webhook` adds the first time a project gets a webhook:
 * config/webhook (its Service, and a placeholder manifests.yaml until
 * `operant generate webhook` writes it), config/certmanager, the manager's
 * webhook patch and the webhook NetworkPolicy; and in config/default it turns
 * on ../webhook, ../certmanager, the webhook patch and the replacements that
 * put the Service's DNS name into the serving certificate and cert-manager's
 * CA into the webhook configurations, as kubebuilder does. The CA goes to
 * both validating and mutating configurations (kubebuilder picks by webhook
 * type; a replacement that selects nothing is a no-op, so both are on from the
 * first webhook). Idempotent: a second webhook changes nothing.
 */
export function scaffoldWebhookConfig(files: ProjectFiles, project: ProjectInfo): void {
  createIfMissing(files, 'config/webhook/kustomization.yaml', webhookKustomization);
  createIfMissing(files, 'config/webhook/service.yaml', webhookService(project));
  createIfMissing(files, 'config/webhook/manifests.yaml', webhookManifestsPlaceholder);
  for (const [name, content] of Object.entries(certManagerFiles(project))) createIfMissing(files, `config/certmanager/${name}`, content);
  createIfMissing(files, 'config/default/manager_webhook_patch.yaml', defaults.managerWebhookPatch);

  createIfMissing(files, 'config/network-policy/allow-webhook-traffic.yaml', allowWebhookTraffic(project));
  editFile(files, 'config/network-policy/kustomization.yaml', addResources('config/network-policy/kustomization.yaml', ['allow-webhook-traffic.yaml']));

  for (const block of [
    defaults.webhookResource,
    defaults.certManagerResource,
    defaults.webhookPatch,
    defaults.replacementsKey,
    defaults.webhookServiceReplacements,
    defaults.validatingCaReplacements,
    defaults.mutatingCaReplacements,
  ]) {
    editFile(files, defaultKustomization, uncomment(defaultKustomization, block));
  }
}
