/** ResourceQuota's arithmetic and evaluators, shared by the API server's quota admission and the resourcequota controller. */
export {
  addResources,
  exceededResources,
  maskResources,
  maxResources,
  negativeResources,
  printResources,
  removeZeroResources,
  sameResources,
  subtractNonNegative,
  type ResourceList,
} from './resource-list.js';
export {
  matchingQuotaResources,
  objectCountName,
  quotaConstraintProblem,
  quotaHandles,
  quotaMatches,
  quotaScopesMatch,
  quotaUsage,
  type QuotaGroupResource,
} from './evaluators.js';
export { isExtendedResourceName, isNativeResourceName } from './resource-names.js';
