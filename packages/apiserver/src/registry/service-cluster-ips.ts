/**
 * Cluster IPs of Services, allocated as kube's service registry allocates
 * them (pkg/registry/core/service/storage/alloc.go: initIPFamilyFields,
 * allocClusterIPs, updateClusterIPs) in its BeginCreate and BeginUpdate,
 * after the mutating webhooks and before validation: the address asked for
 * when it is in the service CIDR and free, else the next free one. The
 * cluster is single-stack IPv4, as kube-apiserver with one
 * --service-cluster-ip-range.
 *
 * - Headless (`None`) and ExternalName Services take nothing; a headless
 *   Service without a selector is RequireDualStack with both families, as
 *   kube makes it on any cluster.
 * - An update keeps the address it leaves out (patchAllocatedValues); one
 *   from ExternalName allocates as a create; one to ExternalName drops the
 *   address it did not change (dropTypeDependentFields), which frees it once
 *   stored.
 * - An address asked for outside the range or held elsewhere is kube's 422 on
 *   `spec.clusterIPs` (`Invalid value: []string{"10.96.0.10"}: failed to
 *   allocate IP 10.96.0.10: provided IP is already allocated`); a full range is
 *   its 500 (`failed to allocate a serviceIP: range is full`).
 * - A dry run checks an address asked for against the range only and answers
 *   the range's network address for one it would allocate, as kube's dry-run
 *   allocator does.
 */
import { fieldErrors, internalError, invalid, type FieldError, type KubeObject } from '@operant/apimachinery';
import { goSlice, invalidGoValue } from '../admission/configuration.js';
import { parseIpv4, type ClusterIpAllocator } from './cluster-ip.js';
import { asObj } from './defaults/json-fields.js';

type Json = Record<string, unknown>;

const none = 'None';
/** The characters of an IPv6 address (this single-stack cluster only needs to tell one apart to refuse it). */
const ipv6Chars = /^[0-9a-fA-F:.]+$/;

function clusterIpsOf(s: Json): string[] {
  return Array.isArray(s.clusterIPs) ? s.clusterIPs.map(String) : [];
}
const clusterIpOf = (s: Json): string => (typeof s.clusterIP === 'string' ? s.clusterIP : '');
const needsClusterIp = (s: Json): boolean => s.type !== 'ExternalName';
const hasSelector = (s: Json): boolean => Object.keys(asObj(s.selector)).length > 0;
const sameList = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** The family of an address valid as an IP; undefined for anything else. */
function familyOf(ip: string): 'IPv4' | 'IPv6' | undefined {
  if (parseIpv4(ip) !== undefined) return 'IPv4';
  return ip.includes(':') && ipv6Chars.test(ip) ? 'IPv6' : undefined;
}

/**
 * Fills in and checks the cluster IP of a Service being created (kube's
 * normalizeClusterIPs, initIPFamilyFields and allocClusterIPs); returns the
 * addresses it took (none on a dry run). `inUse` holds the addresses taken
 * elsewhere.
 */
export function allocateClusterIpsOnCreate(service: KubeObject, allocator: ClusterIpAllocator, inUse: ReadonlySet<string>, dryRun: boolean): string[] {
  const s = asObj(service.spec);
  if (clusterIpOf(s) !== '' && clusterIpsOf(s).length === 0) s.clusterIPs = [s.clusterIP];
  const needsAddress = initIpFamilies(service, undefined);
  // clusterIPs after the IP families, the key order stored Services (and the precomputed bootstrap objects) have.
  if (s.clusterIPs !== undefined) {
    const ips = s.clusterIPs;
    delete s.clusterIPs;
    s.clusterIPs = ips;
  }
  return needsAddress ? allocate(service, allocator, inUse, dryRun) : [];
}

/**
 * Keeps, fills in and checks the cluster IP of a Service being updated
 * (kube's patchAllocatedValues, normalizeClusterIPs, initIPFamilyFields and
 * updateClusterIPs); returns the addresses it took.
 */
export function allocateClusterIpsOnUpdate(service: KubeObject, old: KubeObject, allocator: ClusterIpAllocator, inUse: ReadonlySet<string>, dryRun: boolean): string[] {
  const s = asObj(service.spec);
  const os = asObj(old.spec);
  if (needsClusterIp(os) && needsClusterIp(s)) {
    if (clusterIpOf(s) === '' && os.clusterIP !== undefined) s.clusterIP = os.clusterIP;
    if (clusterIpsOf(s).length === 0 && clusterIpsOf(os).length > 0) s.clusterIPs = os.clusterIPs;
  }
  normalizeOnUpdate(s, os);
  if (!initIpFamilies(service, old)) return [];
  // Only a Service that had no address gets one on an update (single-stack: no upgrade to a second family).
  return needsClusterIp(os) ? [] : allocate(service, allocator, inUse, dryRun);
}

/**
 * kube's dropTypeDependentFields for the cluster IP: a Service that becomes
 * ExternalName loses the address and IP families it did not change, which
 * frees the address once stored. Runs in prepareForUpdate.
 */
export function dropClusterIpFields(service: KubeObject, old: KubeObject): void {
  const s = asObj(service.spec);
  const os = asObj(old.spec);
  if (!needsClusterIp(os) || needsClusterIp(s)) return;
  if (sameList(clusterIpsOf(os), clusterIpsOf(s))) {
    delete s.clusterIP;
    delete s.clusterIPs;
  }
  if (sameList(os.ipFamilies, s.ipFamilies)) delete s.ipFamilies;
  if (os.ipFamilyPolicy === s.ipFamilyPolicy) delete s.ipFamilyPolicy;
}

/** kube's normalizeClusterIPs on an update: keeps clusterIPs in step with a clusterIP set or cleared alone. */
function normalizeOnUpdate(s: Json, os: Json): void {
  const oldIps = clusterIpsOf(os);
  if (oldIps.length > 0 && clusterIpsOf(s).length === 0 && clusterIpOf(os) === clusterIpOf(s)) s.clusterIPs = os.clusterIPs;
  if (clusterIpOf(os) === clusterIpOf(s) || !sameList(oldIps, clusterIpsOf(s))) return;
  if (clusterIpOf(os) !== '' && clusterIpOf(s) === '') delete s.clusterIPs;
  else s.clusterIPs = [s.clusterIP];
}

/**
 * kube's initIPFamilyFields on a single-stack IPv4 cluster: defaults
 * ipFamilyPolicy and ipFamilies and refuses what the cluster cannot serve.
 * Returns whether the Service needs an address (not ExternalName nor headless).
 */
function initIpFamilies(service: KubeObject, old: KubeObject | undefined): boolean {
  const s = asObj(service.spec);
  if (!needsClusterIp(s)) return false;
  const ips = clusterIpsOf(s);
  const headlessSelectorless = clusterIpOf(s) === none && !hasSelector(s);
  if (s.ipFamilyPolicy === undefined || s.ipFamilyPolicy === null) {
    const oldPolicy = old ? asObj(old.spec).ipFamilyPolicy : undefined;
    s.ipFamilyPolicy = oldPolicy ?? (headlessSelectorless ? 'RequireDualStack' : 'SingleStack');
  }
  const name = service.metadata.name ?? '';
  const loose = clusterIpErrors(s);
  if (loose.length) throw invalid('', 'Service', name, loose);
  const families: unknown[] = Array.isArray(s.ipFamilies) ? [...(s.ipFamilies as unknown[])] : [];
  const errs: FieldError[] = [];
  if (s.ipFamilyPolicy === 'SingleStack') {
    if (ips.length === 2) errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (families.length === 2) errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  for (const [i, ip] of ips.entries()) {
    if (ip === none) break;
    if (i < families.length) continue;
    const family = familyOf(ip);
    if (family === 'IPv4') families.push(family);
    else errs.push(invalidGoValue(`spec.clusterIPs[${i}]`, goSlice(ips), `${family ?? 'unknown'} is not configured on this cluster`));
  }
  if (errs.length) throw invalid('', 'Service', name, errs);
  if (headlessSelectorless) {
    if (families.length === 0) families.push('IPv4');
    if (families.length < 2 && s.ipFamilyPolicy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    s.ipFamilies = families;
    return false;
  }
  if (s.ipFamilyPolicy === 'RequireDualStack') errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', s.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  families.forEach((family, i) => {
    if (family !== 'IPv4') errs.push(fieldErrors.invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
  });
  if (errs.length) throw invalid('', 'Service', name, errs);
  s.ipFamilies = families.length ? families : ['IPv4'];
  return ips[0] !== none;
}

/** The loose checks kube makes before allocating (ValidateServiceClusterIPsRelatedFields, in part). */
function clusterIpErrors(s: Json): FieldError[] {
  const errs: FieldError[] = [];
  const ips = clusterIpsOf(s);
  if (clusterIpOf(s) !== '') {
    if (ips.length === 0) errs.push(fieldErrors.required('spec.clusterIPs'));
    else if (ips[0] !== s.clusterIP) errs.push(invalidGoValue('spec.clusterIPs', goSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) errs.push(invalidGoValue('spec.clusterIPs', goSlice(ips), 'must be empty when `clusterIP` is not specified'));
  ips.forEach((ip, i) => {
    if (i === 0 && ip === none) {
      if (ips.length > 1) errs.push(invalidGoValue('spec.clusterIPs', goSlice(ips), "'None' must be the first and only value"));
      return;
    }
    if (!familyOf(ip)) errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
  });
  if (ips.length > 2) errs.push(invalidGoValue('spec.clusterIPs', goSlice(ips), 'may only hold up to 2 values'));
  return errs;
}

/** Whether `service` is kube-apiserver's own `kubernetes` Service asking for the address kept for it. */
function isKubernetesServiceAt(service: KubeObject, ip: string, allocator: ClusterIpAllocator): boolean {
  return ip === allocator.kubernetesServiceIp && service.metadata.namespace === 'default' && service.metadata.name === 'kubernetes';
}

/** kube's allocClusterIPs for the one family: the address asked for, or the next free one. */
function allocate(service: KubeObject, allocator: ClusterIpAllocator, inUse: ReadonlySet<string>, dryRun: boolean): string[] {
  const s = asObj(service.spec);
  const ips = clusterIpsOf(s);
  const requested = ips[0] ?? '';
  let ip: string;
  if (requested === '') {
    const next = dryRun ? allocator.serviceCidr.networkAddress : allocator.nextIp(inUse);
    if (next === undefined) throw internalError('failed to allocate a serviceIP: range is full');
    ip = next;
  } else {
    const refuse = (why: string): never => {
      throw invalid('', 'Service', service.metadata.name ?? '', [invalidGoValue('spec.clusterIPs', goSlice(ips), `failed to allocate IP ${requested}: ${why}`)]);
    };
    const cidr = allocator.serviceCidr;
    if (cidr.offsetOf(requested) === undefined) refuse(`the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${cidr.cidr}`);
    if (!dryRun && inUse.has(requested) && !isKubernetesServiceAt(service, requested, allocator)) refuse('provided IP is already allocated');
    ip = requested;
  }
  s.clusterIPs = [ip, ...ips.slice(1)];
  s.clusterIP = ip;
  return dryRun ? [] : [ip];
}
