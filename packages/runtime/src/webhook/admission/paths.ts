/**
 * The paths controller-runtime serves typed webhooks on, so that generated
 * webhook configurations and the server agree:
 * `/mutate-<group with dots as dashes>-<version>-<lowercase kind>` and `/validate-...`.
 */

/**
 * What a path is made of: a group, version and kind (a `Kind` value fits).
 *
 * @example
 * ```ts
 * import { type PathKind, validatePath } from '@operant/runtime';
 *
 * const kind: PathKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
 * validatePath(kind); // '/validate-apps-v1-deployment'
 * ```
 */
export interface PathKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * `/mutate-apps-kruise-io-v1alpha1-sidecarset`; `/mutate--v1-pod` for the core group, as controller-runtime makes them.
 *
 * @example
 * ```ts
 * import { defaulter, Deployment, mutatePath } from '@operant/runtime';
 *
 * mutatePath(Deployment); // '/mutate-apps-v1-deployment'
 * mgr.webhookServer.register(mutatePath(Deployment), defaulter(Deployment, { default: (d) => void (d.metadata.labels ??= {}) }));
 * ```
 */
export function mutatePath(kind: PathKind): string {
  return webhookPath('mutate', kind);
}

/**
 * `/validate-apps-kruise-io-v1alpha1-sidecarset`.
 *
 * @example
 * ```ts
 * import { Deployment, validatePath, validator } from '@operant/runtime';
 *
 * validatePath(Deployment); // '/validate-apps-v1-deployment'
 * mgr.webhookServer.register(validatePath(Deployment), validator(Deployment, { validateDelete: () => ['deleting a deployment stops its pods'] }));
 * ```
 */
export function validatePath(kind: PathKind): string {
  return webhookPath('validate', kind);
}

/**
 * The path of a mutating or validating webhook for a kind.
 *
 * @example
 * ```ts
 * import { webhookPath } from '@operant/runtime';
 *
 * webhookPath('mutate', { group: '', version: 'v1', kind: 'Pod' }); // '/mutate--v1-pod'
 * ```
 */
export function webhookPath(type: 'mutate' | 'validate', kind: PathKind): string {
  return `/${type}-${kind.group.replaceAll('.', '-')}-${kind.version}-${kind.kind.toLowerCase()}`;
}
