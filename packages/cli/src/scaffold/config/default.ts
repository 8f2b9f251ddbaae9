/**
 * config/default, the overlay `npm run deploy` renders: it names and
 * namespaces everything and turns the optional parts (CRDs, webhook,
 * cert-manager, Prometheus, network policies) on or off. Each optional part is
 * written once, below, uncommented; the template comments it out and `create
 * api` / `create webhook` uncomment it, as kubebuilder's go/v4 layout does.
 */
import { commented } from './edit.js';
import { projectLabels, type ProjectInfo } from './types.js';

/** `create api` turns this on with the first CRD. */
export const crdResource = '- ../crd';
/** `create webhook` turns these on. */
export const webhookResource = '- ../webhook';
export const certManagerResource = '- ../certmanager';
export const webhookPatch = `- path: manager_webhook_patch.yaml
  target:
    kind: Deployment`;
export const replacementsKey = 'replacements:';

/** Left to the user: each needs something the cluster may not have (the ServiceMonitor CRD, cert-manager, a CNI enforcing NetworkPolicy). */
export const prometheusResource = '- ../prometheus';
export const networkPolicyResource = '- ../network-policy';
export const certMetricsPatch = `- path: cert_metrics_manager_patch.yaml
  target:
    kind: Deployment`;

/** The metrics Service's name (index 0) or namespace (index 1) into the metrics Certificate's and the ServiceMonitor's DNS names. */
function metricsCertReplacement(field: 'name' | 'namespace'): string {
  const index = field === 'name' ? 0 : 1;
  return ` - source:${index === 0 ? ' # Uncomment the following block to enable certificates for metrics' : ''}
     kind: Service
     version: v1
     name: controller-manager-metrics-service
     fieldPath: metadata.${field}
   targets:
     - select:
         kind: Certificate
         group: cert-manager.io
         version: v1
         name: metrics-certs
       fieldPaths:
         - spec.dnsNames.0
         - spec.dnsNames.1
       options:
         delimiter: '.'
         index: ${index}
         create: true
     - select: # Uncomment the following to set the Service ${field} for TLS config in Prometheus ServiceMonitor
         kind: ServiceMonitor
         group: monitoring.coreos.com
         version: v1
         name: controller-manager-metrics-monitor
       fieldPaths:
         - spec.endpoints.0.tlsConfig.serverName
       options:
         delimiter: '.'
         index: ${index}
         create: true`;
}

/** Left commented: for metrics served with cert-manager's certificate. */
export const metricsCertReplacements = [metricsCertReplacement('name'), metricsCertReplacement('namespace')];

/** The webhook Service's name and namespace into the serving Certificate's DNS names. */
export const webhookServiceReplacements = ['name', 'namespace']
  .map(
    (field, index) => ` - source:${index === 0 ? ' # Uncomment the following block if you have any webhook' : ''}
     kind: Service
     version: v1
     name: webhook-service
     fieldPath: .metadata.${field} # ${field === 'name' ? 'Name' : 'Namespace'} of the service
   targets:
     - select:
         kind: Certificate
         group: cert-manager.io
         version: v1
         name: serving-cert
       fieldPaths:
         - .spec.dnsNames.0
         - .spec.dnsNames.1
       options:
         delimiter: '.'
         index: ${index}
         create: true`,
  )
  .join('\n');

/** cert-manager's CA injection annotation (`<namespace>/<certificate>`) onto the objects `select` picks. */
function caInjection(note: string, select: string): string {
  return ['.metadata.namespace # Namespace of the certificate CR', '.metadata.name']
    .map(
      (fieldPath, index) => ` - source:${index === 0 ? ` # ${note}` : ''}
     kind: Certificate
     group: cert-manager.io
     version: v1
     name: serving-cert
     fieldPath: ${fieldPath}
   targets:
     - select:
${select}
       fieldPaths:
         - .metadata.annotations.[cert-manager.io/inject-ca-from]
       options:
         delimiter: '/'
         index: ${index}
         create: true`,
    )
    .join('\n');
}

export const validatingCaReplacements = caInjection(
  'Uncomment the following block if you have a ValidatingWebhook (--programmatic-validation)',
  '         kind: ValidatingWebhookConfiguration',
);
export const mutatingCaReplacements = caInjection(
  'Uncomment the following block if you have a DefaultingWebhook (--defaulting)',
  '         kind: MutatingWebhookConfiguration',
);
const conversionCaReplacements = caInjection(
  'Uncomment the following block if you have a ConversionWebhook (--conversion), with one select per CRD',
  '         kind: CustomResourceDefinition\n         name: <plural>.<group> # e.g. sidecarsets.apps.kruise.io',
);

/** config/default/kustomization.yaml as `init` writes it. */
export function defaultKustomization(project: ProjectInfo): string {
  return `# Adds namespace to all resources.
namespace: ${project.projectName}-system

# Value of this field is prepended to the
# names of all resources, e.g. a deployment named
# "wordpress" becomes "alices-wordpress".
# Note that it should also match with the prefix (text before '-') of the namespace
# field above.
namePrefix: ${project.projectName}-

# Labels to add to all resources and selectors.
#labels:
#- includeSelectors: true
#  pairs:
#    someName: someValue

resources:
${commented(crdResource)}
- ../rbac
- ../manager
# [WEBHOOK] To enable webhook, uncomment all the sections with [WEBHOOK] prefix including the one in
# crd/kustomization.yaml
${commented(webhookResource)}
# [CERTMANAGER] To enable cert-manager, uncomment all sections with 'CERTMANAGER'. 'WEBHOOK' components are required.
${commented(certManagerResource)}
# [PROMETHEUS] To enable prometheus monitor, uncomment all sections with 'PROMETHEUS'.
${commented(prometheusResource)}
# [METRICS] Expose the controller manager metrics service.
- metrics_service.yaml
# [NETWORK POLICY] Protect the /metrics endpoint and Webhook Server with NetworkPolicy.
# Only Pod(s) running a namespace labeled with 'metrics: enabled' will be able to gather the metrics.
# The Webhook Server only accepts traffic on its port (the API server calling it cannot be selected).
${commented(networkPolicyResource)}

# Uncomment the patches line if you enable Metrics
patches:
# [METRICS] The following patch will enable the metrics endpoint using HTTPS and the port :8443.
# More info: https://book.kubebuilder.io/reference/metrics
- path: manager_metrics_patch.yaml
  target:
    kind: Deployment

# Uncomment the patches line if you enable Metrics and CertManager
# [METRICS-WITH-CERTS] To enable metrics protected with certManager, uncomment the following line.
# This patch will protect the metrics with certManager self-signed certs.
${commented(certMetricsPatch)}

# [WEBHOOK] To enable webhook, uncomment all the sections with [WEBHOOK] prefix including the one in
# crd/kustomization.yaml
${commented(webhookPatch)}

# [CERTMANAGER] To enable cert-manager, uncomment all sections with 'CERTMANAGER' prefix.
# Uncomment the following replacements to add the cert-manager CA injection annotations
${commented(replacementsKey)}
${metricsCertReplacements.map(commented).join('\n\n')}

${commented(webhookServiceReplacements)}

${commented(validatingCaReplacements)}

${commented(mutatingCaReplacements)}

${commented(conversionCaReplacements)}
`;
}

/** Serves /metrics over HTTPS on :8443 (the manager's --metrics-bind-address). */
export const managerMetricsPatch = `# This patch adds the args to allow exposing the metrics endpoint using HTTPS
- op: add
  path: /spec/template/spec/containers/0/args/0
  value: --metrics-bind-address=:8443
`;

/** Mounts cert-manager's metrics certificate into the manager (left commented in the overlay). */
export const certMetricsManagerPatch = `# This patch adds the args, volumes, and ports to allow the manager to use the metrics-server certs.

# Add the volumeMount for the metrics-server certs
- op: add
  path: /spec/template/spec/containers/0/volumeMounts/-
  value:
    mountPath: /tmp/k8s-metrics-server/metrics-certs
    name: metrics-certs
    readOnly: true

# Add the --metrics-cert-path argument for the metrics server
- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs

# Add the metrics-server certs volume configuration
- op: add
  path: /spec/template/spec/volumes/-
  value:
    name: metrics-certs
    secret:
      secretName: metrics-server-cert
      optional: false
      items:
        - key: ca.crt
          path: ca.crt
        - key: tls.crt
          path: tls.crt
        - key: tls.key
          path: tls.key
`;

/** Mounts the webhook serving certificate and opens the webhook port; `create webhook` writes it. */
export const managerWebhookPatch = `# This patch ensures the webhook certificates are properly mounted in the manager container.
# It configures the necessary arguments, volumes, volume mounts, and container ports.

# Add the --webhook-cert-path argument for configuring the webhook certificate path
- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs

# Add the --webhook-port argument to match the webhook Service target port
- op: add
  path: /spec/template/spec/containers/0/args/-
  value: --webhook-port=9443

# Add the volumeMount for the webhook certificates
- op: add
  path: /spec/template/spec/containers/0/volumeMounts/-
  value:
    mountPath: /tmp/k8s-webhook-server/serving-certs
    name: webhook-certs
    readOnly: true

# Add the port configuration for the webhook server
- op: add
  path: /spec/template/spec/containers/0/ports/-
  value:
    containerPort: 9443
    name: webhook-server
    protocol: TCP

# Add the volume configuration for the webhook certificates
- op: add
  path: /spec/template/spec/volumes/-
  value:
    name: webhook-certs
    secret:
      secretName: webhook-server-cert
`;

/** The Service in front of the manager's metrics endpoint. */
export function metricsService(project: ProjectInfo): string {
  return `apiVersion: v1
kind: Service
metadata:
  labels:
    control-plane: controller-manager
${projectLabels(project, '    ')}  name: controller-manager-metrics-service
  namespace: system
spec:
  ports:
  - name: https
    port: 8443
    protocol: TCP
    targetPort: 8443
  selector:
    control-plane: controller-manager
    app.kubernetes.io/name: ${project.projectName}
`;
}
