/**
 * The built-in resources the embedded server serves, as kube-apiserver v1.32
 * lists them in discovery (names, short names, categories, verbs, subresources).
 */
import { allVerbs, type ResourceInfo, type Verb } from './resource-info.js';

const crud: Verb[] = allVerbs;
const createOnly: Verb[] = ['create'];

function r(
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  definition: string,
  extra: Partial<ResourceInfo> = {},
): ResourceInfo {
  return {
    group,
    version,
    resource,
    singular: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced,
    verbs: crud,
    definition,
    ...extra,
  };
}

const core = 'io.k8s.api.core.v1';
const eventSelectable = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

/** Every built-in resource, in discovery order. */
export const builtinResources: ResourceInfo[] = [
  r('', 'v1', 'namespaces', 'Namespace', false, `${core}.Namespace`, {
    shortNames: ['ns'],
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status', 'finalize'],
    selectableFields: ['status.phase'],
  }),
  r('', 'v1', 'pods', 'Pod', true, `${core}.Pod`, {
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'binding', 'eviction', 'log'],
    selectableFields: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  }),
  r('', 'v1', 'services', 'Service', true, `${core}.Service`, {
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
    selectableFields: ['spec.clusterIP', 'spec.type'],
  }),
  r('', 'v1', 'endpoints', 'Endpoints', true, `${core}.Endpoints`, { shortNames: ['ep'], singular: 'endpoints' }),
  r('', 'v1', 'configmaps', 'ConfigMap', true, `${core}.ConfigMap`, { shortNames: ['cm'] }),
  r('', 'v1', 'secrets', 'Secret', true, `${core}.Secret`, { selectableFields: ['type'] }),
  r('', 'v1', 'serviceaccounts', 'ServiceAccount', true, `${core}.ServiceAccount`, {
    shortNames: ['sa'],
    subresources: ['token'],
  }),
  r('', 'v1', 'events', 'Event', true, `${core}.Event`, { shortNames: ['ev'], selectableFields: eventSelectable }),
  r('', 'v1', 'nodes', 'Node', false, `${core}.Node`, { shortNames: ['no'], subresources: ['status'], selectableFields: ['spec.unschedulable'] }),
  r('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, `${core}.PersistentVolumeClaim`, { shortNames: ['pvc'], subresources: ['status'] }),
  r('', 'v1', 'persistentvolumes', 'PersistentVolume', false, `${core}.PersistentVolume`, { shortNames: ['pv'], subresources: ['status'] }),
  r('', 'v1', 'limitranges', 'LimitRange', true, `${core}.LimitRange`, { shortNames: ['limits'] }),
  r('', 'v1', 'podtemplates', 'PodTemplate', true, `${core}.PodTemplate`),
  r('', 'v1', 'replicationcontrollers', 'ReplicationController', true, `${core}.ReplicationController`, {
    shortNames: ['rc'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  // Binds the pod a Binding names, as pods/<name>/binding does (kube's LegacyBindingREST).
  r('', 'v1', 'bindings', 'Binding', true, `${core}.Binding`, { verbs: createOnly, virtual: true }),
  // Computed at each read from health checks, never stored (kube's componentstatus REST).
  r('', 'v1', 'componentstatuses', 'ComponentStatus', false, `${core}.ComponentStatus`, {
    singular: 'componentstatus',
    shortNames: ['cs'],
    verbs: ['get', 'list'],
    virtual: true,
  }),
  r('', 'v1', 'resourcequotas', 'ResourceQuota', true, `${core}.ResourceQuota`, { shortNames: ['quota'], subresources: ['status'] }),
  // kube's aggregator lists its own group first (priority 20001).
  r('apiregistration.k8s.io', 'v1', 'apiservices', 'APIService', false, 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService', {
    categories: ['api-extensions'],
    subresources: ['status'],
  }),
  r('apps', 'v1', 'deployments', 'Deployment', true, 'io.k8s.api.apps.v1.Deployment', {
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  r('apps', 'v1', 'replicasets', 'ReplicaSet', true, 'io.k8s.api.apps.v1.ReplicaSet', {
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  r('apps', 'v1', 'controllerrevisions', 'ControllerRevision', true, 'io.k8s.api.apps.v1.ControllerRevision'),
  r('apps', 'v1', 'daemonsets', 'DaemonSet', true, 'io.k8s.api.apps.v1.DaemonSet', {
    shortNames: ['ds'],
    categories: ['all'],
    subresources: ['status'],
  }),
  r('apps', 'v1', 'statefulsets', 'StatefulSet', true, 'io.k8s.api.apps.v1.StatefulSet', {
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  // v2 is preferred and stored; v1 is served from it (registry/autoscaling-conversion.ts).
  r('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler', {
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: ['status'],
  }),
  r('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler', true, 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler', {
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: ['status'],
  }),
  // batch registers a field-label conversion for its kinds (so kube words refusals its own way), with status.successful.
  r('batch', 'v1', 'cronjobs', 'CronJob', true, 'io.k8s.api.batch.v1.CronJob', {
    shortNames: ['cj'],
    categories: ['all'],
    subresources: ['status'],
    selectableFields: [],
    fieldLabelKind: 'CronJob',
  }),
  r('batch', 'v1', 'jobs', 'Job', true, 'io.k8s.api.batch.v1.Job', {
    categories: ['all'],
    subresources: ['status'],
    selectableFields: ['status.successful'],
    fieldLabelKind: 'Job',
  }),
  r('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false,
    'io.k8s.api.certificates.v1.CertificateSigningRequest', {
      shortNames: ['csr'],
      subresources: ['status', 'approval'],
      selectableFields: ['spec.signerName'],
    }),
  r('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, 'io.k8s.api.policy.v1.PodDisruptionBudget', {
    shortNames: ['pdb'],
    subresources: ['status'],
  }),
  r('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false, 'io.k8s.api.networking.v1.IngressClass'),
  r('networking.k8s.io', 'v1', 'ingresses', 'Ingress', true, 'io.k8s.api.networking.v1.Ingress', {
    shortNames: ['ing'],
    subresources: ['status'],
  }),
  r('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy', true, 'io.k8s.api.networking.v1.NetworkPolicy', { shortNames: ['netpol'] }),
  r('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', true, 'io.k8s.api.discovery.v1.EndpointSlice'),
  r('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false, 'io.k8s.api.scheduling.v1.PriorityClass', { shortNames: ['pc'] }),
  r('node.k8s.io', 'v1', 'runtimeclasses', 'RuntimeClass', false, 'io.k8s.api.node.v1.RuntimeClass'),
  r('storage.k8s.io', 'v1', 'csidrivers', 'CSIDriver', false, 'io.k8s.api.storage.v1.CSIDriver'),
  r('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false, 'io.k8s.api.storage.v1.CSINode'),
  r('storage.k8s.io', 'v1', 'csistoragecapacities', 'CSIStorageCapacity', true, 'io.k8s.api.storage.v1.CSIStorageCapacity'),
  r('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, 'io.k8s.api.storage.v1.StorageClass', { shortNames: ['sc'] }),
  r('storage.k8s.io', 'v1', 'volumeattachments', 'VolumeAttachment', false, 'io.k8s.api.storage.v1.VolumeAttachment', { subresources: ['status'] }),
  r('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas', 'FlowSchema', false, 'io.k8s.api.flowcontrol.v1.FlowSchema', { subresources: ['status'] }),
  r('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations', 'PriorityLevelConfiguration', false,
    'io.k8s.api.flowcontrol.v1.PriorityLevelConfiguration', { subresources: ['status'] }),
  r('coordination.k8s.io', 'v1', 'leases', 'Lease', true, 'io.k8s.api.coordination.v1.Lease'),
  r('events.k8s.io', 'v1', 'events', 'Event', true, 'io.k8s.api.events.v1.Event', { shortNames: ['ev'], selectableFields: eventSelectable }),
  r('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false, 'io.k8s.api.rbac.v1.ClusterRoleBinding'),
  r('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false, 'io.k8s.api.rbac.v1.ClusterRole'),
  r('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', true, 'io.k8s.api.rbac.v1.RoleBinding'),
  r('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', true, 'io.k8s.api.rbac.v1.Role'),
  r('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false,
    'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition', {
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      subresources: ['status'],
    }),
  r('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', false,
    'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration', { categories: ['api-extensions'] }),
  r('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', false,
    'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration', { categories: ['api-extensions'] }),
  // Stored and validated; the server does not enforce them.
  r('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies', 'ValidatingAdmissionPolicy', false,
    'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy', { categories: ['api-extensions'], subresources: ['status'] }),
  r('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicybindings', 'ValidatingAdmissionPolicyBinding', false,
    'io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding', { categories: ['api-extensions'] }),
  r('authentication.k8s.io', 'v1', 'selfsubjectreviews', 'SelfSubjectReview', false,
    'io.k8s.api.authentication.v1.SelfSubjectReview', { verbs: createOnly, virtual: true }),
  r('authentication.k8s.io', 'v1', 'tokenreviews', 'TokenReview', false,
    'io.k8s.api.authentication.v1.TokenReview', { verbs: createOnly, virtual: true }),
  r('authorization.k8s.io', 'v1', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true,
    'io.k8s.api.authorization.v1.LocalSubjectAccessReview', { verbs: createOnly, virtual: true }),
  r('authorization.k8s.io', 'v1', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false,
    'io.k8s.api.authorization.v1.SelfSubjectAccessReview', { verbs: createOnly, virtual: true }),
  r('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false,
    'io.k8s.api.authorization.v1.SelfSubjectRulesReview', { verbs: createOnly, virtual: true }),
  r('authorization.k8s.io', 'v1', 'subjectaccessreviews', 'SubjectAccessReview', false,
    'io.k8s.api.authorization.v1.SubjectAccessReview', { verbs: createOnly, virtual: true }),
];

/** The group versions served, in the order discovery lists them (preferred first in each group). */
export function groupVersions(resources: ResourceInfo[]): Array<{ group: string; versions: string[] }> {
  const out: Array<{ group: string; versions: string[] }> = [];
  for (const res of resources) {
    let g = out.find((x) => x.group === res.group);
    if (!g) out.push((g = { group: res.group, versions: [] }));
    if (!g.versions.includes(res.version)) g.versions.push(res.version);
  }
  return out;
}
