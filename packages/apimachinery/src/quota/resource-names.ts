/**
 * kube's classification of resource names (pkg/apis/core/helper), shared by
 * the server's container validation and the quota evaluators so that both
 * call the same names extended.
 */
import { isQualifiedName } from '../validation/names.js';

/**
 * Whether `name` is kube's own: unprefixed (`cpu`), or in a `kubernetes.io/`
 * domain (kube's IsNativeResource).
 *
 * @example
 * isNativeResourceName('cpu'); // true
 * isNativeResourceName('example.com/gpu'); // false
 */
export function isNativeResourceName(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/**
 * Whether `name` is an extended resource (kube's IsExtendedResourceName): not
 * native, not `requests.`-prefixed, and still a qualified name as the
 * `requests.<name>` a quota tracks it under.
 *
 * @example
 * isExtendedResourceName('example.com/gpu'); // true
 * isExtendedResourceName('kubernetes.io/something'); // false
 * isExtendedResourceName('requests.example.com/gpu'); // false
 */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResourceName(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}
