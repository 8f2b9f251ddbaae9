// Package v1alpha1 contains API Schema definitions for the apps v1alpha1 API group.
// +kubebuilder:object:generate=true
// +groupName=apps.kruise.io

/** The group and version of the types in this directory. */
export const GroupVersion = { group: 'apps.kruise.io', version: 'v1alpha1' } as const;
