/**
 * Names in a scaffolded project, checked as kubebuilder checks them: an API
 * group is a DNS-1123 subdomain, a version is v1, v1alpha1 or v2beta3, a kind
 * is PascalCase; and the file names, plurals and API groups derived from them.
 */
import { pluralize } from '@operant/codegen';
import { ScaffoldError } from './project-files.js';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const VERSION = /^v\d+(?:alpha\d+|beta\d+)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;

export function validateDomain(domain: string): void {
  if (!DNS1123_SUBDOMAIN.test(domain) || domain.length > 253) {
    throw new ScaffoldError(`--domain ${JSON.stringify(domain)}: a domain must be a DNS-1123 subdomain (lower case letters, digits, '-' and '.'), e.g. kruise.io`);
  }
}

export function validateProjectName(name: string): void {
  if (!DNS1123_LABEL.test(name) || name.length > 63) {
    throw new ScaffoldError(`project name ${JSON.stringify(name)} is invalid: it must be a DNS-1123 label (lower case letters, digits and '-'); pass --project-name`);
  }
}

export function validateGroup(group: string): void {
  if (!DNS1123_SUBDOMAIN.test(group)) {
    throw new ScaffoldError(`--group ${JSON.stringify(group)}: a group must be a DNS-1123 subdomain (lower case letters, digits, '-' and '.')`);
  }
}

export function validateVersion(version: string): void {
  if (!VERSION.test(version)) {
    throw new ScaffoldError(`--version ${JSON.stringify(version)}: a version must match ^v\\d+(?:alpha\\d+|beta\\d+)?$, e.g. v1, v1alpha1, v2beta1`);
  }
}

export function validateKind(kind: string): void {
  if (!KIND.test(kind)) throw new ScaffoldError(`--kind ${JSON.stringify(kind)}: a kind must be PascalCase (start with an upper case letter; letters and digits), e.g. SidecarSet`);
}

/** A kind in file names: lower case, as kubebuilder writes sidecarset_types.go (here sidecarset-types.ts). */
export function kindFileName(kind: string): string {
  return kind.toLowerCase();
}

export function pluralOf(kind: string): string {
  return pluralize(kind.toLowerCase());
}

/** Kubernetes' own API groups by their short name, as kubebuilder knows them for `--resource=false`. */
const builtinGroups: Record<string, string> = {
  core: '',
  admissionregistration: 'admissionregistration.k8s.io',
  apps: 'apps',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  autoscaling: 'autoscaling',
  batch: 'batch',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
};

export function isBuiltinGroup(group: string): boolean {
  return group in builtinGroups;
}

/** The full API group: a built-in group's, or `<group>.<domain>` for the project's own. */
export function qualifiedGroup(group: string, domain: string, ownResource: boolean): string {
  if (!ownResource && group in builtinGroups) return builtinGroups[group];
  return domain ? `${group}.${domain}` : group;
}

/** The Go package alias kubebuilder would use, for PROJECT: `apps` + `v1alpha1` -> `appsv1alpha1`. */
export function importAlias(group: string, version: string): string {
  return `${group.replace(/[.-]/g, '')}${version}`;
}
