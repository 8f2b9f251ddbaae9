/**
 * Binding pods to nodes over the wire, as kube-apiserver answers it: a v1
 * Binding in, a 201 Success Status out. Two paths lead there, as in kube:
 * the `pods/<name>/binding` subresource (what kube-scheduler sends) and the
 * older top-level `bindings` resource (kube's LegacyBindingREST), which binds
 * the pod the Binding names in metadata.name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, methodNotAllowed, type KubeObject } from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';
import type { ResourceCatalog } from '../registry/catalog.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { bindPod, type Binding } from '../registry/pod-binding.js';
import { decodeObjectBody, readBody } from './body.js';
import { writeOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { notFoundPath } from './resource-handler.js';
import { addWarnings, sendJson } from './respond.js';

async function readBinding(req: IncomingMessage, namespace: string): Promise<Binding> {
  const binding = (decodeObjectBody(await readBody(req), req.headers['content-type'], 'Binding') ?? {}) as Binding & { metadata?: { namespace?: string } };
  const ns = binding.metadata?.namespace;
  if (ns && ns !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  return binding;
}

function bound(res: ServerResponse, warnings: string[]): void {
  addWarnings(res, warnings);
  sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}

const bindingKind = { group: '', version: 'v1', kind: 'Binding' };

/**
 * The Binding through admission, as kube's create handler and BindingREST run
 * it: the mutating webhooks now, the validating ones (`validate`) once the
 * name and target pass kube's checks, on a CREATE of `<resource>/<subresource>`
 * named `name`.
 */
async function admitted(store: ResourceStore, rr: ResourceRequest, name: string, subresource: string, binding: Binding, dryRun: boolean, user: UserInfo) {
  const admission = store.subresourceCreateAdmission(rr.namespace, name, subresource, bindingKind, { dryRun, user });
  const mutated = await admission.mutate({ ...binding, apiVersion: 'v1', kind: 'Binding' } as KubeObject);
  return { binding: mutated as Binding, warnings: admission.warnings, validate: () => admission.validate(mutated) };
}

/** `POST .../pods/<name>/binding`. */
export async function servePodBinding(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog, query: URLSearchParams, user: UserInfo): Promise<void> {
  if (rr.verb !== 'create') throw methodNotAllowed();
  const dryRun = writeOptions(query).dryRun;
  const pods = catalog.lookup('', 'v1', 'pods')!;
  const { binding, warnings, validate } = await admitted(pods, rr, rr.name, 'binding', await readBinding(req, rr.namespace), dryRun, user);
  pods.admitCreateIn(rr.namespace, rr.name);
  await bindPod(pods, rr.namespace, rr.name, binding, dryRun, validate);
  bound(res, warnings);
}

/** `POST /api/v1/namespaces/<ns>/bindings`: the pod is the one the Binding names. */
export async function serveBindings(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog, query: URLSearchParams, user: UserInfo): Promise<void> {
  if (rr.name || rr.subresource || !rr.namespace) throw notFoundPath();
  if (rr.verb !== 'create') throw methodNotAllowed();
  const dryRun = writeOptions(query).dryRun;
  const bindings = catalog.lookup('', 'v1', 'bindings')!;
  const body = await readBinding(req, rr.namespace);
  const { binding, warnings, validate } = await admitted(bindings, rr, body.metadata?.name ?? '', '', body, dryRun, user);
  const name = binding.metadata?.name ?? '';
  bindings.admitCreateIn(rr.namespace, name);
  // kube's key function refuses an empty name before the pod is looked up.
  if (name === '') throw badRequest('Name parameter required.');
  await bindPod(catalog.lookup('', 'v1', 'pods')!, rr.namespace, name, binding, dryRun, validate);
  bound(res, warnings);
}
