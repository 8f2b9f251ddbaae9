/**
 * Kind values for Kubernetes' built-in resources, typed with the
 * `kubernetes-types` declarations (kept in step with k8s.io/api), so that
 * `client.get(Deployment, ...)` returns a typed Deployment.
 */
import type { KubeObject, OpenApiSchema } from '@operant/apimachinery';
import type * as admissionregistrationv1 from 'kubernetes-types/admissionregistration/v1.js';
import type * as apiextensionsv1 from 'kubernetes-types/apiextensions/v1.js';
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as batchv1 from 'kubernetes-types/batch/v1.js';
import type * as coordinationv1 from 'kubernetes-types/coordination/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as discoveryv1 from 'kubernetes-types/discovery/v1.js';
import type * as eventsv1 from 'kubernetes-types/events/v1.js';
import type * as policyv1 from 'kubernetes-types/policy/v1.js';
import type * as rbacv1 from 'kubernetes-types/rbac/v1.js';
import type * as storagev1 from 'kubernetes-types/storage/v1.js';
import { defineKind, type Kind } from './kind.js';

/**
 * A `kubernetes-types` object made usable as a runtime object: metadata is
 * always present on what the server returns, and the runtime's generic code
 * reads it without checks.
 *
 * @example
 * ```ts
 * import type * as corev1 from 'kubernetes-types/core/v1.js';
 * import { Pod, type Typed } from '@operant/runtime';
 *
 * const pod: Typed<corev1.Pod> = await client.get(Pod, 'web', { namespace: 'default' });
 * ```
 */
export type Typed<T> = T & KubeObject;

type Scope = 'namespaced' | 'cluster';

// kubernetes-types 1.30 leaves out fields that Go declares in embedded structs
// (a webhook rule's `resources` and `scope`) or under `x-kubernetes-*` names
// (most of a CRD's schema extensions): the types below put them back.

/**
 * A webhook rule, with the fields of Go's embedded `Rule`.
 *
 * @example
 * ```ts
 * import type { WebhookRule } from '@operant/runtime';
 *
 * const rule: WebhookRule = { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'], scope: 'Namespaced' };
 * ```
 */
export type WebhookRule = admissionregistrationv1.RuleWithOperations & {
  resources?: string[];
  scope?: '*' | 'Cluster' | 'Namespaced';
};
type WithRules<W> = Omit<W, 'rules'> & { rules?: WebhookRule[] };
/** A MutatingWebhookConfiguration whose rules carry `resources` and `scope`. @example `const config: MutatingWebhookConfigurationObject = { metadata: { name: 'x' }, webhooks: [] }` */
export type MutatingWebhookConfigurationObject = Omit<admissionregistrationv1.MutatingWebhookConfiguration, 'webhooks'> & {
  webhooks?: Array<WithRules<admissionregistrationv1.MutatingWebhook>>;
};
/** A ValidatingWebhookConfiguration whose rules carry `resources` and `scope`. @example `const config: ValidatingWebhookConfigurationObject = { metadata: { name: 'x' }, webhooks: [] }` */
export type ValidatingWebhookConfigurationObject = Omit<admissionregistrationv1.ValidatingWebhookConfiguration, 'webhooks'> & {
  webhooks?: Array<WithRules<admissionregistrationv1.ValidatingWebhook>>;
};
/**
 * A CRD version whose schema is a full OpenAPI schema with Kubernetes' extensions.
 *
 * @example
 * ```ts
 * import type { CustomResourceDefinitionVersion } from '@operant/runtime';
 *
 * const v1: CustomResourceDefinitionVersion = {
 *   name: 'v1',
 *   served: true,
 *   storage: true,
 *   schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
 * };
 * ```
 */
export type CustomResourceDefinitionVersion = Omit<apiextensionsv1.CustomResourceDefinitionVersion, 'schema'> & {
  schema?: { openAPIV3Schema?: OpenApiSchema };
};
/** A CustomResourceDefinition with {@link CustomResourceDefinitionVersion}s. @example `const crd: CustomResourceDefinitionObject = parse(readFileSync('crd.yaml', 'utf8'))` */
export type CustomResourceDefinitionObject = Omit<apiextensionsv1.CustomResourceDefinition, 'spec'> & {
  spec: Omit<apiextensionsv1.CustomResourceDefinitionSpec, 'versions'> & { versions: CustomResourceDefinitionVersion[] };
};

function builtin<T>(group: string, version: string, kind: string, plural: string, scope: Scope): Kind<Typed<T>> {
  return defineKind<Typed<T>>({ group, version, kind, plural, namespaced: scope === 'namespaced' });
}

/** core/v1 Pod. @example `await client.list(Pod, { namespace: 'default' })` */
export const Pod = builtin<corev1.Pod>('', 'v1', 'Pod', 'pods', 'namespaced');
/** core/v1 Service. @example `await client.get(Service, 'web', { namespace: 'default' })` */
export const Service = builtin<corev1.Service>('', 'v1', 'Service', 'services', 'namespaced');
/** core/v1 Endpoints. @example `await client.get(Endpoints, 'web', { namespace: 'default' })` */
export const Endpoints = builtin<corev1.Endpoints>('', 'v1', 'Endpoints', 'endpoints', 'namespaced');
/** core/v1 ConfigMap. @example `await client.get(ConfigMap, 'settings', { namespace: 'default' })` */
export const ConfigMap = builtin<corev1.ConfigMap>('', 'v1', 'ConfigMap', 'configmaps', 'namespaced');
/** core/v1 Secret. @example `await client.get(Secret, 'tls', { namespace: 'default' })` */
export const Secret = builtin<corev1.Secret>('', 'v1', 'Secret', 'secrets', 'namespaced');
/** core/v1 ServiceAccount. @example `await client.get(ServiceAccount, 'default', { namespace: 'default' })` */
export const ServiceAccount = builtin<corev1.ServiceAccount>('', 'v1', 'ServiceAccount', 'serviceaccounts', 'namespaced');
/** core/v1 Event (what `kubectl describe` lists). @example `await client.list(CoreEvent, { namespace: 'default' })` */
export const CoreEvent = builtin<corev1.Event>('', 'v1', 'Event', 'events', 'namespaced');
/** core/v1 Namespace. @example `await client.get(Namespace, 'default')` */
export const Namespace = builtin<corev1.Namespace>('', 'v1', 'Namespace', 'namespaces', 'cluster');
/** core/v1 Node. @example `await client.list(Node)` */
export const Node = builtin<corev1.Node>('', 'v1', 'Node', 'nodes', 'cluster');
/** core/v1 ReplicationController. @example `await client.get(ReplicationController, 'nginx', { namespace: 'default' })` */
export const ReplicationController = builtin<corev1.ReplicationController>('', 'v1', 'ReplicationController', 'replicationcontrollers', 'namespaced');
/** core/v1 PersistentVolume. @example `await client.get(PersistentVolume, 'pvc-1234')` */
export const PersistentVolume = builtin<corev1.PersistentVolume>('', 'v1', 'PersistentVolume', 'persistentvolumes', 'cluster');
/** core/v1 PersistentVolumeClaim. @example `await client.get(PersistentVolumeClaim, 'data', { namespace: 'default' })` */
export const PersistentVolumeClaim = builtin<corev1.PersistentVolumeClaim>('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', 'namespaced');
/** storage.k8s.io/v1 StorageClass. @example `await client.get(StorageClass, 'standard')` */
export const StorageClass = builtin<storagev1.StorageClass>('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', 'cluster');
/** apps/v1 Deployment. @example `await client.get(Deployment, 'web', { namespace: 'default' })` */
export const Deployment = builtin<appsv1.Deployment>('apps', 'v1', 'Deployment', 'deployments', 'namespaced');
/** apps/v1 ReplicaSet. @example `await client.list(ReplicaSet, { namespace: 'default' })` */
export const ReplicaSet = builtin<appsv1.ReplicaSet>('apps', 'v1', 'ReplicaSet', 'replicasets', 'namespaced');
/** apps/v1 StatefulSet. @example `await client.get(StatefulSet, 'db', { namespace: 'default' })` */
export const StatefulSet = builtin<appsv1.StatefulSet>('apps', 'v1', 'StatefulSet', 'statefulsets', 'namespaced');
/** apps/v1 DaemonSet. @example `await client.get(DaemonSet, 'agent', { namespace: 'kube-system' })` */
export const DaemonSet = builtin<appsv1.DaemonSet>('apps', 'v1', 'DaemonSet', 'daemonsets', 'namespaced');
/** apps/v1 ControllerRevision. @example `await client.list(ControllerRevision, { namespace: 'default' })` */
export const ControllerRevision = builtin<appsv1.ControllerRevision>('apps', 'v1', 'ControllerRevision', 'controllerrevisions', 'namespaced');
/** batch/v1 Job. @example `await client.get(Job, 'migrate', { namespace: 'default' })` */
export const Job = builtin<batchv1.Job>('batch', 'v1', 'Job', 'jobs', 'namespaced');
/** batch/v1 CronJob. @example `await client.get(CronJob, 'backup', { namespace: 'default' })` */
export const CronJob = builtin<batchv1.CronJob>('batch', 'v1', 'CronJob', 'cronjobs', 'namespaced');
/** policy/v1 PodDisruptionBudget. @example `await client.get(PodDisruptionBudget, 'web', { namespace: 'default' })` */
export const PodDisruptionBudget = builtin<policyv1.PodDisruptionBudget>('policy', 'v1', 'PodDisruptionBudget', 'poddisruptionbudgets', 'namespaced');
/** discovery.k8s.io/v1 EndpointSlice. @example `await client.list(EndpointSlice, { namespace: 'default', labelSelector: 'kubernetes.io/service-name=web' })` */
export const EndpointSlice = builtin<discoveryv1.EndpointSlice>('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices', 'namespaced');
/** coordination.k8s.io/v1 Lease (what leader election locks). @example `await client.get(Lease, 'my-operator', { namespace: 'default' })` */
export const Lease = builtin<coordinationv1.Lease>('coordination.k8s.io', 'v1', 'Lease', 'leases', 'namespaced');
/** events.k8s.io/v1 Event. @example `await client.list(EventsV1Event, { namespace: 'default' })` */
export const EventsV1Event = builtin<eventsv1.Event>('events.k8s.io', 'v1', 'Event', 'events', 'namespaced');
/** rbac.authorization.k8s.io/v1 Role. @example `await client.get(Role, 'reader', { namespace: 'default' })` */
export const Role = builtin<rbacv1.Role>('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', 'namespaced');
/** rbac.authorization.k8s.io/v1 RoleBinding. @example `await client.get(RoleBinding, 'reader', { namespace: 'default' })` */
export const RoleBinding = builtin<rbacv1.RoleBinding>('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', 'namespaced');
/** rbac.authorization.k8s.io/v1 ClusterRole. @example `await client.get(ClusterRole, 'view')` */
export const ClusterRole = builtin<rbacv1.ClusterRole>('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', 'cluster');
/** rbac.authorization.k8s.io/v1 ClusterRoleBinding. @example `await client.get(ClusterRoleBinding, 'cluster-admin')` */
export const ClusterRoleBinding = builtin<rbacv1.ClusterRoleBinding>('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', 'cluster');
/** apiextensions.k8s.io/v1 CustomResourceDefinition. @example `await client.get(CustomResourceDefinition, 'foos.samplecontroller.k8s.io')` */
export const CustomResourceDefinition = builtin<CustomResourceDefinitionObject>(
  'apiextensions.k8s.io',
  'v1',
  'CustomResourceDefinition',
  'customresourcedefinitions',
  'cluster',
);
/** admissionregistration.k8s.io/v1 MutatingWebhookConfiguration. @example `await client.get(MutatingWebhookConfiguration, 'sidecarset')` */
export const MutatingWebhookConfiguration = builtin<MutatingWebhookConfigurationObject>(
  'admissionregistration.k8s.io',
  'v1',
  'MutatingWebhookConfiguration',
  'mutatingwebhookconfigurations',
  'cluster',
);
/** admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration. @example `await client.get(ValidatingWebhookConfiguration, 'sidecarset')` */
export const ValidatingWebhookConfiguration = builtin<ValidatingWebhookConfigurationObject>(
  'admissionregistration.k8s.io',
  'v1',
  'ValidatingWebhookConfiguration',
  'validatingwebhookconfigurations',
  'cluster',
);
