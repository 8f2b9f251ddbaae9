/**
 * Defaults of the core/v1 kinds without a pod spec (k8s.io/kubernetes
 * pkg/apis/core/v1/defaults.go at 1.32: SetDefaults_Namespace,
 * SetDefaults_Secret, SetDefaults_NodeStatus). SetDefaults_ConfigMap only
 * turns a nil `data` into an empty map, which the wire form omits.
 */
import { asObject, defaultString, type Json } from './json-fields.js';

/** Every named namespace carries its name as the `kubernetes.io/metadata.name` label. */
export function defaultNamespace(namespace: Json): void {
  const metadata = asObject(namespace.metadata);
  const name = metadata?.name;
  if (!metadata || typeof name !== 'string' || name === '') return;
  metadata.labels = { ...asObject(metadata.labels), 'kubernetes.io/metadata.name': name };
}

/** A Secret without a type is Opaque. */
export function defaultSecret(secret: Json): void {
  defaultString(secret, 'type', 'Opaque');
}

/** A node reporting capacity but no allocatable resources can allocate all of its capacity. */
export function defaultNode(node: Json): void {
  const status = asObject(node.status);
  const capacity = asObject(status?.capacity);
  if (status && capacity && (status.allocatable === undefined || status.allocatable === null)) status.allocatable = { ...capacity };
}
