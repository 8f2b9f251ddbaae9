/**
 * config/webhook: the webhook configurations `operant generate webhook`
 * writes to manifests.yaml, and the Service the API server calls them
 * through. kustomize's built-in name references rename that Service (and set
 * its namespace) in the configurations' clientConfig, so no kustomizeconfig
 * is needed (kubebuilder dropped its own in v4.11).
 */
import { projectLabels, type ProjectInfo } from './types.js';

export const webhookKustomization = `resources:
- manifests.yaml
- service.yaml
`;

/** Stands in for manifests.yaml until `operant generate webhook` writes it; kustomize accepts a file with no objects. */
export const webhookManifestsPlaceholder = `# The webhook configurations: \`npm run manifests\` (operant generate) writes them
# here from the webhook markers.
`;

/** The Service in front of the manager's webhook server (port 443 to the container's 9443). */
export function webhookService(project: ProjectInfo): string {
  return `apiVersion: v1
kind: Service
metadata:
  labels:
${projectLabels(project, '    ')}  name: webhook-service
  namespace: system
spec:
  ports:
    - port: 443
      protocol: TCP
      targetPort: 9443
  selector:
    control-plane: controller-manager
    app.kubernetes.io/name: ${project.projectName}
`;
}
