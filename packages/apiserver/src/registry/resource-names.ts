/**
 * kube's checks of a resource name given for a container
 * (pkg/apis/core/validation's ValidateContainerResourceName, with the
 * helpers of pkg/apis/core/helper): a qualified name; unprefixed, one of the
 * standard container resources (cpu, memory, ephemeral-storage, hugepages-*);
 * prefixed, a kubernetes.io one or an extended resource.
 */
import { fieldErrors, isQualifiedName, type FieldError } from '@operant/apimachinery';
import { isExtendedResourceName, isNativeResourceName } from '@operant/apimachinery/quota';

const standardContainerResources = new Set(['cpu', 'memory', 'ephemeral-storage']);
/** kube's standardResources: what an unprefixed resource name may be. */
const standardResources = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
  'storage',
  'requests.storage',
]);
const hugePagesPrefix = 'hugepages-';
const requestsPrefix = 'requests.';

/** kube's validateResourceName. */
function validateResourceName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
  if (errs.length > 0) return errs;
  const standard = standardResources.has(name) || name.startsWith(hugePagesPrefix) || name.startsWith(`${requestsPrefix}${hugePagesPrefix}`);
  if (!name.includes('/') && !standard) return [fieldErrors.invalid(path, name, 'must be a standard resource type or fully qualified')];
  return [];
}

/** kube's ValidateContainerResourceName, for the name found at `path`. */
export function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!standardContainerResources.has(name) && !name.startsWith(hugePagesPrefix)) errs.push(fieldErrors.invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResourceName(name) && !isExtendedResourceName(name)) {
    errs.push(fieldErrors.invalid(path, name, "doesn't have to be a standard resource for containers"));
  }
  return errs;
}
