// Package v1 contains API Schema definitions for the batch v1 API group.
// +kubebuilder:object:generate=true
// +groupName=batch.tutorial.kubebuilder.io

export const GroupVersion = { group: 'batch.tutorial.kubebuilder.io', version: 'v1' } as const;
