/**
 * What kube-apiserver 1.32 adds to a minimal manifest of every built-in kind
 * the server stores (issue 17, bug 2). Each row creates its manifest over
 * HTTP, reads it back, and accounts for every field of the answer: it is in
 * the manifest, or it is a default recorded here with the upstream function
 * that sets it (k8s.io/kubernetes at v1.32 unless said otherwise), or it lies
 * under a path the server fills in for another reason (status, allocation,
 * admission), also named with its source. A field found in none of these
 * fails the row, as does a recorded default that is missing.
 *
 * Besides defaults, the rows record what kube's round trip through the Go
 * types adds: quantities in canonical form, and the fields encoding/json writes
 * though nobody set them (`creationTimestamp: null` in a template, an Event's
 * `source: {}`); a test below checks the reverse, empty omitempty fields dropped. The review kinds (TokenReview,
 * SubjectAccessReview, ...) are not stored and have no defaults; they are left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

/** A field kube adds: where, what (a value, or a check for values the server picks), and which upstream code adds it. */
interface Added {
  path: string;
  value: unknown;
  source: string;
}

/** A subtree the server fills in for a reason other than defaulting. */
interface ServerSet {
  path: string;
  source: string;
}

interface Row {
  name: string;
  collection: string;
  manifest: Json;
  adds: Added[];
  serverSets?: ServerSet[];
}

const coreDefaults = 'pkg/apis/core/v1/defaults.go';
const coreTypes = 'k8s.io/api core/v1/types.go v0.32.1';
const goEncoding = 'encoding/json writes a struct field even when empty (omitempty ignores structs)';
/** Go's encoding of a field nobody set, per the Go type in k8s.io/api v0.32.1 (src/openapi/go-encoded-zeros.json). */
const goZero = (field: string, why: string): string => `k8s.io/api v0.32.1 ${field}: ${why}`;
const zeroTime = 'a zero metav1.Time encodes as null';
const quantityEncoding = 'k8s.io/apimachinery pkg/api/resource/quantity.go:Quantity.MarshalJSON (canonical form)';

/** The metadata every create fills in (generic registry's BeforeCreate), and the SSA bookkeeping. */
const systemMetadata = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields'];

const container = (name: string, image = 'nginx'): Json => ({ name, image });

/** Defaults of one container `nginx` (tag latest) at `at`. */
function containerDefaults(at: string, pullPolicy = 'Always'): Added[] {
  return [
    { path: `${at}.imagePullPolicy`, value: pullPolicy, source: `${coreDefaults}:SetDefaults_Container` },
    { path: `${at}.terminationMessagePath`, value: '/dev/termination-log', source: `${coreDefaults}:SetDefaults_Container` },
    { path: `${at}.terminationMessagePolicy`, value: 'File', source: `${coreDefaults}:SetDefaults_Container` },
    { path: `${at}.resources`, value: {}, source: goEncoding },
  ];
}

/** SetDefaults_PodSpec's five fields, for pods and templates. */
function podSpecDefaults(at: string): Added[] {
  const source = `${coreDefaults}:SetDefaults_PodSpec`;
  return [
    { path: `${at}.dnsPolicy`, value: 'ClusterFirst', source },
    { path: `${at}.restartPolicy`, value: 'Always', source },
    { path: `${at}.securityContext`, value: {}, source },
    { path: `${at}.terminationGracePeriodSeconds`, value: 30, source },
    { path: `${at}.schedulerName`, value: 'default-scheduler', source },
  ];
}

/** What a new pod gets besides defaults. */
const podServerSets: ServerSet[] = [
  { path: 'spec.serviceAccountName', source: 'plugin/pkg/admission/serviceaccount/admission.go:Admit' },
  { path: 'spec.serviceAccount', source: 'plugin/pkg/admission/serviceaccount/admission.go:Admit' },
  { path: 'spec.volumes', source: 'plugin/pkg/admission/serviceaccount/admission.go:mountServiceAccountToken' },
  { path: 'spec.containers[*].volumeMounts', source: 'plugin/pkg/admission/serviceaccount/admission.go:mountServiceAccountToken' },
  { path: 'spec.initContainers[*].volumeMounts', source: 'plugin/pkg/admission/serviceaccount/admission.go:mountServiceAccountToken' },
  { path: 'spec.tolerations', source: 'plugin/pkg/admission/defaulttolerationseconds/admission.go:Admit' },
  { path: 'spec.priority', source: 'plugin/pkg/admission/priority/admission.go:admitPod' },
  { path: 'spec.preemptionPolicy', source: 'plugin/pkg/admission/priority/admission.go:admitPod' },
  { path: 'status', source: 'pkg/registry/core/pod/strategy.go:PrepareForCreate' },
];

const sha = 'sha256:0000000000000000000000000000000000000000000000000000000000000000';

const rows: Row[] = [
  {
    name: 'Namespace',
    collection: '/api/v1/namespaces',
    manifest: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'defaults-ns' } },
    adds: [
      { path: 'metadata.labels["kubernetes.io/metadata.name"]', value: 'defaults-ns', source: `${coreDefaults}:SetDefaults_Namespace` },
      { path: 'status.phase', value: 'Active', source: `${coreDefaults}:SetDefaults_NamespaceStatus` },
    ],
    serverSets: [{ path: 'spec.finalizers', source: 'pkg/registry/core/namespace/strategy.go:PrepareForCreate' }],
  },
  {
    name: 'Pod, minimal',
    collection: '/api/v1/namespaces/default/pods',
    manifest: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'minimal' }, spec: { containers: [container('app')] } },
    adds: [
      ...containerDefaults('spec.containers[0]'),
      ...podSpecDefaults('spec'),
      { path: 'spec.enableServiceLinks', value: true, source: `${coreDefaults}:SetDefaults_Pod` },
    ],
    serverSets: podServerSets,
  },
  {
    name: 'Pod, with every defaulted part',
    collection: '/api/v1/namespaces/default/pods',
    manifest: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'everything' },
      spec: {
        hostNetwork: true,
        initContainers: [{ name: 'init', image: `busybox@${sha}`, resources: { limits: { cpu: '100m' } } }],
        containers: [
          {
            name: 'app',
            image: 'registry.local:5000/team/app:1.2',
            ports: [{ containerPort: 8080 }],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            resources: { limits: { cpu: 1, memory: '1024Mi' }, requests: { cpu: 0.5 } },
            livenessProbe: { httpGet: { port: 8080 } },
            readinessProbe: { grpc: { port: 9090 } },
            startupProbe: { tcpSocket: { port: 8080 }, periodSeconds: 5 },
            lifecycle: { preStop: { httpGet: { port: 8080, path: '/stop' } }, postStart: { exec: { command: ['true'] } } },
          },
          { name: 'tagged-latest', image: `nginx:latest@${sha}` },
        ],
        volumes: [
          { name: 'scratch' },
          { name: 'secret', secret: { secretName: 's' } },
          { name: 'config', configMap: { name: 'c' } },
          { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          {
            name: 'projected',
            projected: { sources: [{ serviceAccountToken: { path: 'token' } }, { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } }] },
          },
          { name: 'host', hostPath: { path: '/var/log' } },
          { name: 'claim', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
          { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
          { name: 'rbd', rbd: { monitors: ['10.0.0.1:6789'], image: 'disk' } },
          { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'https://example/d.vhd' } },
          { name: 'scaleio', scaleIO: { gateway: 'https://gw', system: 'sys', secretRef: { name: 's' } } },
          { name: 'cache', emptyDir: { sizeLimit: '0.5Gi' } },
        ],
      },
    },
    adds: [
      ...podSpecDefaults('spec'),
      { path: 'spec.enableServiceLinks', value: true, source: `${coreDefaults}:SetDefaults_Pod` },
      // A digest without a tag is no "latest": IfNotPresent.
      ...containerDefaults('spec.initContainers[0]', 'IfNotPresent').filter((a) => !a.path.endsWith('.resources')),
      { path: 'spec.initContainers[0].resources.requests.cpu', value: '100m', source: `${coreDefaults}:SetDefaults_Pod` },
      ...containerDefaults('spec.containers[0]', 'IfNotPresent').filter((a) => !a.path.endsWith('.resources')),
      { path: 'spec.containers[0].resources.requests.memory', value: '1Gi', source: `${coreDefaults}:SetDefaults_Pod` },
      { path: 'spec.containers[0].resources.limits.cpu', value: '1', source: quantityEncoding },
      { path: 'spec.containers[0].resources.limits.memory', value: '1Gi', source: quantityEncoding },
      { path: 'spec.containers[0].resources.requests.cpu', value: '500m', source: quantityEncoding },
      { path: 'spec.volumes[11].emptyDir.sizeLimit', value: '512Mi', source: quantityEncoding },
      { path: 'spec.containers[0].ports[0].protocol', value: 'TCP', source: `${coreTypes}: ContainerPort.protocol +default="TCP"` },
      { path: 'spec.containers[0].ports[0].hostPort', value: 8080, source: `${coreDefaults}:SetDefaults_Pod (defaultHostNetworkPorts)` },
      { path: 'spec.containers[0].env[0].valueFrom.fieldRef.apiVersion', value: 'v1', source: `${coreDefaults}:SetDefaults_ObjectFieldSelector` },
      ...probeDefaults('spec.containers[0].livenessProbe'),
      { path: 'spec.containers[0].livenessProbe.httpGet.path', value: '/', source: `${coreDefaults}:SetDefaults_HTTPGetAction` },
      { path: 'spec.containers[0].livenessProbe.httpGet.scheme', value: 'HTTP', source: `${coreDefaults}:SetDefaults_HTTPGetAction` },
      ...probeDefaults('spec.containers[0].readinessProbe'),
      { path: 'spec.containers[0].readinessProbe.grpc.service', value: '', source: `${coreTypes}: GRPCAction.service +default=""` },
      ...probeDefaults('spec.containers[0].startupProbe').filter((a) => !a.path.endsWith('periodSeconds')),
      { path: 'spec.containers[0].lifecycle.preStop.httpGet.scheme', value: 'HTTP', source: `${coreDefaults}:SetDefaults_HTTPGetAction` },
      ...containerDefaults('spec.containers[1]'),
      { path: 'spec.volumes[0].emptyDir', value: {}, source: `${coreDefaults}:SetDefaults_Volume` },
      { path: 'spec.volumes[1].secret.defaultMode', value: 420, source: `${coreDefaults}:SetDefaults_SecretVolumeSource` },
      { path: 'spec.volumes[2].configMap.defaultMode', value: 420, source: `${coreDefaults}:SetDefaults_ConfigMapVolumeSource` },
      { path: 'spec.volumes[3].downwardAPI.defaultMode', value: 420, source: `${coreDefaults}:SetDefaults_DownwardAPIVolumeSource` },
      { path: 'spec.volumes[3].downwardAPI.items[0].fieldRef.apiVersion', value: 'v1', source: `${coreDefaults}:SetDefaults_ObjectFieldSelector` },
      { path: 'spec.volumes[4].projected.defaultMode', value: 420, source: `${coreDefaults}:SetDefaults_ProjectedVolumeSource` },
      { path: 'spec.volumes[4].projected.sources[0].serviceAccountToken.expirationSeconds', value: 3600, source: `${coreDefaults}:SetDefaults_ServiceAccountTokenProjection` },
      { path: 'spec.volumes[4].projected.sources[1].downwardAPI.items[0].fieldRef.apiVersion', value: 'v1', source: `${coreDefaults}:SetDefaults_ObjectFieldSelector` },
      { path: 'spec.volumes[5].hostPath.type', value: '', source: `${coreDefaults}:SetDefaults_HostPathVolumeSource` },
      { path: 'spec.volumes[6].ephemeral.volumeClaimTemplate.spec.volumeMode', value: 'Filesystem', source: `${coreDefaults}:SetDefaults_PersistentVolumeClaimSpec` },
      { path: 'spec.volumes[6].ephemeral.volumeClaimTemplate.metadata.creationTimestamp', value: null, source: goZero('core/v1 PersistentVolumeClaimTemplate.metadata.creationTimestamp', zeroTime) },
      { path: 'spec.volumes[7].iscsi.iscsiInterface', value: 'default', source: `${coreTypes}: ISCSIVolumeSource.iscsiInterface +default="default"` },
      { path: 'spec.volumes[8].rbd.pool', value: 'rbd', source: `${coreTypes}: RBDVolumeSource.pool +default="rbd"` },
      { path: 'spec.volumes[8].rbd.user', value: 'admin', source: `${coreTypes}: RBDVolumeSource.user +default="admin"` },
      { path: 'spec.volumes[8].rbd.keyring', value: '/etc/ceph/keyring', source: `${coreTypes}: RBDVolumeSource.keyring +default="/etc/ceph/keyring"` },
      { path: 'spec.volumes[9].azureDisk.cachingMode', value: 'ReadWrite', source: `${coreTypes}: AzureDiskVolumeSource.cachingMode +default=ref(AzureDataDiskCachingReadWrite)` },
      { path: 'spec.volumes[9].azureDisk.fsType', value: 'ext4', source: `${coreTypes}: AzureDiskVolumeSource.fsType +default="ext4"` },
      { path: 'spec.volumes[9].azureDisk.readOnly', value: false, source: `${coreTypes}: AzureDiskVolumeSource.readOnly +default=false` },
      { path: 'spec.volumes[9].azureDisk.kind', value: 'Shared', source: `${coreTypes}: AzureDiskVolumeSource.kind +default=ref(AzureSharedBlobDisk)` },
      { path: 'spec.volumes[10].scaleIO.storageMode', value: 'ThinProvisioned', source: `${coreTypes}: ScaleIOVolumeSource.storageMode +default="ThinProvisioned"` },
      { path: 'spec.volumes[10].scaleIO.fsType', value: 'xfs', source: `${coreTypes}: ScaleIOVolumeSource.fsType +default="xfs"` },
    ],
    serverSets: [...podServerSets.filter((s) => s.path !== 'spec.volumes'), { path: 'spec.volumes[12]', source: 'plugin/pkg/admission/serviceaccount/admission.go:mountServiceAccountToken' }],
  },
  {
    name: 'Service, minimal',
    collection: '/api/v1/namespaces/default/services',
    manifest: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'minimal' }, spec: { ports: [{ port: 80 }] } },
    adds: [...serviceDefaults(), { path: 'spec.internalTrafficPolicy', value: 'Cluster', source: `${coreDefaults}:SetDefaults_Service` }],
    serverSets: serviceServerSets(),
  },
  {
    name: 'Service, LoadBalancer with client-IP affinity',
    collection: '/api/v1/namespaces/default/services',
    manifest: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'balanced' },
      spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 443, targetPort: 'https', name: 'https' }] },
    },
    adds: [
      { path: 'spec.ports[0].protocol', value: 'TCP', source: `${coreTypes}: ServicePort.protocol +default="TCP"` },
      { path: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', value: 10800, source: `${coreDefaults}:SetDefaults_Service` },
      { path: 'spec.externalTrafficPolicy', value: 'Cluster', source: `${coreDefaults}:SetDefaults_Service` },
      { path: 'spec.internalTrafficPolicy', value: 'Cluster', source: `${coreDefaults}:SetDefaults_Service` },
      { path: 'spec.allocateLoadBalancerNodePorts', value: true, source: `${coreDefaults}:SetDefaults_Service` },
    ],
    serverSets: [...serviceServerSets(), { path: 'spec.ports[0].nodePort', source: 'pkg/registry/core/service/storage/storage.go:allocateNodePorts' }],
  },
  {
    name: 'Service, ExternalName',
    collection: '/api/v1/namespaces/default/services',
    manifest: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: 'example.com' } },
    adds: [{ path: 'spec.sessionAffinity', value: 'None', source: `${coreDefaults}:SetDefaults_Service` }],
    serverSets: [{ path: 'status', source: 'pkg/registry/core/service/strategy.go:PrepareForCreate' }],
  },
  {
    name: 'Endpoints',
    collection: '/api/v1/namespaces/default/endpoints',
    manifest: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] },
    adds: [{ path: 'subsets[0].ports[0].protocol', value: 'TCP', source: `${coreDefaults}:SetDefaults_Endpoints` }],
  },
  {
    name: 'ConfigMap',
    collection: '/api/v1/namespaces/default/configmaps',
    manifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } },
    adds: [],
  },
  {
    name: 'Secret',
    collection: '/api/v1/namespaces/default/secrets',
    manifest: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret' } },
    adds: [{ path: 'type', value: 'Opaque', source: `${coreDefaults}:SetDefaults_Secret` }],
  },
  {
    name: 'ServiceAccount',
    collection: '/api/v1/namespaces/default/serviceaccounts',
    manifest: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
    adds: [],
  },
  {
    name: 'Event (core)',
    collection: '/api/v1/namespaces/default/events',
    manifest: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'ev' },
      involvedObject: { kind: 'Pod', name: 'minimal', namespace: 'default' },
      reason: 'Started',
      message: 'started',
      type: 'Normal',
    },
    adds: [
      { path: 'eventTime', value: null, source: goZero('core/v1 Event.eventTime', 'a zero metav1.MicroTime encodes as null') },
      { path: 'firstTimestamp', value: null, source: goZero('core/v1 Event.firstTimestamp', zeroTime) },
      { path: 'lastTimestamp', value: null, source: goZero('core/v1 Event.lastTimestamp', zeroTime) },
      { path: 'reportingComponent', value: '', source: goZero('core/v1 Event.reportingComponent', 'no omitempty') },
      { path: 'reportingInstance', value: '', source: goZero('core/v1 Event.reportingInstance', 'no omitempty') },
      { path: 'source', value: {}, source: goZero('core/v1 Event.source', goEncoding) },
    ],
  },
  {
    name: 'Event (events.k8s.io)',
    collection: '/apis/events.k8s.io/v1/namespaces/default/events',
    manifest: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev2' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      reportingController: 'example.com/controller',
      reportingInstance: 'controller-1',
      action: 'Start',
      reason: 'Started',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'minimal', namespace: 'default' },
    },
    adds: [
      { path: 'deprecatedFirstTimestamp', value: null, source: goZero('events/v1 Event.deprecatedFirstTimestamp', zeroTime) },
      { path: 'deprecatedLastTimestamp', value: null, source: goZero('events/v1 Event.deprecatedLastTimestamp', zeroTime) },
      { path: 'deprecatedSource', value: {}, source: goZero('events/v1 Event.deprecatedSource', goEncoding) },
    ],
  },
  {
    name: 'Node, reporting capacity only',
    collection: '/api/v1/nodes',
    manifest: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' }, status: { capacity: { cpu: 4, memory: '8192Mi', pods: '110', 'example.com/tiny': '0.0001' } } },
    adds: [
      { path: 'status.capacity', value: { cpu: '4', memory: '8Gi', pods: '110', 'example.com/tiny': '1m' }, source: `${quantityEncoding}, after ${coreDefaults}:SetDefaults_ResourceList` },
      { path: 'status.allocatable', value: { cpu: '4', memory: '8Gi', pods: '110', 'example.com/tiny': '1m' }, source: `${coreDefaults}:SetDefaults_NodeStatus` },
      { path: 'status.daemonEndpoints', value: { kubeletEndpoint: { Port: 0 } }, source: goZero('core/v1 NodeStatus.daemonEndpoints, DaemonEndpoint.Port', 'structs, and Port has no omitempty') },
      {
        path: 'status.nodeInfo',
        value: Object.fromEntries(
          ['architecture', 'bootID', 'containerRuntimeVersion', 'kernelVersion', 'kubeProxyVersion', 'kubeletVersion', 'machineID', 'operatingSystem', 'osImage', 'systemUUID'].map((k) => [k, '']),
        ),
        source: goZero('core/v1 NodeStatus.nodeInfo (NodeSystemInfo)', 'a struct whose fields have no omitempty'),
      },
    ],
    // The spec Go's encoding would write as {} holds the not-ready taint TaintNodesAtCreation adds.
    serverSets: [{ path: 'spec.taints', source: 'plugin/pkg/admission/nodetaint/admission.go:Admit' }],
  },
  {
    name: 'Deployment',
    collection: '/apis/apps/v1/namespaces/default/deployments',
    manifest: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ ...container('web'), resources: { limits: { cpu: '1' } } }] } },
      },
    },
    // No requests from limits and no enableServiceLinks: SetDefaults_Pod is for pods, not templates.
    adds: [
      { path: 'spec.replicas', value: 1, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_Deployment' },
      { path: 'spec.strategy', value: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_Deployment' },
      { path: 'spec.revisionHistoryLimit', value: 10, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_Deployment' },
      { path: 'spec.progressDeadlineSeconds', value: 600, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_Deployment' },
      { path: 'spec.template.metadata.creationTimestamp', value: null, source: goZero('core/v1 PodTemplateSpec.metadata.creationTimestamp', zeroTime) },
      ...podSpecDefaults('spec.template.spec'),
      ...containerDefaults('spec.template.spec.containers[0]').filter((a) => !a.path.endsWith('.resources')),
    ],
    serverSets: [{ path: 'status', source: 'pkg/registry/apps/deployment/strategy.go:PrepareForCreate' }],
  },
  {
    name: 'ReplicaSet',
    collection: '/apis/apps/v1/namespaces/default/replicasets',
    manifest: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container('web')] } } },
    },
    adds: [
      { path: 'spec.replicas', value: 1, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_ReplicaSet' },
      { path: 'spec.template.metadata.creationTimestamp', value: null, source: goZero('core/v1 PodTemplateSpec.metadata.creationTimestamp', zeroTime) },
      ...podSpecDefaults('spec.template.spec'),
      ...containerDefaults('spec.template.spec.containers[0]'),
    ],
    serverSets: [{ path: 'status', source: 'pkg/registry/apps/replicaset/strategy.go:PrepareForCreate' }],
  },
  {
    name: 'StatefulSet',
    collection: '/apis/apps/v1/namespaces/default/statefulsets',
    manifest: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [container('db')] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    },
    adds: [
      { path: 'spec.podManagementPolicy', value: 'OrderedReady', source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_StatefulSet' },
      { path: 'spec.updateStrategy', value: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_StatefulSet' },
      { path: 'spec.persistentVolumeClaimRetentionPolicy', value: { whenDeleted: 'Retain', whenScaled: 'Retain' }, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_StatefulSet' },
      { path: 'spec.replicas', value: 1, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_StatefulSet' },
      { path: 'spec.revisionHistoryLimit', value: 10, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_StatefulSet' },
      { path: 'spec.template.metadata.creationTimestamp', value: null, source: goZero('core/v1 PodTemplateSpec.metadata.creationTimestamp', zeroTime) },
      ...podSpecDefaults('spec.template.spec'),
      ...containerDefaults('spec.template.spec.containers[0]'),
      { path: 'spec.volumeClaimTemplates[0].spec.volumeMode', value: 'Filesystem', source: `${coreDefaults}:SetDefaults_PersistentVolumeClaimSpec` },
      { path: 'spec.volumeClaimTemplates[0].status.phase', value: 'Pending', source: `${coreDefaults}:SetDefaults_PersistentVolumeClaim` },
      { path: 'spec.volumeClaimTemplates[0].metadata.creationTimestamp', value: null, source: goZero('core/v1 PersistentVolumeClaim.metadata.creationTimestamp', zeroTime) },
    ],
    serverSets: [{ path: 'status', source: 'pkg/registry/apps/statefulset/strategy.go:PrepareForCreate' }],
  },
  {
    name: 'DaemonSet',
    collection: '/apis/apps/v1/namespaces/default/daemonsets',
    manifest: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [container('agent')] } } },
    },
    adds: [
      { path: 'spec.updateStrategy', value: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_DaemonSet' },
      { path: 'spec.revisionHistoryLimit', value: 10, source: 'pkg/apis/apps/v1/defaults.go:SetDefaults_DaemonSet' },
      { path: 'spec.template.metadata.creationTimestamp', value: null, source: goZero('core/v1 PodTemplateSpec.metadata.creationTimestamp', zeroTime) },
      ...podSpecDefaults('spec.template.spec'),
      ...containerDefaults('spec.template.spec.containers[0]'),
    ],
    serverSets: [
      { path: 'status', source: 'pkg/registry/apps/daemonset/strategy.go:PrepareForCreate' },
      { path: 'metadata.annotations["deprecated.daemonset.template.generation"]', source: 'pkg/registry/apps/daemonset/strategy.go:PrepareForCreate (templateGeneration, kept in this annotation by apps/v1 conversion)' },
    ],
  },
  {
    name: 'Job',
    collection: '/apis/batch/v1/namespaces/default/jobs',
    manifest: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi' },
      spec: { template: { metadata: { labels: { app: 'pi' } }, spec: { restartPolicy: 'Never', containers: [container('pi')] } } },
    },
    adds: [
      { path: 'metadata.labels', value: { app: 'pi' }, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job (a Job without labels takes its template\'s)' },
      { path: 'spec.completions', value: 1, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.parallelism', value: 1, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.backoffLimit', value: 6, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.completionMode', value: 'NonIndexed', source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.suspend', value: false, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.podReplacementPolicy', value: 'TerminatingOrFailed', source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.template.metadata.creationTimestamp', value: null, source: goZero('core/v1 PodTemplateSpec.metadata.creationTimestamp', zeroTime) },
      ...podSpecDefaults('spec.template.spec').filter((a) => !a.path.endsWith('.restartPolicy')),
      ...containerDefaults('spec.template.spec.containers[0]'),
    ],
    serverSets: [
      { path: 'status', source: 'pkg/registry/batch/job/strategy.go:PrepareForCreate' },
      { path: 'spec.selector', source: 'pkg/registry/batch/job/strategy.go:generateSelector' },
      { path: 'spec.template.metadata.labels', source: 'pkg/registry/batch/job/strategy.go:generateSelector (controller-uid and job-name labels)' },
    ],
  },
  {
    name: 'CronJob',
    collection: '/apis/batch/v1/namespaces/default/cronjobs',
    manifest: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick' },
      spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [container('tick')] } } } } },
    },
    adds: [
      { path: 'spec.concurrencyPolicy', value: 'Allow', source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_CronJob' },
      { path: 'spec.suspend', value: false, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_CronJob' },
      { path: 'spec.successfulJobsHistoryLimit', value: 3, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_CronJob' },
      { path: 'spec.failedJobsHistoryLimit', value: 1, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_CronJob' },
      { path: 'spec.jobTemplate.spec.completions', value: 1, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job (zz_generated.defaults.go runs it on the job template)' },
      { path: 'spec.jobTemplate.spec.parallelism', value: 1, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.jobTemplate.spec.backoffLimit', value: 6, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.jobTemplate.spec.completionMode', value: 'NonIndexed', source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.jobTemplate.spec.suspend', value: false, source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.jobTemplate.spec.podReplacementPolicy', value: 'TerminatingOrFailed', source: 'pkg/apis/batch/v1/defaults.go:SetDefaults_Job' },
      { path: 'spec.jobTemplate.metadata.creationTimestamp', value: null, source: goZero('batch/v1 JobTemplateSpec.metadata.creationTimestamp', zeroTime) },
      { path: 'spec.jobTemplate.spec.template.metadata.creationTimestamp', value: null, source: goZero('core/v1 PodTemplateSpec.metadata.creationTimestamp', zeroTime) },
      ...podSpecDefaults('spec.jobTemplate.spec.template.spec').filter((a) => !a.path.endsWith('.restartPolicy')),
      ...containerDefaults('spec.jobTemplate.spec.template.spec.containers[0]'),
    ],
    serverSets: [{ path: 'status', source: 'pkg/registry/batch/cronjob/strategy.go:PrepareForCreate' }],
  },
  {
    name: 'ControllerRevision',
    collection: '/apis/apps/v1/namespaces/default/controllerrevisions',
    manifest: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'rev' }, revision: 1, data: { spec: {} } },
    adds: [],
  },
  {
    name: 'Lease',
    collection: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
    manifest: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } },
    adds: [],
  },
  {
    name: 'Role',
    collection: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    manifest: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    adds: [],
  },
  {
    name: 'ClusterRole',
    collection: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    manifest: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'defaults-reader' }, rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }] },
    adds: [],
  },
  {
    name: 'RoleBinding',
    collection: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    manifest: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'readers' },
      roleRef: { kind: 'Role', name: 'reader' },
      subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'default' }],
    },
    adds: [
      { path: 'roleRef.apiGroup', value: 'rbac.authorization.k8s.io', source: 'pkg/apis/rbac/v1/defaults.go:SetDefaults_RoleBinding' },
      { path: 'subjects[0].apiGroup', value: 'rbac.authorization.k8s.io', source: 'pkg/apis/rbac/v1/defaults.go:SetDefaults_Subject' },
      { path: 'subjects[1].apiGroup', value: 'rbac.authorization.k8s.io', source: 'pkg/apis/rbac/v1/defaults.go:SetDefaults_Subject' },
    ],
  },
  {
    name: 'ClusterRoleBinding',
    collection: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    manifest: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'defaults-readers' },
      roleRef: { kind: 'ClusterRole', name: 'defaults-reader' },
      subjects: [{ kind: 'Group', name: 'devs' }],
    },
    adds: [
      { path: 'roleRef.apiGroup', value: 'rbac.authorization.k8s.io', source: 'pkg/apis/rbac/v1/defaults.go:SetDefaults_ClusterRoleBinding' },
      { path: 'subjects[0].apiGroup', value: 'rbac.authorization.k8s.io', source: 'pkg/apis/rbac/v1/defaults.go:SetDefaults_Subject' },
    ],
  },
  {
    name: 'CustomResourceDefinition',
    collection: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    manifest: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    },
    adds: [
      { path: 'spec.names.singular', value: 'widget', source: 'apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go:SetDefaults_CustomResourceDefinitionSpec' },
      { path: 'spec.names.listKind', value: 'WidgetList', source: 'apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go:SetDefaults_CustomResourceDefinitionSpec' },
      { path: 'spec.conversion.strategy', value: 'None', source: 'apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go:SetDefaults_CustomResourceDefinitionSpec' },
      { path: 'status.storedVersions', value: ['v1'], source: 'apiextensions-apiserver pkg/apis/apiextensions/v1/defaults.go:SetDefaults_CustomResourceDefinition' },
    ],
    serverSets: [
      { path: 'metadata.finalizers', source: 'apiextensions-apiserver pkg/registry/customresourcedefinition/strategy.go:PrepareForCreate' },
      { path: 'status.acceptedNames', source: 'apiextensions-apiserver pkg/controller/status/naming_controller.go' },
      { path: 'status.conditions', source: 'apiextensions-apiserver pkg/controller/establish/establishing_controller.go' },
    ],
  },
  // The webhook configurations come last: their rules (DELETE of leases) match nothing the rows above do.
  webhookRow('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', [
    { path: 'webhooks[0].reinvocationPolicy', value: 'Never', source: 'pkg/apis/admissionregistration/v1/defaults.go:SetDefaults_MutatingWebhook' },
  ]),
  webhookRow('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', []),
];

function probeDefaults(at: string): Added[] {
  const source = `${coreDefaults}:SetDefaults_Probe`;
  return [
    { path: `${at}.timeoutSeconds`, value: 1, source },
    { path: `${at}.periodSeconds`, value: 10, source },
    { path: `${at}.successThreshold`, value: 1, source },
    { path: `${at}.failureThreshold`, value: 3, source },
  ];
}

function serviceDefaults(): Added[] {
  const source = `${coreDefaults}:SetDefaults_Service`;
  return [
    { path: 'spec.type', value: 'ClusterIP', source },
    { path: 'spec.sessionAffinity', value: 'None', source },
    { path: 'spec.ports[0].protocol', value: 'TCP', source: `${coreTypes}: ServicePort.protocol +default="TCP"` },
    { path: 'spec.ports[0].targetPort', value: 80, source },
  ];
}

function serviceServerSets(): ServerSet[] {
  const alloc = 'pkg/registry/core/service/storage/alloc.go';
  return [
    { path: 'spec.clusterIP', source: `${alloc}:allocateClusterIPs` },
    { path: 'spec.clusterIPs', source: `${alloc}:allocateClusterIPs` },
    { path: 'spec.ipFamilies', source: `${alloc}:initIPFamilyFields` },
    { path: 'spec.ipFamilyPolicy', source: `${alloc}:initIPFamilyFields` },
    { path: 'status', source: 'pkg/registry/core/service/strategy.go:PrepareForCreate' },
  ];
}

function webhookRow(kind: string, resource: string, extra: Added[]): Row {
  const source = `pkg/apis/admissionregistration/v1/defaults.go:SetDefaults_${kind.startsWith('Mutating') ? 'Mutating' : 'Validating'}Webhook`;
  return {
    name: kind,
    collection: `/apis/admissionregistration.k8s.io/v1/${resource}`,
    manifest: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name: `defaults-${resource}` },
      webhooks: [
        {
          name: 'hook.example.com',
          clientConfig: { service: { namespace: 'default', name: 'hook' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          rules: [{ operations: ['DELETE'], apiGroups: ['coordination.k8s.io'], apiVersions: ['v1'], resources: ['leases'] }],
        },
      ],
    },
    adds: [
      { path: 'webhooks[0].failurePolicy', value: 'Fail', source },
      { path: 'webhooks[0].matchPolicy', value: 'Equivalent', source },
      { path: 'webhooks[0].namespaceSelector', value: {}, source },
      { path: 'webhooks[0].objectSelector', value: {}, source },
      { path: 'webhooks[0].timeoutSeconds', value: 10, source },
      { path: 'webhooks[0].rules[0].scope', value: '*', source: 'pkg/apis/admissionregistration/v1/defaults.go:SetDefaults_Rule' },
      { path: 'webhooks[0].clientConfig.service.port', value: 443, source: 'pkg/apis/admissionregistration/v1/defaults.go:SetDefaults_ServiceReference' },
      ...extra,
    ],
  };
}

// ------------------------------------------------------------------ comparison

/** Every leaf of `value` by path (`a.b[0]["x.y"]`); empty objects and lists are leaves too. */
function leaves(value: unknown, at = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value) && value.length > 0) {
    value.forEach((v, i) => leaves(v, `${at}[${i}]`, out));
  } else if (typeof value === 'object' && value !== null && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, /^[A-Za-z_$][\w$]*$/.test(k) ? (at ? `${at}.${k}` : k) : `${at}["${k}"]`, out);
  } else {
    out.set(at, value);
  }
  return out;
}

/** Whether `path` is `prefix` or lies under it; `[*]` in the prefix matches any index. */
function under(path: string, prefix: string): boolean {
  const pattern = new RegExp(`^${prefix.replace(/[.[\]"]/g, '\\$&').replace(/\\\[\*\\\]/g, '\\[\\d+\\]')}(?=$|[.[])`);
  return pattern.test(path);
}

function stripSystemMetadata(obj: Json): Json {
  const copy = structuredClone(obj);
  for (const key of systemMetadata) delete copy.metadata?.[key];
  if (copy.metadata?.namespace === 'default') delete copy.metadata.namespace;
  return copy;
}

describe('a minimal manifest of each built-in kind comes back with what kube 1.32 adds', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const created = await api.ok('POST', row.collection, row.manifest, 201);
      const read = stripSystemMetadata(await api.ok('GET', `${row.collection}/${created.metadata.name}`));
      assert.deepEqual(stripSystemMetadata(created), read, 'the create response and a later read differ');

      const actual = leaves(read);
      const given = leaves(row.manifest);
      const added = new Map<string, Added>();
      for (const a of row.adds) for (const [path, value] of leaves(a.value, a.path)) added.set(path, { ...a, path, value });

      const problems: string[] = [];
      for (const [path, a] of added) {
        if (!actual.has(path)) problems.push(`missing default ${path} = ${JSON.stringify(a.value)} (${a.source})`);
        else if (!isDeepStrictEqual(actual.get(path), a.value)) problems.push(`${path} is ${JSON.stringify(actual.get(path))}, kube sets ${JSON.stringify(a.value)} (${a.source})`);
      }
      for (const [path, value] of actual) {
        if (added.has(path) || (row.serverSets ?? []).some((s) => under(path, s.path))) continue;
        if (!given.has(path)) problems.push(`unexpected ${path} = ${JSON.stringify(value)}: neither in the manifest nor a recorded default`);
        else if (!isDeepStrictEqual(given.get(path), value)) problems.push(`${path} changed from ${JSON.stringify(given.get(path))} to ${JSON.stringify(value)}`);
      }
      for (const path of given.keys()) if (!actual.has(path) && !added.has(path)) problems.push(`${path} from the manifest was dropped`);
      assert.deepEqual(problems, []);
    });
  }
});

describe('defaults apply to every write, as kube defaults every decoded body', () => {
  it('an update that drops a defaulted field gets it back', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/web';
    const current = await api.ok('GET', path);
    delete current.spec.strategy;
    delete current.spec.template.spec.containers[0].imagePullPolicy;
    const updated = await api.ok('PUT', path, current, 200);
    assert.deepEqual(updated.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(updated.spec.template.spec.containers[0].imagePullPolicy, 'Always');
  });

  it('a namespace created with generateName is labelled with the name it got (namespace strategy Canonicalize)', async () => {
    const created = await api.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'gen-' } }, 201);
    assert.match(created.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.deepEqual(created.metadata.labels, { 'kubernetes.io/metadata.name': created.metadata.name });
  });

  it('a metadata-only patch leaves generation alone: the encoded nulls of the stored template are no spec change', async () => {
    const path = '/apis/apps/v1/namespaces/default/replicasets/web';
    const before = await api.ok('GET', path);
    assert.equal(before.spec.template.metadata.creationTimestamp, null);
    const patched = await api.ok('PATCH', path, { metadata: { labels: { team: 'a' } } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(patched.metadata.generation, before.metadata.generation);
    assert.equal(patched.spec.template.metadata.creationTimestamp, null);
  });

  it('zero values of omitempty fields are not served back, as Go encodes them', async () => {
    const created = await api.ok(
      'POST',
      '/api/v1/namespaces/default/pods',
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'zeros', labels: {}, annotations: {} },
        spec: { hostNetwork: false, nodeSelector: {}, containers: [{ name: 'app', image: 'nginx', args: [], workingDir: '', stdin: false, ports: [{ containerPort: 80, hostPort: 0 }] }] },
      },
      201,
    );
    for (const key of ['labels', 'annotations']) assert.equal(key in created.metadata, false, `metadata.${key}`);
    for (const key of ['hostNetwork', 'nodeSelector']) assert.equal(key in created.spec, false, `spec.${key}`);
    const c = created.spec.containers[0];
    for (const key of ['args', 'workingDir', 'stdin']) assert.equal(key in c, false, `containers[0].${key}`);
    assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('a status write is defaulted: a node reporting new capacity can allocate all of it', async () => {
    const path = '/api/v1/nodes/node-a/status';
    const current = await api.ok('GET', path);
    current.status = { capacity: { cpu: '8', memory: '16Gi' } };
    const updated = await api.ok('PUT', path, current, 200);
    assert.deepEqual(updated.status.allocatable, { cpu: '8', memory: '16Gi' });
  });

  it('a strategic merge patch adding an env var from a field gets its apiVersion', async () => {
    const path = '/apis/apps/v1/namespaces/default/replicasets/web';
    const patch = { spec: { template: { spec: { containers: [{ name: 'web', env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] }] } } } };
    const patched = await api.ok('PATCH', path, patch, 200, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.deepEqual(patched.spec.template.spec.containers[0].env, [{ name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }]);
  });
});
