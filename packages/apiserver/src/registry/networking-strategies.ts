/**
 * The strategies of networking.k8s.io/v1 Ingresses, IngressClasses and
 * NetworkPolicies (pkg/registry/networking/*\/strategy.go) with the checks of
 * pkg/apis/networking/validation that users hit, in kube's words.
 */
import { fieldErrors, isDNS1035Label, isDNS1123Subdomain, type FieldError, type KubeObject } from '@operant/apimachinery';
import { baseStrategy, statusSubresourceStrategy, type Strategy } from './strategy.js';
import { validateImmutableField } from './immutable-field.js';
import { defaultIngressClass, defaultNetworkPolicy } from './defaults/networking.js';
import { validateLabelSelector } from './label-selector-validation.js';
import { hostProblems, isValidPortName, isValidPortNum } from './network-names.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(asObj) : []);

// ---------------------------------------------------------------------------
// Ingress

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];

/** kube's validateIngressBackend. */
function validateBackend(backend: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const service = backend.service === undefined ? undefined : asObj(backend.service);
  const resource = backend.resource === undefined ? undefined : asObj(backend.resource);
  if (service && resource) return [fieldErrors.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) {
    if (!resource.kind) errs.push(fieldErrors.required(`${path}.resource.kind`, ''));
    if (!resource.name) errs.push(fieldErrors.required(`${path}.resource.name`, ''));
    return errs;
  }
  if (!service) return [fieldErrors.invalid(path, '', 'resource or service backend is required')];
  const name = typeof service.name === 'string' ? service.name : '';
  if (name === '') errs.push(fieldErrors.required(`${path}.service.name`, ''));
  else for (const msg of isDNS1035Label(name)) errs.push(fieldErrors.invalid(`${path}.service.name`, name, msg));
  const port = asObj(service.port);
  const portName = typeof port.name === 'string' ? port.name : '';
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName && portNumber) errs.push(fieldErrors.invalid(path, '', 'cannot set both port name & port number'));
  else if (portName) for (const msg of isValidPortName(portName)) errs.push(fieldErrors.invalid(`${path}.service.port.name`, portName, msg));
  else if (portNumber) for (const msg of isValidPortNum(portNumber)) errs.push(fieldErrors.invalid(`${path}.service.port.number`, portNumber, msg));
  else errs.push(fieldErrors.required(path, 'port name or number is required'));
  return errs;
}

/** kube's validateHTTPIngressPath. */
function validatePath(p: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const value = typeof p.path === 'string' ? p.path : '';
  if (p.pathType === undefined || p.pathType === null) return [fieldErrors.required(`${path}.pathType`, 'pathType must be specified')];
  switch (p.pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, value, 'must be an absolute path'));
      if (value.length > 0) {
        for (const seq of invalidPathSequences) if (value.includes(seq)) errs.push(fieldErrors.invalid(`${path}.path`, value, `must not contain '${seq}'`));
        for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errs.push(fieldErrors.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value.length > 0 && !value.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.pathType`, p.pathType, pathTypes));
  }
  errs.push(...validateBackend(asObj(p.backend), `${path}.backend`));
  return errs;
}

function validateIngress(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs: FieldError[] = [];
  const rules = list(spec.rules);
  if (rules.length === 0 && spec.defaultBackend === undefined) {
    errs.push(fieldErrors.invalid('spec', spec.rules ?? null, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (spec.defaultBackend !== undefined) errs.push(...validateBackend(asObj(spec.defaultBackend), 'spec.defaultBackend'));
  rules.forEach((rule, i) => {
    const host = typeof rule.host === 'string' ? rule.host : '';
    if (host) for (const msg of hostProblems(host)) errs.push(fieldErrors.invalid(`spec.rules[${i}].host`, host, msg));
    if (rule.http === undefined) return;
    const paths = list(asObj(rule.http).paths);
    if (paths.length === 0) errs.push(fieldErrors.required(`spec.rules[${i}].http.paths`, ''));
    paths.forEach((p, j) => errs.push(...validatePath(p, `spec.rules[${i}].http.paths[${j}]`)));
  });
  list(spec.tls).forEach((tls, i) => {
    (Array.isArray(tls.hosts) ? (tls.hosts as unknown[]) : []).forEach((host, j) => {
      for (const msg of hostProblems(String(host))) errs.push(fieldErrors.invalid(`spec.tls[${i}].hosts[${j}]`, host, msg));
    });
  });
  if (typeof spec.ingressClassName === 'string') {
    for (const msg of isDNS1123Subdomain(spec.ingressClassName)) errs.push(fieldErrors.invalid('spec.ingressClassName', spec.ingressClassName, msg));
  }
  return errs;
}

// ---------------------------------------------------------------------------
// IngressClass

/** kube's IsDomainPrefixedPath (`example.com/ingress-controller`). */
function validateController(controller: unknown, path: string): FieldError[] {
  const value = typeof controller === 'string' ? controller : '';
  if (value === '') return [fieldErrors.required(path, '')];
  if (value.length > 250) return [fieldErrors.tooLong(path, value, 250)];
  const slash = value.indexOf('/');
  if (slash < 0) return [fieldErrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  return isDNS1123Subdomain(value.slice(0, slash)).map((msg) => fieldErrors.invalid(path, value.slice(0, slash), msg));
}

function validateIngressClass(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs = validateController(spec.controller, 'spec.controller');
  if (spec.parameters !== undefined) {
    const params = asObj(spec.parameters);
    const at = 'spec.parameters';
    if (!params.kind) errs.push(fieldErrors.required(`${at}.kind`, ''));
    if (!params.name) errs.push(fieldErrors.required(`${at}.name`, ''));
    const scopes = ['Cluster', 'Namespace'];
    if (!scopes.includes(String(params.scope))) errs.push(fieldErrors.notSupported(`${at}.scope`, params.scope, scopes));
    if (params.scope === 'Namespace' && !params.namespace) errs.push(fieldErrors.required(`${at}.namespace`, '`parameters.scope` is set to \'Namespace\''));
    if (params.scope === 'Cluster' && params.namespace) {
      errs.push(fieldErrors.forbidden(`${at}.namespace`, '`parameters.scope` is set to \'Cluster\''));
    }
  }
  return errs;
}

// ---------------------------------------------------------------------------
// NetworkPolicy

const protocols = ['TCP', 'UDP', 'SCTP'];

function validatePolicyPort(port: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && !protocols.includes(String(port.protocol))) errs.push(fieldErrors.notSupported(`${path}.protocol`, port.protocol, protocols));
  if (typeof port.port === 'number') {
    for (const msg of isValidPortNum(port.port)) errs.push(fieldErrors.invalid(`${path}.port`, port.port, msg));
    if (typeof port.endPort === 'number') {
      if (port.endPort < port.port) errs.push(fieldErrors.invalid(`${path}.endPort`, port.endPort, 'must be greater than or equal to `port`'));
      for (const msg of isValidPortNum(port.endPort)) errs.push(fieldErrors.invalid(`${path}.endPort`, port.endPort, msg));
    }
  } else if (typeof port.port === 'string') {
    if (port.endPort !== undefined) errs.push(fieldErrors.forbidden(`${path}.endPort`, 'may not be specified when `port` is non-numeric'));
    for (const msg of isValidPortName(port.port)) errs.push(fieldErrors.invalid(`${path}.port`, port.port, msg));
  } else if (port.endPort !== undefined) {
    errs.push(fieldErrors.required(`${path}.port`, 'must be specified when `endPort` is specified'));
  }
  return errs;
}

function validatePeer(peer: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const present = ['podSelector', 'namespaceSelector', 'ipBlock'].filter((k) => peer[k] !== undefined && peer[k] !== null);
  if (present.length === 0) return [fieldErrors.required(path, 'must specify a peer')];
  if (present.includes('ipBlock') && present.length > 1) return [fieldErrors.forbidden(path, 'may not specify both ipBlock and another peer')];
  if (peer.podSelector !== undefined) errs.push(...validateLabelSelector(peer.podSelector, `${path}.podSelector`));
  if (peer.namespaceSelector !== undefined) errs.push(...validateLabelSelector(peer.namespaceSelector, `${path}.namespaceSelector`));
  if (peer.ipBlock !== undefined && !asObj(peer.ipBlock).cidr) errs.push(fieldErrors.required(`${path}.ipBlock.cidr`, ''));
  return errs;
}

function validateNetworkPolicy(o: KubeObject): FieldError[] {
  const spec = asObj(o.spec);
  const errs = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  for (const [direction, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    list(spec[direction]).forEach((rule, i) => {
      list(rule.ports).forEach((port, j) => errs.push(...validatePolicyPort(port, `spec.${direction}[${i}].ports[${j}]`)));
      list(rule[peers]).forEach((peer, j) => errs.push(...validatePeer(peer, `spec.${direction}[${i}].${peers}[${j}]`)));
    });
  }
  const types = Array.isArray(spec.policyTypes) ? (spec.policyTypes as unknown[]) : [];
  const allowed = ['Ingress', 'Egress'];
  types.forEach((t, i) => {
    if (!allowed.includes(String(t))) errs.push(fieldErrors.notSupported(`spec.policyTypes[${i}]`, t, allowed));
  });
  if (types.length > allowed.length) errs.push(fieldErrors.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  return errs;
}

/** The networking.k8s.io/v1 strategies, keyed `group/resource`. */
export function networkingStrategies(): Array<[string, Strategy]> {
  return [
    [
      'networking.k8s.io/ingresses',
      statusSubresourceStrategy({
        validate: validateIngress,
        validateUpdate: validateIngress,
      }),
    ],
    [
      'networking.k8s.io/ingressclasses',
      baseStrategy({
        tracksGeneration: true,
        applyDefaults: defaultIngressClass,
        validate: validateIngressClass,
        validateUpdate(o, old) {
          return [...validateIngressClass(o), ...validateImmutableField(asObj(o.spec).controller, asObj(old.spec).controller, 'spec.controller')];
        },
      }),
    ],
    [
      'networking.k8s.io/networkpolicies',
      baseStrategy({ tracksGeneration: true, applyDefaults: defaultNetworkPolicy, validate: validateNetworkPolicy, validateUpdate: validateNetworkPolicy }),
    ],
  ];
}
