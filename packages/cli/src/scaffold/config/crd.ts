/**
 * config/crd: the CRDs `operant generate` writes under bases/, gathered for
 * config/default. `create api` writes this directory with the first kind.
 */

/** config/crd/kustomization.yaml with the given bases (e.g. `bases/apps.kruise.io_sidecarsets.yaml`). */
export function crdKustomization(resources: string[]): string {
  return `# This kustomization.yaml is not intended to be run by itself,
# since it depends on service name and namespace that are out of this kustomize package.
# It should be run by config/default
resources:
${resources.map((r) => `- ${r}\n`).join('')}
patches:
# [WEBHOOK] To enable webhook, uncomment all the sections with [WEBHOOK] prefix.
# patches here are for enabling the conversion webhook for each CRD

# [WEBHOOK] To enable webhook, uncomment the following section
# the following config is for teaching kustomize how to do kustomization for CRDs.
#configurations:
#- kustomizeconfig.yaml
`;
}

/** The CRD file `operant generate` writes for a kind, relative to config/crd. */
export function crdBase(qualifiedGroup: string, plural: string): string {
  return `bases/${qualifiedGroup}_${plural}.yaml`;
}

/** Teaches kustomize the conversion webhook's Service reference in a CRD (used once conversion webhooks are enabled). */
export const crdKustomizeConfig = `# This file is for teaching kustomize how to substitute name and namespace reference in CRD
nameReference:
- kind: Service
  version: v1
  fieldSpecs:
  - kind: CustomResourceDefinition
    version: v1
    group: apiextensions.k8s.io
    path: spec/conversion/webhook/clientConfig/service/name

varReference:
- path: metadata/annotations
`;
