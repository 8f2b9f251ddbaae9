/**
 * Binding a pod to a node, as kube-scheduler's DefaultBinder does: a v1
 * Binding POSTed to the pod's `binding` subresource (the API server sets
 * spec.nodeName and PodScheduled=True).
 *
 * The runtime's client has no call for a subresource create (client-go's
 * `Pods(ns).Bind`, controller-runtime's `SubResource("binding").Create`), so
 * the Binding is sent as a create in a one-off "collection" whose path is the
 * pod's binding subresource. When the client grows that call, this module
 * is the only one to change.
 */
import { defineKind, type Client, type KubeObject } from '@operant/runtime';
import type { PodObject } from '../objects.js';

interface BindingObject extends KubeObject {
  target: { apiVersion?: string; kind: string; name: string };
}

/** POST `/api/v1/namespaces/<ns>/pods/<name>/binding` for `pod` and `node`; rejects with the server's 409 when the pod is already bound. */
export async function bindPod(client: Client, pod: PodObject, node: string): Promise<void> {
  const { name, namespace, uid } = pod.metadata;
  const binding = defineKind<BindingObject>({ group: '', version: 'v1', kind: 'Binding', plural: `pods/${encodeURIComponent(name!)}/binding`, namespaced: true });
  await client.create(binding, { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { kind: 'Node', name: node } }, { namespace });
}
