/**
 * The per-kind strategies of the built-in resources: what kube's registries
 * under pkg/registry/<group>/<kind>/strategy.go do that the generic registry
 * does not.
 */
import { admitDefaultTolerationSeconds, admitServiceAccount } from '../admission/pod-admission.js';
import { admitPodPriority, keepPodPriority, type PriorityClassSource } from '../admission/priority.js';
import { admitNodeTaints } from '../admission/node-taint.js';
import { fieldErrors, forbidden, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, statusSubresourceStrategy, withStatus, type Strategy } from './strategy.js';
import { podQosClass } from './pod-qos.js';
import { defaultPod } from './defaults/pod-spec.js';
import { defaultDeployment, defaultReplicaSet } from './defaults/apps.js';
import { defaultEndpoints, defaultService } from './defaults/service.js';
import { defaultNamespace, defaultNode, defaultSecret } from './defaults/core-objects.js';
import { defaultRoleBinding } from './defaults/rbac.js';
import { validatePodSpec, validateSelectorMatchesTemplate } from './pod-validation.js';
import { mergeAffinityLabelKeys } from './pod-affinity-label-keys.js';
import { workloadStrategies } from './workload-strategies.js';
import { podDisruptionBudgetStrategy } from './policy-strategies.js';
import { networkingStrategies } from './networking-strategies.js';
import { discoveryStrategies } from './discovery-strategies.js';
import { runtimeClassStrategy } from './node-strategies.js';
import { storageStrategies } from './storage-strategies.js';
import { corePolicyStrategies } from './core-policy-strategies.js';
import { flowcontrolStrategies } from './flowcontrol-strategies.js';
import { persistentVolumeStrategy } from './volume-strategies.js';
import { horizontalPodAutoscalerStrategy } from './autoscaling-strategies.js';
import { certificateSigningRequestStrategy } from './certificates-strategies.js';
import { apiServiceStrategy } from './apiregistration-strategies.js';
import { ClusterIpAllocator } from './cluster-ip.js';
import { allocateClusterIpsOnCreate, allocateClusterIpsOnUpdate, dropClusterIpFields } from './service-cluster-ips.js';
import { allocateNodePortsOnCreate, allocateNodePortsOnUpdate, healthCheckNodePortOf, needsHealthCheckNodePort } from './service-node-ports.js';
import { defaultWebhookConfiguration, goSlice, hasMatchConditions, invalidGoValue, validateWebhookConfiguration, validateWebhookConfigurationUpdate } from '../admission/configuration.js';
import { loadCelIf } from '../cel-loader.js';
import {
  defaultValidatingAdmissionPolicy,
  defaultValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicy,
  validateValidatingAdmissionPolicyBinding,
  validateValidatingAdmissionPolicyStatus,
} from '../admission/policy-validation.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;
const spec = (o: KubeObject): Json => asObj(o.spec);
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The strategy of a kind with a pod template and replicas; `applyDefaults` is the kind's defaulter. */
function workloadStrategy(applyDefaults: (o: KubeObject) => void): Strategy {
  return statusSubresourceStrategy({
    applyDefaults,
    validate: (o) => validateWorkload(o),
    validateUpdate(o, old) {
      const errs = validateWorkload(o);
      if (!sameJson(spec(o).selector, spec(old).selector)) {
        errs.push(fieldErrors.invalid('spec.selector', spec(o).selector ?? null, 'field is immutable'));
      }
      return errs;
    },
  });
}

function validateWorkload(o: KubeObject): FieldError[] {
  const s = spec(o);
  const errs: FieldError[] = [];
  if (typeof s.replicas === 'number' && s.replicas < 0) {
    errs.push(fieldErrors.invalid('spec.replicas', s.replicas, 'must be greater than or equal to 0'));
  }
  errs.push(...validateSelectorMatchesTemplate(s.selector, s.template));
  errs.push(...validatePodSpec(asObj(s.template).spec, 'spec.template.spec'));
  return errs;
}

const podUpdatableMessage =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** The pod spec with the fields an update may change blanked, to compare the rest. */
function podSpecSansMutable(s: Json): Json {
  const c = structuredClone(s);
  for (const list of ['containers', 'initContainers']) {
    if (Array.isArray(c[list])) for (const x of c[list] as Json[]) delete x.image;
  }
  delete c.activeDeadlineSeconds;
  delete c.tolerations;
  delete c.terminationGracePeriodSeconds;
  return c;
}

/** What strategies read of other stored objects. */
export interface StoredObjects {
  /** Whether a Node of that name exists. */
  nodeRegistered(name: string): boolean;
  /** The PriorityClasses, for the Priority admission plugin. */
  priorityClasses: PriorityClassSource;
}

const noStoredObjects: StoredObjects = { nodeRegistered: () => false, priorityClasses: { get: () => undefined, list: () => [] } };

/**
 * The pod strategy. A pod bound to no registered node has no kubelet to stop
 * it, and kube's pod garbage collector force-deletes such orphans; here they go at once.
 */
function podStrategy({ nodeRegistered, priorityClasses }: StoredObjects): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    returnsDeletedObject: true,
    applyDefaults: defaultPod,
    // kube's order of mutating plugins: ServiceAccount, DefaultTolerationSeconds, ..., Priority.
    admitCreate(o) {
      admitServiceAccount(o);
      admitDefaultTolerationSeconds(o);
      admitPodPriority(o, priorityClasses);
    },
    prepareForCreate(o) {
      o.status = { phase: 'Pending', qosClass: podQosClass(o.spec) };
      mergeAffinityLabelKeys(o);
    },
    prepareForUpdate: keepPodPriority,
    validate: (o) => validatePodSpec(o.spec, 'spec'),
    // kube's podStrategy.CheckGracefulDelete: a pod on a node gets its grace period
    // (the kubelet deletes it once its containers stopped); others go at once.
    gracePeriod(o, requested) {
      const s = spec(o);
      let period = requested ?? (typeof s.terminationGracePeriodSeconds === 'number' ? s.terminationGracePeriodSeconds : 0);
      const phase = asObj(o.status).phase;
      if (!s.nodeName || !nodeRegistered(String(s.nodeName)) || phase === 'Failed' || phase === 'Succeeded') period = 0;
      return period < 0 ? 1 : period;
    },
    validateUpdate(o, old) {
      const errs = validatePodSpec(o.spec, 'spec');
      if (!sameJson(podSpecSansMutable(spec(o)), podSpecSansMutable(spec(old)))) {
        errs.push(fieldErrors.forbidden('spec', podUpdatableMessage));
      }
      return errs;
    },
  });
}

function serviceStrategy(allocator: ClusterIpAllocator): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    nameValidator: 'label',
    applyDefaults: defaultService,
    // kube's service storage allocates in BeginCreate and BeginUpdate (its allocateCreate and allocateUpdate):
    // cluster IPs, then node ports, read against one snapshot of what is in use.
    beginCreate(o, dryRun) {
      const inUse = allocator.inUse();
      const ips = allocateClusterIpsOnCreate(o, allocator, inUse.ips, dryRun);
      const nodePorts = allocateNodePortsOnCreate(o, allocator, inUse.nodePorts);
      return dryRun ? undefined : allocator.hold({ ips, nodePorts });
    },
    prepareForCreate(o) {
      o.status = { loadBalancer: {} };
    },
    beginUpdate(o, old, dryRun) {
      const inUse = allocator.inUse();
      const ips = allocateClusterIpsOnUpdate(o, old, allocator, inUse.ips, dryRun);
      const nodePorts = allocateNodePortsOnUpdate(o, old, allocator, inUse.nodePorts);
      return dryRun ? undefined : allocator.hold({ ips, nodePorts });
    },
    prepareForUpdate: dropClusterIpFields,
    validate: (o) => validateService(o),
    validateUpdate(o, old) {
      const errs = validateService(o);
      const s = spec(o);
      const os = spec(old);
      if (os.clusterIP && s.clusterIP !== os.clusterIP && s.type !== 'ExternalName') {
        errs.push(invalidGoValue('spec.clusterIPs[0]', goSlice(Array.isArray(s.clusterIPs) ? s.clusterIPs : []), 'may not change once set'));
      }
      if (needsHealthCheckNodePort(old) && needsHealthCheckNodePort(o) && healthCheckNodePortOf(o) !== healthCheckNodePortOf(old)) {
        errs.push(fieldErrors.forbidden('spec.healthCheckNodePort', 'field is immutable'));
      }
      return errs;
    },
  });
}

function validateService(o: KubeObject): FieldError[] {
  const s = spec(o);
  const errs: FieldError[] = [];
  const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
  if (!types.includes(String(s.type))) errs.push(fieldErrors.notSupported('spec.type', s.type, types));
  const ports = Array.isArray(s.ports) ? (s.ports as Json[]) : [];
  if (ports.length === 0 && s.type !== 'ExternalName' && s.clusterIP !== 'None') errs.push(fieldErrors.required('spec.ports', ''));
  ports.forEach((p, i) => {
    if (typeof p.port !== 'number' || p.port < 1 || p.port > 65535) {
      errs.push(fieldErrors.invalid(`spec.ports[${i}].port`, p.port ?? 0, 'must be between 1 and 65535, inclusive'));
    }
    if (ports.length > 1 && !p.name) errs.push(fieldErrors.required(`spec.ports[${i}].name`, ''));
  });
  if (s.type === 'ClusterIP') {
    ports.forEach((p, i) => {
      if (p.nodePort) errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  // One node port per protocol: TCP and UDP may share one.
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (!p.nodePort) return;
    const key = `${String(p.protocol)}/${String(p.nodePort)}`;
    if (nodePorts.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
    nodePorts.add(key);
  });
  // The registry gave a Service that needs a health check port one: only the others are checked.
  if (!needsHealthCheckNodePort(o) && s.healthCheckNodePort) {
    errs.push(fieldErrors.invalid('spec.healthCheckNodePort', s.healthCheckNodePort, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  }
  return errs;
}

/** The namespaces kube never deletes (its NamespaceLifecycle admission keeps them). */
const immortalNamespaces = new Set(['default', 'kube-system', 'kube-public']);

function namespaceStrategy(): Strategy {
  return baseStrategy({
    hasStatusSubresource: true,
    returnsDeletedObject: true,
    nameValidator: 'label',
    beforeDelete(name) {
      if (immortalNamespaces.has(name)) throw forbidden({ group: '', resource: 'namespaces' }, name, 'this namespace may not be deleted');
    },
    prepareForDeletion(o) {
      o.status = { ...(o.status as object), phase: 'Terminating' };
    },
    specFinalizers(o) {
      const f = (o.spec as { finalizers?: unknown } | undefined)?.finalizers;
      return Array.isArray(f) ? (f as string[]) : [];
    },
    applyDefaults: defaultNamespace,
    prepareForCreate(o) {
      // kube's namespace Canonicalize: a generated name gets its label too, once it exists.
      defaultNamespace(o);
      o.spec = { finalizers: ['kubernetes'] };
      o.status = { phase: 'Active' };
    },
    prepareForUpdate(o, old) {
      // spec.finalizers change only through the finalize subresource.
      o.spec = old.spec;
    },
  });
}

function secretStrategy(): Strategy {
  return baseStrategy({
    applyDefaults(o) {
      defaultSecret(o);
      // stringData is write-only: kube merges it into data and drops it.
      const stringData = asObj(o.stringData);
      if (o.stringData !== undefined) {
        const data = asObj(o.data);
        for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v)).toString('base64');
        o.data = data;
        delete o.stringData;
      }
    },
    validate: (o) => validateDataKeys(o, ['data']),
    validateUpdate(o, old) {
      const errs = validateDataKeys(o, ['data']);
      if (old.type !== o.type) errs.push(fieldErrors.invalid('type', o.type, 'field is immutable'));
      if (old.immutable === true && !sameJson(old.data, o.data)) errs.push(fieldErrors.forbidden('data', 'field is immutable when `immutable` is set'));
      return errs;
    },
  });
}

function configMapStrategy(): Strategy {
  return baseStrategy({
    validate: (o) => validateDataKeys(o, ['data', 'binaryData']),
    validateUpdate(o, old) {
      const errs = validateDataKeys(o, ['data', 'binaryData']);
      if (old.immutable === true && (!sameJson(old.data, o.data) || !sameJson(old.binaryData, o.binaryData))) {
        errs.push(fieldErrors.forbidden('data', 'field is immutable when `immutable` is set'));
      }
      return errs;
    },
  });
}

const configKeyPattern = /^[-._a-zA-Z0-9]+$/;

function validateDataKeys(o: KubeObject, fields: string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) {
    for (const key of Object.keys(asObj(o[f]))) {
      if (!configKeyPattern.test(key) || key.length > 253) {
        errs.push(
          fieldErrors.invalid(`${f}[${key}]`, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"),
        );
      }
    }
  }
  return errs;
}

function webhookConfigurationStrategy(mutating: boolean): Strategy {
  return baseStrategy({
    tracksGeneration: true,
    applyDefaults: (o) => defaultWebhookConfiguration(o, mutating),
    // Match conditions are compiled when the configuration is written: CEL first.
    prepareValidation: (o) => loadCelIf(hasMatchConditions(o)),
    validate: (o) => validateWebhookConfiguration(o, mutating),
    validateUpdate: (o, old) => validateWebhookConfigurationUpdate(o, old, mutating),
  });
}

/** ValidatingAdmissionPolicies: validated (enforced by admission/policy), generation tracked, status through its subresource. */
function validatingAdmissionPolicyStrategy(): Strategy {
  return statusSubresourceStrategy({
    applyDefaults: defaultValidatingAdmissionPolicy,
    // Its expressions are compiled when it is written: CEL first.
    prepareValidation: () => loadCelIf(true),
    validate: validateValidatingAdmissionPolicy,
    validateUpdate: validateValidatingAdmissionPolicy,
    subresourceStrategies: {
      status: { prepareForUpdate: (incoming, old) => withStatus(old, incoming.status), validateUpdate: validateValidatingAdmissionPolicyStatus },
    },
  });
}

/** Builds the strategy table, keyed by `<group>/<resource>`. */
export function builtinStrategies(allocator: ClusterIpAllocator, stored: StoredObjects = noStoredObjects): Map<string, Strategy> {
  return new Map<string, Strategy>([
    ['/pods', podStrategy(stored)],
    ['/services', serviceStrategy(allocator)],
    ['/namespaces', namespaceStrategy()],
    ['/secrets', secretStrategy()],
    ['/configmaps', configMapStrategy()],
    // TaintNodesAtCreation: a new Node is not-ready (NoSchedule) until the node lifecycle controller sees it Ready.
    ['/nodes', baseStrategy({ hasStatusSubresource: true, applyDefaults: defaultNode, admitCreate: admitNodeTaints })],
    ['/endpoints', baseStrategy({ allowCreateOnUpdate: true, applyDefaults: defaultEndpoints })],
    ['coordination.k8s.io/leases', baseStrategy({ allowCreateOnUpdate: true })],
    ['apps/deployments', workloadStrategy(defaultDeployment)],
    ['apps/replicasets', workloadStrategy(defaultReplicaSet)],
    ['rbac.authorization.k8s.io/roles', baseStrategy({ nameValidator: 'path-segment' })],
    ['rbac.authorization.k8s.io/clusterroles', baseStrategy({ nameValidator: 'path-segment' })],
    ['rbac.authorization.k8s.io/rolebindings', baseStrategy({ applyDefaults: defaultRoleBinding, nameValidator: 'path-segment' })],
    ['rbac.authorization.k8s.io/clusterrolebindings', baseStrategy({ applyDefaults: defaultRoleBinding, nameValidator: 'path-segment' })],
    ...workloadStrategies(),
    ['policy/poddisruptionbudgets', podDisruptionBudgetStrategy()],
    ...networkingStrategies(),
    ...discoveryStrategies(),
    ['node.k8s.io/runtimeclasses', runtimeClassStrategy()],
    ...storageStrategies(),
    ...corePolicyStrategies(),
    ...flowcontrolStrategies(),
    ['/persistentvolumes', persistentVolumeStrategy()],
    ['autoscaling/horizontalpodautoscalers', horizontalPodAutoscalerStrategy()],
    ['certificates.k8s.io/certificatesigningrequests', certificateSigningRequestStrategy()],
    ['apiregistration.k8s.io/apiservices', apiServiceStrategy()],
    ['apiextensions.k8s.io/customresourcedefinitions', baseStrategy({ tracksGeneration: true, hasStatusSubresource: true })],
    ['admissionregistration.k8s.io/mutatingwebhookconfigurations', webhookConfigurationStrategy(true)],
    ['admissionregistration.k8s.io/validatingwebhookconfigurations', webhookConfigurationStrategy(false)],
    ['admissionregistration.k8s.io/validatingadmissionpolicies', validatingAdmissionPolicyStrategy()],
    [
      'admissionregistration.k8s.io/validatingadmissionpolicybindings',
      baseStrategy({
        tracksGeneration: true,
        applyDefaults: defaultValidatingAdmissionPolicyBinding,
        validate: validateValidatingAdmissionPolicyBinding,
        validateUpdate: validateValidatingAdmissionPolicyBinding,
      }),
    ],
  ]);
}
