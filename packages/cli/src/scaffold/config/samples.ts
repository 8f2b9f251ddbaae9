/**
 * config/samples: one example object per kind for users to fill in and
 * `kubectl apply -k config/samples`.
 */
import { projectLabels, type ProjectInfo, type ResourceInfo } from './types.js';

/** The sample's file name, in config/samples: `<group>_<version>_<kind>.yaml`. */
export function sampleFileName(r: ResourceInfo): string {
  return `${r.group}_${r.version}_${r.kind.toLowerCase()}.yaml`;
}

/** config/samples/kustomization.yaml listing the given samples. */
export function samplesKustomization(samples: string[]): string {
  return `## Append samples of your project ##
resources:
${samples.map((s) => `- ${s}\n`).join('')}`;
}

/** An object of the kind with an empty spec. */
export function sample(project: ProjectInfo, r: ResourceInfo): string {
  const apiVersion = r.qualifiedGroup === '' ? r.version : `${r.qualifiedGroup}/${r.version}`;
  return `apiVersion: ${apiVersion}
kind: ${r.kind}
metadata:
  labels:
${projectLabels(project, '    ')}  name: ${r.kind.toLowerCase()}-sample
# TODO(user): Add fields here
spec: {}
`;
}
