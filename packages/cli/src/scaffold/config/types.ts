/**
 * What the config/ templates need to know about the project and a kind; the
 * scaffolding commands fill these in from their flags and the PROJECT file.
 */

/** The project, as `operant init` named it. */
export interface ProjectInfo {
  /** A DNS-1123 label, e.g. "sidecarset": the namePrefix `<projectName>-` and the namespace `<projectName>-system`. */
  projectName: string;
  /** The API domain, e.g. "kruise.io". */
  domain: string;
}

/** A kind that `create api` adds. */
export interface ResourceInfo {
  /** e.g. "apps"; "core" for the core group. */
  group: string;
  /** e.g. "v1alpha1". */
  version: string;
  /** e.g. "SidecarSet". */
  kind: string;
  /** e.g. "sidecarsets". */
  plural: string;
  namespaced: boolean;
  /** The full API group: `${group}.${domain}`, or '' for core, or the group itself for built-in groups like apps when the resource is not ours. */
  qualifiedGroup: string;
  /** Whether this project owns the API (a CRD), false for a controller of a built-in kind. */
  resource: boolean;
}

/** The labels kubebuilder puts on what kustomize deploys, at the given indentation. */
export function projectLabels(project: ProjectInfo, indent: string): string {
  return `${indent}app.kubernetes.io/name: ${project.projectName}\n${indent}app.kubernetes.io/managed-by: kustomize\n`;
}
