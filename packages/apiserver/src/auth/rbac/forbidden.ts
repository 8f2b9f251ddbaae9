/**
 * The 403 kube-apiserver answers an unauthorized request with
 * (k8s.io/apiserver responsewriters.Forbidden), word for word.
 */
import { StatusError, type StatusDetails } from '@operant/apimachinery';
import type { RequestAttributes } from './attributes.js';

/** kube escapes these in the message, as an HTML sanitizer would. */
function sanitize(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * kube's forbiddenMessage: `User "u" cannot list resource "pods" in API group "" in the
 * namespace "default"` (or `at the cluster scope`), `User "u" cannot get path "/metrics"`.
 */
export function forbiddenMessage(attrs: RequestAttributes): string {
  const user = JSON.stringify(attrs.user.username);
  if (!attrs.resourceRequest) return `User ${user} cannot ${attrs.verb} path ${JSON.stringify(attrs.path)}`;
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const head = `User ${user} cannot ${attrs.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attrs.apiGroup)}`;
  return attrs.namespace ? `${head} in the namespace ${JSON.stringify(attrs.namespace)}` : `${head} at the cluster scope`;
}

/**
 * The Forbidden StatusError for a denied request, as kube's NewForbidden builds it:
 * `pods "x" is forbidden: User "u" cannot get resource "pods" in API group "" in the
 * namespace "default"`, `deployments.apps is forbidden: ...`, or for a non-resource path
 * `forbidden: User "u" cannot get path "/metrics"`. A non-empty `reason` (the authorizer's,
 * e.g. `RBAC: role.rbac.authorization.k8s.io "x" not found`) is appended after `: `.
 * Details carry name, group and kind (the resource), empty ones left out as on kube's wire.
 */
export function forbiddenError(attrs: RequestAttributes, reason = ''): StatusError {
  const why = sanitize(forbiddenMessage(attrs)) + (reason ? `: ${reason}` : '');
  const group = attrs.resourceRequest ? attrs.apiGroup : '';
  const resource = attrs.resourceRequest ? attrs.resource : '';
  const name = attrs.resourceRequest ? attrs.name : '';
  let message: string;
  if (!group && !resource) message = `forbidden: ${why}`;
  else {
    const qualified = group ? `${resource}.${group}` : resource;
    message = name ? `${qualified} ${JSON.stringify(name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  }
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  return new StatusError(403, 'Forbidden', message, details);
}
