/**
 * The object types the simulated cluster reads and writes: the
 * `kubernetes-types` declarations (kept in step with k8s.io/api) with their
 * `status` writable, since every controller here builds new statuses.
 */
import type * as appsv1 from 'kubernetes-types/apps/v1.js';
import type * as coordinationv1 from 'kubernetes-types/coordination/v1.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { Typed } from '@operant/runtime';

/** `T` with its top-level fields writable (kubernetes-types marks them readonly). */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** A core/v1 Pod. @example `const pod: PodObject = await client.get(Pod, 'web', { namespace: 'default' })` */
export type PodObject = Typed<Writable<corev1.Pod>>;
/** A core/v1 Node. @example `const node: NodeObject = await client.get(Node, 'node-1')` */
export type NodeObject = Typed<Writable<corev1.Node>>;
/** An apps/v1 Deployment. @example `const d: DeploymentObject = await client.get(Deployment, 'web', { namespace: 'default' })` */
export type DeploymentObject = Typed<Writable<appsv1.Deployment>>;
/** An apps/v1 ReplicaSet. @example `const rs: ReplicaSetObject = await client.get(ReplicaSet, 'web-7c5ddbdf54', { namespace: 'default' })` */
export type ReplicaSetObject = Typed<Writable<appsv1.ReplicaSet>>;
/** A coordination.k8s.io/v1 Lease. @example `const lease: LeaseObject = await client.get(Lease, 'node-1', { namespace: 'kube-node-lease' })` */
export type LeaseObject = Typed<coordinationv1.Lease>;

export type PodStatus = corev1.PodStatus;
export type PodCondition = corev1.PodCondition;
export type PodTemplateSpec = corev1.PodTemplateSpec;
export type Container = corev1.Container;
export type ContainerStatus = corev1.ContainerStatus;
export type DeploymentStatus = appsv1.DeploymentStatus;
export type DeploymentCondition = appsv1.DeploymentCondition;
export type ReplicaSetStatus = appsv1.ReplicaSetStatus;
