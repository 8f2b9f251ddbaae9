/**
 * config/certmanager: a self-signed Issuer and the certificates for the
 * webhook server and the metrics endpoint. Needs cert-manager in the cluster;
 * `create webhook` writes it and turns it on, as kubebuilder does.
 */
import { projectLabels, type ProjectInfo } from './types.js';

function certificate(project: ProjectInfo, name: string, secretName: string, about: string): string {
  return `# The following manifests contain a self-signed issuer CR and ${about} certificate CR.
# More document can be found at https://docs.cert-manager.io
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  labels:
${projectLabels(project, '    ')}  name: ${name}  # this name should match the one appeared in kustomizeconfig.yaml
  namespace: system
spec:
  # SERVICE_NAME and SERVICE_NAMESPACE will be substituted by kustomize
  # replacements in the config/default/kustomization.yaml file.
  dnsNames:
  - SERVICE_NAME.SERVICE_NAMESPACE.svc
  - SERVICE_NAME.SERVICE_NAMESPACE.svc.cluster.local
  issuerRef:
    kind: Issuer
    name: selfsigned-issuer
  secretName: ${secretName}
`;
}

/** The files under config/certmanager, by file name. */
export function certManagerFiles(project: ProjectInfo): Record<string, string> {
  return {
    'kustomization.yaml': `resources:
- issuer.yaml
- certificate-webhook.yaml
- certificate-metrics.yaml

configurations:
- kustomizeconfig.yaml
`,
    'kustomizeconfig.yaml': `# This configuration is for teaching kustomize how to update name ref substitution
nameReference:
- kind: Issuer
  group: cert-manager.io
  fieldSpecs:
  - kind: Certificate
    group: cert-manager.io
    path: spec/issuerRef/name
`,
    'issuer.yaml': `# The following manifest contains a self-signed issuer CR.
# More information can be found at https://docs.cert-manager.io
# WARNING: Targets CertManager v1.0. Check https://cert-manager.io/docs/installation/upgrading/ for breaking changes.
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  labels:
${projectLabels(project, '    ')}  name: selfsigned-issuer
  namespace: system
spec:
  selfSigned: {}
`,
    'certificate-webhook.yaml': certificate(project, 'serving-cert', 'webhook-server-cert', 'a'),
    'certificate-metrics.yaml': certificate(project, 'metrics-certs', 'metrics-server-cert', 'a metrics'),
  };
}
