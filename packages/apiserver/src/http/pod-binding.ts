/**
 * `POST .../pods/<name>/binding` (what kube-scheduler sends to place a pod):
 * a v1 Binding in, a 201 Success Status out, as kube-apiserver answers it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { methodNotAllowed } from '@operant/apimachinery';
import type { ResourceCatalog } from '../registry/catalog.js';
import { bindPod, type Binding } from '../registry/pod-binding.js';
import { decodeObjectBody, readBody } from './body.js';
import { writeOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { sendJson } from './respond.js';

export async function servePodBinding(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, catalog: ResourceCatalog, query: URLSearchParams): Promise<void> {
  if (rr.verb !== 'create') throw methodNotAllowed();
  const binding = decodeObjectBody(await readBody(req), req.headers['content-type'], 'Binding') as Binding;
  bindPod(catalog.lookup('', 'v1', 'pods')!, rr.namespace, rr.name, binding ?? {}, writeOptions(query).dryRun);
  sendJson(res, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
}
