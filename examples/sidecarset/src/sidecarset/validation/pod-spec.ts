/**
 * The part of Kubernetes' Pod validation (k8s.io/kubernetes
 * pkg/apis/core/validation) that Kruise runs on a SidecarSet's containers,
 * init containers and volumes by validating them as a pod: names (DNS labels,
 * unique across both lists), images, pull and termination-message policies,
 * ports, environment variable names, volume mounts that name a declared
 * volume, restart policies, and volumes with exactly one source. With kube's
 * paths and words; the deeper checks of each volume source and probe are not
 * repeated here (the API server's schema covers their types).
 */
import type { Container, Volume } from 'kubernetes-types/core/v1.js';
import { fieldErrors, type FieldError } from '@operant/runtime';
import { isDNS1123Label, regexError } from '@operant/apimachinery';

/** The sources a core/v1 Volume may have (k8s.io/api v0.30 VolumeSource). */
const volumeSources = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs',
  'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap',
  'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO', 'storageos', 'csi',
  'ephemeral',
] as const;

const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const protocols = ['SCTP', 'TCP', 'UDP'];

/** Validates the containers, init containers and volumes as kube validates a pod's. */
export function validatePodParts(parts: { containers?: Container[]; initContainers?: Container[]; volumes?: Volume[] }): FieldError[] {
  const { names: volumeNames, errs } = validateVolumes(parts.volumes ?? [], 'spec.volumes');
  errs.push(...validateContainers(parts.containers ?? [], volumeNames, 'spec.containers'));
  errs.push(...validateInitContainers(parts.initContainers ?? [], parts.containers ?? [], volumeNames, 'spec.initContainers'));
  return errs;
}

function validateVolumes(volumes: Volume[], path: string): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  volumes.forEach((v, i) => {
    const at = `${path}[${i}]`;
    const sources = volumeSources.filter((s) => v[s] !== undefined && v[s] !== null);
    if (sources.length === 0) errs.push(fieldErrors.required(at, 'must specify a volume type'));
    for (const extra of sources.slice(1)) errs.push(fieldErrors.forbidden(`${at}.${extra}`, 'may not specify more than 1 volume type'));
    if (v.hostPath && !v.hostPath.path) errs.push(fieldErrors.required(`${at}.hostPath.path`, ''));
    if (!v.name) errs.push(fieldErrors.required(`${at}.name`, ''));
    else for (const msg of isDNS1123Label(v.name)) errs.push(fieldErrors.invalid(`${at}.name`, v.name, msg));
    if (names.has(v.name)) errs.push(fieldErrors.duplicate(`${at}.name`, v.name));
    names.add(v.name);
  });
  return { names, errs };
}

function validateContainers(containers: Container[], volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, at));
    if (names.has(c.name)) errs.push(fieldErrors.duplicate(`${at}.name`, c.name));
    names.add(c.name);
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) errs.push(fieldErrors.forbidden(`${at}.restartPolicy`, 'may not be set for non-init containers'));
  });
  return errs;
}

function validateInitContainers(inits: Container[], containers: Container[], volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(containers.map((c) => c.name));
  inits.forEach((c, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, volumes, at));
    if (names.has(c.name)) errs.push(fieldErrors.duplicate(`${at}.name`, c.name));
    names.add(c.name);
    const nativeSidecar = c.restartPolicy === 'Always';
    if (c.restartPolicy !== undefined && c.restartPolicy !== null && !nativeSidecar) {
      errs.push(fieldErrors.notSupported(`${at}.restartPolicy`, c.restartPolicy, ['Always']));
    }
    if (!nativeSidecar) {
      for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
        if (c[field]) errs.push(fieldErrors.forbidden(`${at}.${field}`, 'may not be set for init containers without restartPolicy=Always'));
      }
    }
  });
  return errs;
}

function validateContainerCommon(c: Container, volumes: Set<string>, at: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fieldErrors.required(`${at}.name`, ''));
  else for (const msg of isDNS1123Label(c.name)) errs.push(fieldErrors.invalid(`${at}.name`, c.name, msg));
  if (!c.image) errs.push(fieldErrors.required(`${at}.image`, ''));
  switch (c.terminationMessagePolicy ?? '') {
    case 'File':
    case 'FallbackToLogsOnError':
      break;
    case '':
      errs.push(fieldErrors.required(`${at}.terminationMessagePolicy`, "must be 'File' or 'FallbackToLogsOnError'"));
      break;
    default:
      errs.push(fieldErrors.invalid(`${at}.terminationMessagePolicy`, c.terminationMessagePolicy, "must be 'File' or 'FallbackToLogsOnError'"));
  }
  errs.push(...validatePorts(c, `${at}.ports`));
  (c.env ?? []).forEach((e, i) => {
    if (!e.name) errs.push(fieldErrors.required(`${at}.env[${i}].name`, ''));
    else for (const msg of envVarNameErrors(e.name)) errs.push(fieldErrors.invalid(`${at}.env[${i}].name`, e.name, msg));
  });
  errs.push(...validateVolumeMounts(c, volumes, `${at}.volumeMounts`));
  if (!c.imagePullPolicy) errs.push(fieldErrors.required(`${at}.imagePullPolicy`, ''));
  else if (!pullPolicies.includes(c.imagePullPolicy)) errs.push(fieldErrors.notSupported(`${at}.imagePullPolicy`, c.imagePullPolicy, pullPolicies));
  return errs;
}

function validatePorts(c: Container, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (c.ports ?? []).forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (p.name) {
      const msgs = portNameErrors(p.name);
      for (const msg of msgs) errs.push(fieldErrors.invalid(`${at}.name`, p.name, msg));
      if (msgs.length === 0 && names.has(p.name)) errs.push(fieldErrors.duplicate(`${at}.name`, p.name));
      names.add(p.name);
    }
    if (!p.containerPort) errs.push(fieldErrors.required(`${at}.containerPort`, ''));
    else if (!validPort(p.containerPort)) errs.push(fieldErrors.invalid(`${at}.containerPort`, p.containerPort, portRange));
    if (p.hostPort && !validPort(p.hostPort)) errs.push(fieldErrors.invalid(`${at}.hostPort`, p.hostPort, portRange));
    if (!p.protocol) errs.push(fieldErrors.required(`${at}.protocol`, ''));
    else if (!protocols.includes(p.protocol)) errs.push(fieldErrors.notSupported(`${at}.protocol`, p.protocol, protocols));
  });
  return errs;
}

function validateVolumeMounts(c: Container, volumes: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const at = `${path}[${i}]`;
    if (!m.name) errs.push(fieldErrors.required(`${at}.name`, ''));
    // kube says `Not found: "<name>"` (field.NotFound); the runtime's fieldErrors has no notFound (see the README).
    if (!volumes.has(m.name)) errs.push(fieldErrors.invalid(`${at}.name`, m.name, 'not found'));
    if (!m.mountPath) errs.push(fieldErrors.required(`${at}.mountPath`, ''));
    if (mountPaths.has(m.mountPath)) errs.push(fieldErrors.invalid(`${at}.mountPath`, m.mountPath, 'must be unique'));
    mountPaths.add(m.mountPath);
  });
  return errs;
}

const portRange = 'must be between 1 and 65535, inclusive';

function validPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** validation.IsValidPortName (an IANA service name). */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

const envVarNameFmt = '[-._a-zA-Z][-._a-zA-Z0-9]*';

/** validation.IsEnvVarName. */
function envVarNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (!new RegExp(`^${envVarNameFmt}$`).test(name)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        envVarNameFmt,
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    );
  }
  if (name === '.') errs.push("must not be '.'");
  else if (name === '..') errs.push("must not be '..'");
  else if (name.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}
