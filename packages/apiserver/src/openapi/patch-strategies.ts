/**
 * The strategic-merge and list-topology facts of the built-in kinds that the
 * `kubernetes-types` declarations do not carry.
 *
 * In k8s.io/api they are Go struct tags and markers, e.g.
 * `patchStrategy:"merge" patchMergeKey:"name"` with `+listType=map` and
 * `+listMapKey=name`. kube-apiserver publishes them in its OpenAPI schemas as
 * `x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`,
 * `x-kubernetes-list-type` and `x-kubernetes-list-map-keys`; strategic merge
 * patch (kubectl apply, `kubectl patch`) and server-side apply read them there.
 *
 * Only fields that merge (patch strategy, or list type `map`/`set`) are listed:
 * a list without a list type is atomic for server-side apply anyway.
 * Checked against the Go types of k8s.io/api v1.29-v1.32.
 */
import type { OpenApiSchema } from '@operant/apimachinery';

/** The merge facts of one field. */
export interface PatchFacts {
  /** `merge`, `retainKeys` or `merge,retainKeys`. */
  strategy?: string;
  /** The key that identifies list items for strategic merge patch. */
  mergeKey?: string;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
}

const core = 'io.k8s.api.core.v1';
const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const apps = 'io.k8s.api.apps.v1';
const admission = 'io.k8s.api.admissionregistration.v1';
const apiext = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';

/** A list merged by strategic merge patch on `key`, a list-map for server-side apply. */
function byKey(key: string, listMapKeys: string[] = [key], strategy = 'merge'): PatchFacts {
  return { strategy, mergeKey: key, listType: 'map', listMapKeys };
}

/** Conditions: merged by `type` everywhere kube uses the pattern. */
const conditions = byKey('type');

/** The container fields, shared by Container and EphemeralContainer. */
const containerFields: Record<string, PatchFacts> = {
  ports: byKey('containerPort', ['containerPort', 'protocol']),
  env: byKey('name'),
  volumeMounts: byKey('mountPath'),
  volumeDevices: byKey('devicePath'),
};

/**
 * Definition name -> property name -> merge facts.
 * Keys are OpenAPI definition names as kube publishes them.
 */
export const patchStrategies: Record<string, Record<string, PatchFacts>> = {
  [`${meta}.ObjectMeta`]: {
    finalizers: { strategy: 'merge', listType: 'set' },
    ownerReferences: byKey('uid'),
  },
  [`${core}.PodSpec`]: {
    volumes: byKey('name', ['name'], 'merge,retainKeys'),
    initContainers: byKey('name'),
    containers: byKey('name'),
    ephemeralContainers: byKey('name'),
    imagePullSecrets: byKey('name'),
    hostAliases: byKey('ip'),
    topologySpreadConstraints: byKey('topologyKey', ['topologyKey', 'whenUnsatisfiable']),
    schedulingGates: byKey('name'),
    resourceClaims: byKey('name', ['name'], 'merge,retainKeys'),
    nodeSelector: { mapType: 'atomic' },
  },
  [`${core}.Container`]: containerFields,
  [`${core}.EphemeralContainer`]: containerFields,
  [`${core}.ResourceRequirements`]: {
    claims: { listType: 'map', listMapKeys: ['name'] },
  },
  [`${core}.PodStatus`]: {
    conditions,
    podIPs: byKey('ip'),
    hostIPs: { strategy: 'merge', mergeKey: 'ip', listType: 'atomic' },
    resourceClaimStatuses: byKey('name', ['name'], 'merge,retainKeys'),
  },
  [`${core}.ServiceSpec`]: {
    ports: byKey('port', ['port', 'protocol']),
    selector: { mapType: 'atomic' },
  },
  [`${core}.ServiceStatus`]: { conditions },
  [`${core}.NodeSpec`]: {
    podCIDRs: { strategy: 'merge', listType: 'set' },
  },
  [`${core}.NodeStatus`]: {
    conditions,
    addresses: byKey('type'),
  },
  [`${core}.NamespaceStatus`]: { conditions },
  [`${core}.ServiceAccount`]: {
    secrets: byKey('name'),
  },
  [`${apps}.DeploymentSpec`]: {
    strategy: { strategy: 'retainKeys' },
  },
  [`${apps}.DeploymentStatus`]: { conditions },
  [`${apps}.ReplicaSetStatus`]: { conditions },
  [`${apps}.StatefulSetStatus`]: { conditions },
  [`${apps}.DaemonSetStatus`]: { conditions },
  // Merged by type for strategic merge patch, yet atomic for server-side apply (+listType=atomic).
  ['io.k8s.api.batch.v1.JobStatus']: { conditions: { strategy: 'merge', mergeKey: 'type', listType: 'atomic' } },
  // The selector is replaced as a whole by a strategic merge patch (patchStrategy:"replace").
  ['io.k8s.api.policy.v1.PodDisruptionBudgetSpec']: { selector: { strategy: 'replace' } },
  ['io.k8s.api.policy.v1.PodDisruptionBudgetStatus']: { conditions },
  ['io.k8s.api.flowcontrol.v1.FlowSchemaStatus']: { conditions },
  ['io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus']: { conditions },
  ['io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus']: { conditions },
  // A list-map for server-side apply, but replaced whole by a strategic merge patch (no patchStrategy).
  ['io.k8s.api.certificates.v1.CertificateSigningRequestStatus']: { conditions: { listType: 'map', listMapKeys: ['type'] } },
  ['io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationStatus']: { conditions },
  [`${admission}.MutatingWebhookConfiguration`]: {
    webhooks: byKey('name'),
  },
  [`${admission}.ValidatingWebhookConfiguration`]: {
    webhooks: byKey('name'),
  },
  [`${admission}.ValidatingAdmissionPolicySpec`]: {
    matchConditions: byKey('name'),
    variables: byKey('name'),
  },
  [`${admission}.ValidatingAdmissionPolicyStatus`]: { conditions: { listType: 'map', listMapKeys: ['type'] } },
  [`${admission}.ValidatingAdmissionPolicyBindingSpec`]: { validationActions: { listType: 'set' } },
  [`${apiext}.CustomResourceDefinitionStatus`]: {
    conditions: { listType: 'map', listMapKeys: ['type'] },
  },
  [`${apiext}.JSONSchemaProps`]: {
    'x-kubernetes-validations': byKey('rule'),
  },
};

/**
 * Writes the facts of {@link patchStrategies} into the `definitions` (in place):
 * each listed property of each listed definition gets the matching
 * `x-kubernetes-*` keys. Definitions or properties that are absent are skipped.
 */
export function applyPatchStrategies(definitions: Record<string, OpenApiSchema>): void {
  for (const [definition, fields] of Object.entries(patchStrategies)) {
    const props = definitions[definition]?.properties;
    if (!props) continue;
    for (const [field, facts] of Object.entries(fields)) {
      const prop = props[field];
      if (!prop) continue;
      if (facts.strategy) prop['x-kubernetes-patch-strategy'] = facts.strategy;
      if (facts.mergeKey) prop['x-kubernetes-patch-merge-key'] = facts.mergeKey;
      if (facts.listType) prop['x-kubernetes-list-type'] = facts.listType;
      if (facts.listMapKeys) prop['x-kubernetes-list-map-keys'] = [...facts.listMapKeys];
      if (facts.mapType) prop['x-kubernetes-map-type'] = facts.mapType;
    }
  }
}
