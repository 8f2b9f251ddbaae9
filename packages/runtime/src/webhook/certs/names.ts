/** The names a webhook serving certificate must carry. */

/**
 * A Service the API server reaches the webhook through (`clientConfig.service`).
 *
 * @example
 * ```ts
 * import type { ServiceName } from '@operant/runtime';
 *
 * const service: ServiceName = { name: 'sidecarset-webhook', namespace: 'kruise-system' };
 * ```
 */
export interface ServiceName {
  readonly name: string;
  readonly namespace: string;
}

/** The DNS names clients use for local runs. */
export const defaultDnsNames: readonly string[] = ['localhost'];
/** The loopback addresses, IPv4 and IPv6. */
export const defaultIpAddresses: readonly string[] = ['127.0.0.1', '::1'];

/**
 * The DNS names of a Service, from the short name to the fully qualified one.
 * kube-apiserver dials `<svc>.<ns>.svc`; the others serve clients inside the cluster.
 *
 * @example
 * ```ts
 * import { serviceDnsNames } from '@operant/runtime';
 *
 * serviceDnsNames({ name: 'webhook', namespace: 'system' });
 * // ['webhook', 'webhook.system', 'webhook.system.svc', 'webhook.system.svc.cluster.local']
 * ```
 */
export function serviceDnsNames(service: ServiceName, clusterDomain = 'cluster.local'): string[] {
  const { name, namespace } = service;
  return [name, `${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.${clusterDomain}`];
}

/** The names a certificate is issued for: the Service's first, then the others, without repeats. */
export function certificateNames(options: { dnsNames?: readonly string[]; ipAddresses?: readonly string[]; service?: ServiceName }): {
  dnsNames: string[];
  ipAddresses: string[];
} {
  const dns = [...(options.service ? serviceDnsNames(options.service) : []), ...(options.dnsNames ?? defaultDnsNames)];
  return { dnsNames: [...new Set(dns)], ipAddresses: [...new Set(options.ipAddresses ?? defaultIpAddresses)] };
}
