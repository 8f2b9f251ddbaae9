/**
 * Serves one resource request: dispatches the verb to the resource's registry
 * and writes the answer in the negotiated form (object, Table or metadata).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, isJsonObject, methodNotAllowed, notFound, type KubeObject } from '@operant/apimachinery';
import type { UserInfo } from '../auth/authn/user-info.js';
import type { ResourceCatalog } from '../registry/catalog.js';
import { parseResourceVersion, tooLargeResourceVersion, type ResourceStore } from '../registry/resource-store.js';
import { listWaitsForRevision, waitForRevision } from '../registry/revision-wait.js';
import { tableForResource } from '../tables/for-resource.js';
import { decodeObjectBodyAsync, isJsonBody, readBody, mediaType, parseJson, parseYamlBody } from './body.js';
import { negotiate, type ResponseForm } from './negotiate.js';
import { deleteOptions, listOptions, watchOptions, writeOptions } from './query.js';
import type { ResourceRequest } from './request-info.js';
import { addWarnings, sendJson } from './respond.js';
import { sendListJson, sendObjectJson } from './serialize.js';
import { serveWatch, type WatchServingOptions } from './watch-handler.js';
import { requestedScale, scaleOf } from './scale.js';
import { applyPatchType, parseApplyPatch, validatePatchOptions } from './patch-body.js';
import type { ScaleWrite } from '../registry/scale-tracking.js';
import { builtinPatchTypes } from '../registry/codec.js';
import { customResourcePatchTypes } from '../crd/custom-resources.js';

export interface ResourceHandlerOptions extends WatchServingOptions {
  /** How long a read at a resourceVersion not reached yet waits for it before its 504 (kube's 3 s). */
  resourceVersionWaitMs: number;
}

/** The PartialObjectMetadata form of an object. */
export function partialMetadata(obj: KubeObject): object {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export class ResourceHandler {
  constructor(
    private readonly catalog: ResourceCatalog,
    private readonly options: ResourceHandlerOptions,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, rr: ResourceRequest, query: URLSearchParams, user?: UserInfo): Promise<void> {
    const rs = this.catalog.lookup(rr.group, rr.version, rr.resource);
    if (!rs) throw notFoundPath();
    if (!rs.info.namespaced && rr.namespace !== '' && rr.resource !== 'namespaces') throw notFoundPath();
    if (rr.subresource && !(rs.info.subresources ?? []).includes(rr.subresource)) throw notFoundPath();
    if (!allowed(rs, rr)) throw methodNotAllowed();
    // Every request to a deprecated CRD version carries its warning, as in kube.
    const deprecation = rs.info.custom?.deprecationWarning;
    if (deprecation) addWarnings(res, [deprecation]);
    const form = negotiate(req.headers.accept);
    if (rr.subresource === 'scale') return this.scale(req, res, rs, rr, user);

    switch (rr.verb) {
      case 'get': {
        await this.revisionReached(rs, query.get('resourceVersion'));
        const obj = await rs.get(rr.namespace, rr.name);
        return this.sendObject(res, rs, obj, form, query);
      }
      case 'list': {
        const options = listOptions(query);
        if (listWaitsForRevision(options)) await this.revisionReached(rs, options.resourceVersion);
        const list = await rs.list(rr.namespace, options);
        if (form === 'table') {
          return sendJson(res, 200, tableForResource(rs.info, list.items, { includeObject: includeObject(query), listMeta: list.metadata }));
        }
        if (form === 'metadata') {
          return sendJson(res, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: list.metadata, items: list.items.map(partialMetadata) });
        }
        return sendListJson(res, list);
      }
      case 'watch': {
        const options = watchOptions(query);
        // A watch that sends the initial state first (a watch-list) waits for its resourceVersion as a list
        // does; one that does not starts at once and sends what comes after it.
        if (options.sendInitialEvents === true && options.resourceVersion) {
          await waitForRevision(rs.mvcc, parseResourceVersion(options.resourceVersion), this.options.resourceVersionWaitMs);
        }
        return serveWatch(req, res, rs, rr, options, form, this.options, includeObject(query));
      }
      case 'create': {
        const body = await readBody(req);
        const obj = (await decodeObjectBodyAsync(body, req.headers['content-type'], rs.info.kind)) as KubeObject;
        const result = await rs.create(rr.namespace, obj, writeOptions(query, { user, userAgent: req.headers['user-agent'], ownsBody: isJsonBody(req.headers['content-type']) }));
        addWarnings(res, result.warnings);
        return this.sendObject(res, rs, result.object as KubeObject, form, query, 201);
      }
      case 'update': {
        const body = await readBody(req);
        const obj = (await decodeObjectBodyAsync(body, req.headers['content-type'], rs.info.kind)) as KubeObject;
        const result = await rs.update(rr.namespace, rr.name, obj, writeOptions(query, { user, userAgent: req.headers['user-agent'], ownsBody: isJsonBody(req.headers['content-type']) }), rr.subresource);
        addWarnings(res, result.warnings);
        return this.sendObject(res, rs, result.object as KubeObject, form, query, result.created ? 201 : 200);
      }
      case 'patch': {
        const body = await readBody(req);
        const patchType = mediaType(req.headers['content-type']);
        const opts = writeOptions(query, { user, userAgent: req.headers['user-agent'] });
        validatePatchOptions(patchType, opts);
        const result = await rs.patch(rr.namespace, rr.name, patchType, body, opts, rr.subresource);
        addWarnings(res, result.warnings);
        // An apply that creates answers 201, as kube's patch handler does.
        return this.sendObject(res, rs, result.object as KubeObject, form, query, result.created ? 201 : 200);
      }
      case 'delete': {
        const body = await readBody(req);
        const parsed = body.length ? decodeDeleteBody(body, req.headers['content-type']) : undefined;
        const result = await rs.delete(rr.namespace, rr.name, deleteOptions(query, parsed, user));
        addWarnings(res, result.warnings);
        if (isJsonObject(result.object) && result.object.kind === 'Status') return sendJson(res, 200, result.object);
        return this.sendObject(res, rs, result.object as KubeObject, form, query);
      }
      case 'deletecollection': {
        const body = await readBody(req);
        const parsed = body.length ? decodeDeleteBody(body, req.headers['content-type']) : undefined;
        const list = await rs.deleteCollection(rr.namespace, listOptions(query), deleteOptions(query, parsed, user));
        return sendJson(res, 200, list);
      }
    }
  }


  /**
   * A read at a resourceVersion the server has not reached waits for it (up to
   * resourceVersionWaitMs), then is answered 504 Too large resource version, as
   * kube's watch cache answers it.
   */
  private async revisionReached(rs: ResourceStore, rv: string | null | undefined): Promise<void> {
    if (rv === null || rv === undefined || rv === '') return;
    const n = parseResourceVersion(rv);
    if (n <= rs.mvcc.revision) return;
    if (!(await waitForRevision(rs.mvcc, n, this.options.resourceVersionWaitMs))) throw tooLargeResourceVersion(n, rs.mvcc.revision);
  }
  private sendObject(res: ServerResponse, rs: ResourceStore, obj: KubeObject, form: ResponseForm, query: URLSearchParams, code = 200): void {
    if (form === 'table') return sendJson(res, code, tableForResource(rs.info, [obj], { includeObject: includeObject(query) }));
    if (form === 'metadata') return sendJson(res, code, partialMetadata(obj));
    sendObjectJson(res, code, obj);
  }

  /** The scale subresource: an autoscaling/v1 Scale view of the object's replicas. */
  private async scale(req: IncomingMessage, res: ServerResponse, rs: ResourceStore, rr: ResourceRequest, user: UserInfo | undefined): Promise<void> {
    if (rr.verb === 'get') return sendJson(res, 200, scaleOf(await rs.get(rr.namespace, rr.name), rs.info.custom?.scale));
    if (rr.verb !== 'update' && rr.verb !== 'patch') throw methodNotAllowed();
    const body = await readBody(req);
    const contentType = mediaType(req.headers['content-type']);
    const opts = writeOptions(new URLSearchParams(req.url?.split('?')[1] ?? ''), { user, userAgent: req.headers['user-agent'] });
    if (rr.verb === 'patch') validatePatchOptions(contentType, opts);
    const accepted = rs.info.custom ? customResourcePatchTypes : builtinPatchTypes;
    const write: ScaleWrite =
      rr.verb === 'patch' && contentType === applyPatchType
        ? { apply: parseApplyPatch(body, opts) }
        : { update: (oldScale) => requestedScale(oldScale, rr.verb as 'update' | 'patch', body, contentType, accepted) };
    const result = await rs.writeScale(rr.namespace, rr.name, write, opts);
    addWarnings(res, result.warnings);
    sendJson(res, 200, result.scale);
  }
}

/** The `includeObject` of a Table request (Metadata when absent), or kube's 400. */
export function includeObject(q: URLSearchParams): 'None' | 'Metadata' | 'Object' {
  const v = q.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`includeObject: Unsupported value: ${JSON.stringify(v)}: supported values: "None", "Metadata", "Object"`);
}

function decodeDeleteBody(body: Buffer, contentType: string | undefined): unknown {
  return mediaType(contentType) === 'application/yaml' ? parseYamlBody(body) : parseJson(body);
}

function allowed(rs: ResourceStore, rr: ResourceRequest): boolean {
  if (rr.subresource) {
    if (rr.subresource === 'status' || rr.subresource === 'scale' || rr.subresource === 'approval') return ['get', 'update', 'patch'].includes(rr.verb);
    if (rr.subresource === 'finalize') return rr.verb === 'update';
    return rr.verb === 'create';
  }
  return (rs.info.verbs as string[]).includes(rr.verb);
}

/** kube's answer for a path that names no served resource. */
export function notFoundPath(): Error {
  const err = notFound({ group: '', resource: '' }, '');
  err.status.message = 'the server could not find the requested resource';
  // go-restful's 404, as kube sends it (NewGenericServerResponse): empty details.
  err.status.details = {};
  return err;
}
