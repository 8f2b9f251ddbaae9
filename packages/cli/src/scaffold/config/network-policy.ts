/**
 * config/network-policy: NetworkPolicies for the manager's pods, for clusters
 * whose CNI enforces them. Left off in config/default, as kubebuilder leaves it.
 */
import { projectLabels, type ProjectInfo } from './types.js';

export const networkPolicyKustomization = `resources:
- allow-metrics-traffic.yaml
`;

function policy(project: ProjectInfo, about: string, name: string, ingress: string): string {
  return `${about}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  labels:
${projectLabels(project, '    ')}  name: ${name}
  namespace: system
spec:
  podSelector:
    matchLabels:
      control-plane: controller-manager
      app.kubernetes.io/name: ${project.projectName}
  policyTypes:
    - Ingress
  ingress:
${ingress}`;
}

/** Ingress to the metrics endpoint (:8443) from namespaces labeled `metrics: enabled`. */
export function allowMetricsTraffic(project: ProjectInfo): string {
  return policy(
    project,
    `# This NetworkPolicy allows ingress traffic
# with Pods running on namespaces labeled with 'metrics: enabled'. Only Pods on those
# namespaces are able to gather data from the metrics endpoint.`,
    'allow-metrics-traffic',
    `    # This allows ingress traffic from any namespace with the label metrics: enabled
    - from:
      - namespaceSelector:
          matchLabels:
            metrics: enabled  # Only from namespaces with this label
      ports:
        - port: 8443
          protocol: TCP
`,
  );
}

/**
 * Ingress to the webhook server; `create webhook` adds it. On the container
 * port (a policy sees the port after the Service's 443 -> 9443) and from any
 * source, since the API server calling the webhook is no pod a selector names
 * (kubebuilder's fix in v4.16; earlier versions allowed port 443 from labeled
 * namespaces, which dropped every admission call).
 */
export function allowWebhookTraffic(project: ProjectInfo): string {
  return policy(
    project,
    `# This NetworkPolicy allows ingress traffic to your webhook server running as part of
# the controller-manager. The API server calls webhooks from outside the pod network,
# so no selector can name it: the rule admits any source on the webhook port (the
# container's 9443, behind the webhook Service's 443). To choose which namespaces a
# webhook applies to, give the webhook configuration a namespaceSelector instead.`,
    'allow-webhook-traffic',
    `    - ports:
        - port: 9443
          protocol: TCP
`,
  );
}
