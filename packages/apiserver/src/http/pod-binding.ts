/**
 * Binding pods to nodes over the wire, as kube-apiserver answers it: a v1
 * Binding in, a 201 Success Status out. Two paths lead there, as in kube:
 * the `pods/<name>/binding` subresource (what kube-scheduler sends) and the
 * older top-level `bindings` resource (kube's LegacyBindingREST), which binds
 * the pod the Binding names in metadata.name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import { bindPod, type Binding } from '../registry/pod-binding.js';
import { decodeObjectBody, readBody } from './body.js';
import { writeOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { notFoundPath } from './resource-handler.js';
import { sendJson } from './respond.js';

async function readBinding(req: IncomingMessage, namespace: string): Promise<Binding> {
  const binding = (decodeObjectBody(await readBody(req), req.headers['content-type'], 'Binding') ?? {}) as Binding & { metadata?: { namespace?: string } };
  const ns = binding.metadata?.namespace;
  if (ns && ns !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  return binding;
}

function bound(res: ServerResponse): void {
  sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

/** `POST .../pods/<name>/binding`. */
export async function servePodBinding(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog, query: URLSearchParams): Promise<void> {
  if (rr.verb !== 'create') throw methodNotAllowed();
  const binding = await readBinding(req, rr.namespace);
  const pods = catalog.lookup('', 'v1', 'pods')!;
  pods.admitCreateIn(rr.namespace, rr.name);
  bindPod(pods, rr.namespace, rr.name, binding, writeOptions(query).dryRun);
  bound(res);
}

/** `POST /api/v1/namespaces/<ns>/bindings`: the pod is the one the Binding names. */
export async function serveBindings(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog, query: URLSearchParams): Promise<void> {
  if (rr.name || rr.subresource || !rr.namespace) throw notFoundPath();
  if (rr.verb !== 'create') throw methodNotAllowed();
  const binding = await readBinding(req, rr.namespace);
  const name = binding.metadata?.name ?? '';
  catalog.lookup('', 'v1', 'bindings')!.admitCreateIn(rr.namespace, name);
  // kube's key function refuses an empty name before the pod is looked up.
  if (name === '') throw badRequest('Name parameter required.');
  bindPod(catalog.lookup('', 'v1', 'pods')!, rr.namespace, name, binding, writeOptions(query).dryRun);
  bound(res);
}
