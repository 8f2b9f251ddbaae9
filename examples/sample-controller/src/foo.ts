/**
 * The Foo custom resource (samplecontroller.k8s.io/v1alpha1), as in
 * kubernetes/sample-controller's pkg/apis/samplecontroller/v1alpha1/types.go.
 * Its CRD is artifacts/examples/crd.yaml.
 */
import { defineKind, type Typed } from '@operant/runtime';

/** What the user asks for: a Deployment of this name with this many replicas. */
export interface FooSpec {
  deploymentName?: string;
  replicas?: number;
}

/** What the controller reports: the Deployment's available replicas. */
export interface FooStatus {
  availableReplicas?: number;
}

/** A Foo object. */
export type Foo = Typed<{ spec?: FooSpec; status?: FooStatus }>;

/** The Foo kind, for the client and informers. */
export const FooKind = defineKind<Foo>({
  group: 'samplecontroller.k8s.io',
  version: 'v1alpha1',
  kind: 'Foo',
  plural: 'foos',
  namespaced: true,
});
