/**
 * The RBAC and webhook markers (controller-tools' pkg/rbac and pkg/webhook).
 * Both may stand anywhere in a project's sources, usually above the controller
 * or the webhook handler they describe.
 */
import { Arg } from './arguments.js';
import type { MarkerDefinition } from './definition.js';

export const RBAC_MARKER = 'kubebuilder:rbac';
export const WEBHOOK_MARKER = 'kubebuilder:webhook';
export const WEBHOOK_CONFIGURATION_MARKER = 'kubebuilder:webhookconfiguration';

export function rbacMarkerDefinitions(): MarkerDefinition[] {
  return [
    {
      name: RBAC_MARKER,
      targets: ['package'],
      category: 'RBAC',
      help: 'specifies an RBAC rule to all access to some resources or non-resource URLs.',
      args: {
        groups: { type: Arg.strings, optional: true, help: 'the API groups (core for the core group), separated by ;' },
        resources: { type: Arg.strings, optional: true, help: 'the resources, e.g. deployments;deployments/status' },
        resourceNames: { type: Arg.strings, optional: true, help: 'the names of the objects the rule is limited to' },
        verbs: { type: Arg.strings, help: 'the verbs, e.g. get;list;watch, or *' },
        urls: { type: Arg.strings, optional: true, help: 'non-resource URLs, e.g. /metrics' },
        namespace: { type: Arg.string, optional: true, help: 'puts the rule in a Role in this namespace instead of the ClusterRole' },
        roleName: { type: Arg.string, optional: true, help: 'puts the rule in a role of this name instead of the default' },
      },
    },
  ];
}

export function webhookMarkerDefinitions(): MarkerDefinition[] {
  return [
    {
      name: WEBHOOK_MARKER,
      targets: ['package'],
      category: 'Webhook',
      help: 'specifies how a webhook should be served, and which requests it receives.',
      args: {
        mutating: { type: Arg.bool, help: 'true for a mutating webhook, false for a validating one' },
        failurePolicy: { type: Arg.string, help: 'Fail or Ignore: what the API server does when the call fails' },
        matchPolicy: { type: Arg.string, optional: true, help: 'Exact or Equivalent' },
        sideEffects: { type: Arg.string, optional: true, help: 'None or NoneOnDryRun' },
        timeoutSeconds: { type: Arg.int, optional: true, help: 'how long the API server waits, 1 to 30' },
        groups: { type: Arg.strings, help: 'the API groups of the resources (core for the core group)' },
        resources: { type: Arg.strings, help: 'the resources, e.g. pods' },
        verbs: { type: Arg.strings, help: 'the operations: create;update;delete;connect or *' },
        versions: { type: Arg.strings, help: 'the API versions' },
        name: { type: Arg.string, help: 'the webhook name, e.g. mpod.kb.io' },
        serviceName: { type: Arg.string, optional: true, help: 'the Service that serves it (default webhook-service)' },
        serviceNamespace: { type: Arg.string, optional: true, help: 'the Service namespace (default system)' },
        servicePort: { type: Arg.int, optional: true, help: 'the Service port' },
        path: { type: Arg.string, optional: true, help: 'the URL path, e.g. /mutate--v1-pod' },
        webhookVersions: { type: Arg.strings, optional: true, help: 'the admissionregistration versions to write (v1)' },
        admissionReviewVersions: { type: Arg.strings, help: 'the AdmissionReview versions the webhook accepts (v1)' },
        reinvocationPolicy: { type: Arg.string, optional: true, help: 'Never or IfNeeded (mutating webhooks only)' },
        url: { type: Arg.string, optional: true, help: 'a URL to call instead of a Service' },
      },
    },
    {
      name: WEBHOOK_CONFIGURATION_MARKER,
      targets: ['package'],
      category: 'Webhook',
      help: 'names the mutating or validating webhook configuration that holds the webhooks.',
      args: {
        mutating: { type: Arg.bool, help: 'true for the mutating configuration' },
        name: { type: Arg.string, help: 'the configuration name' },
      },
    },
  ];
}
