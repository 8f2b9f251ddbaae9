/**
 * The k8s.io/apimachinery/pkg/util/validation checks networking objects use
 * (port names and numbers, wildcard hosts), with kube's wording.
 */
import { isIP } from 'node:net';
import { isDNS1123Subdomain, maxLenError, regexError } from '@operant/apimachinery';

/** kube's IsValidPortNum. */
export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** kube's IsValidPortName (an IANA_SVC_NAME). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

const wildcardSubdomainFmt = '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
const wildcardSubdomainRegexp = new RegExp(`^${wildcardSubdomainFmt}$`);

/** kube's IsWildcardDNS1123Subdomain (`*.example.com`). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!wildcardSubdomainRegexp.test(value)) {
    errs.push(
      regexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        wildcardSubdomainFmt,
        '*.example.com',
      ),
    );
  }
  return errs;
}

/** A host of an Ingress rule: a DNS subdomain, or a wildcard one (with a `*`); never an IP address. */
export function hostProblems(host: string): string[] {
  const errs = isIP(host) !== 0 ? ['must be a DNS name, not an IP address'] : [];
  errs.push(...(host.includes('*') ? isWildcardDNS1123Subdomain(host) : isDNS1123Subdomain(host)));
  return errs;
}
