/**
 * Raw admission handlers: a function from an AdmissionRequest to an
 * AdmissionResponse, for any kind (the Pod injection webhook), with typed
 * decoding of `object`/`oldObject` and a client to read other resources.
 */
import { StatusError, invalid, type KubeObject } from '@operant/apimachinery';
import type { ObjectClient } from '../../client/interfaces.js';
import { childLogger } from '../../controller/logger.js';
import type { Kind } from '../../kind.js';
import type { WebhookHandler, WebhookRequestContext } from '../contracts.js';
import { RequestContext } from '../http/request-context.js';
import { deniedWithStatus, errored } from './responses.js';
import { completeReview, decodeAdmissionReview } from './review.js';
import type { AdmissionRequest, AdmissionResponse } from './types.js';
import { ValidationError } from './validation-error.js';
import type { Logger } from '../../logging/log.js';

/**
 * What an admission handler is given besides the request.
 *
 * @example
 * ```ts
 * import { allowed, ConfigMap, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req, ctx) => {
 *   const settings = await ctx.client.list(ConfigMap, { namespace: req.namespace });
 *   ctx.log.info({ count: settings.items.length }, 'config maps in the namespace');
 *   return allowed();
 * };
 * ```
 */
export interface AdmissionContext extends WebhookRequestContext {
  /** The request being admitted (also handy in typed handlers). */
  readonly request: AdmissionRequest;
  /** True when the request will not be persisted: skip side effects. */
  readonly dryRun: boolean;
  /** The client given in {@link AdmissionOptions}, else the webhook server's (the manager's `mgr.client`); reading it with neither throws. */
  readonly client: ObjectClient;
  /** The path's logger with the request's uid, kind, operation, namespace and name; `log.child({...})` is logr's `WithValues`. */
  readonly log: Logger;
}

/**
 * Answers one admission request. Throwing a {@link ValidationError}, an
 * `ApiError` or a `StatusError` denies with its status; throwing anything else
 * is a panic: the server answers `status.code` 500 and counts it.
 *
 * @example
 * ```ts
 * import { decodeObject, patched, Pod, type AdmissionHandler } from '@operant/runtime';
 *
 * const injectSidecar: AdmissionHandler = async (req) => {
 *   const pod = decodeObject(req, Pod);
 *   const mutated = structuredClone(pod);
 *   mutated.spec?.containers.push({ name: 'proxy', image: 'envoy' });
 *   return patched(pod, mutated);
 * };
 * ```
 */
export type AdmissionHandler = (req: AdmissionRequest, ctx: AdmissionContext) => Promise<AdmissionResponse>;

/**
 * What admission handlers are given: the client they read other resources with
 * (usually the manager's, `mgr.client`).
 *
 * @example
 * ```ts
 * import { admissionHandler, allowed, generateServingCertificate, WebhookServer, type AdmissionHandler } from '@operant/runtime';
 *
 * const injectSidecar: AdmissionHandler = async () => allowed();
 * mgr.webhookServer.register('/mutate-pods', admissionHandler(injectSidecar)); // ctx.client is mgr.client
 * const standalone = new WebhookServer({ certificates: (await generateServingCertificate()).source });
 * standalone.register('/mutate-pods', admissionHandler(injectSidecar, { client })); // a server of your own
 * ```
 */
export interface AdmissionOptions {
  client?: ObjectClient;
}

/**
 * A request body that cannot be decoded as the kind a handler expects: answered
 * with `status.code` 400.
 *
 * @example
 * ```ts
 * import { DecodeError, decodeObject, errored, patched, Pod, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => {
 *   try {
 *     const pod = decodeObject(req, Pod);
 *     return patched(pod, { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, seen: 'true' } } });
 *   } catch (err) {
 *     if (err instanceof DecodeError) return errored(400, err);
 *     throw err;
 *   }
 * };
 * ```
 */
export class DecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}

/**
 * Serves an {@link AdmissionHandler} as a webhook: decodes the AdmissionReview
 * (v1 or v1beta1), calls the handler and answers in the same version with the
 * request's uid.
 *
 * @example
 * ```ts
 * import { admissionHandler, allowed } from '@operant/runtime';
 *
 * mgr.webhookServer.register('/mutate-pods', admissionHandler(async (req, ctx) => allowed()));
 * ```
 */
export function admissionHandler(handle: AdmissionHandler, options: AdmissionOptions = {}): WebhookHandler {
  return async (body, base) => {
    const { apiVersion, request } = decodeAdmissionReview(body);
    const ctx = new RequestAdmissionContext(request, base, options);
    let response: AdmissionResponse;
    try {
      response = await handle(request, ctx);
    } catch (err) {
      const answer = responseForStatusError(err, request);
      if (!answer) throw err;
      response = answer;
    }
    return completeReview(apiVersion, request, response);
  };
}

/**
 * Made per request, so its logger (a child with five fields) is built only when a handler logs.
 * Internal: the typed handlers read `fromWire`.
 */
export class RequestAdmissionContext implements AdmissionContext {
  readonly dryRun: boolean;
  /** The review came from the webhook server, which parsed it from JSON: its objects hold JSON's values only. */
  readonly fromWire: boolean;
  private logger: Logger | undefined;

  constructor(
    readonly request: AdmissionRequest,
    private readonly base: WebhookRequestContext,
    private readonly options: AdmissionOptions,
  ) {
    this.dryRun = request.dryRun === true;
    this.fromWire = base instanceof RequestContext;
  }

  get signal(): AbortSignal {
    return this.base.signal;
  }

  get log(): Logger {
    if (!this.logger) {
      const request = this.request;
      this.logger = childLogger(this.base.log, {
        uid: request.uid,
        kind: request.kind.kind,
        operation: request.operation,
        ...(request.namespace ? { namespace: request.namespace } : {}),
        ...(request.name ? { name: request.name } : {}),
      });
    }
    return this.logger;
  }

  get client(): ObjectClient {
    const client = this.options.client ?? this.base.client;
    if (!client) throw new Error('this admission handler has no client: serve it from the manager\'s webhook server, or pass { client } when creating it');
    return client;
  }
}

/**
 * The denial for an error that carries its own answer: field errors (Invalid,
 * 422), API errors (their Status) and decode errors (400); undefined otherwise.
 * `subject` names the kind and object for the Invalid wording.
 */
export function responseForStatusError(err: unknown, request: AdmissionRequest, subject?: { group: string; kind: string; name: string }): AdmissionResponse | undefined {
  if (err instanceof ValidationError) {
    const who = subject ?? { group: request.kind.group, kind: request.kind.kind, name: objectName(request) };
    return deniedWithStatus(invalid(who.group, who.kind, who.name, [...err.errors]).status, err.warnings);
  }
  if (err instanceof StatusError) return deniedWithStatus(err.status);
  if (err instanceof DecodeError) return errored(400, err);
  return undefined;
}

function objectName(request: AdmissionRequest): string {
  return request.name ?? request.object?.metadata?.name ?? request.oldObject?.metadata?.name ?? '';
}

/**
 * `apps.kruise.io/v1alpha1, Kind=SidecarSet`; `/v1, Kind=Pod` (Go's GroupVersionKind.String),
 * so messages read as kube's do.
 *
 * @example
 * ```ts
 * import { Deployment, formatGroupVersionKind } from '@operant/runtime';
 *
 * formatGroupVersionKind(Deployment); // 'apps/v1, Kind=Deployment'
 * formatGroupVersionKind({ group: '', version: 'v1', kind: 'Pod' }); // '/v1, Kind=Pod'
 * ```
 */
export function formatGroupVersionKind(k: { group: string; version: string; kind: string }): string {
  return `${k.group}/${k.version}, Kind=${k.kind}`;
}

/**
 * The request's `object` as a `kind` (e.g. a Pod); a {@link DecodeError} when
 * it is absent (DELETE) or of another kind.
 *
 * @example
 * ```ts
 * import { allowed, decodeObject, Pod, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => {
 *   const pod = decodeObject(req, Pod); // a typed Pod, its apiVersion and kind checked
 *   return allowed();
 * };
 * ```
 */
export function decodeObject<T extends KubeObject>(req: AdmissionRequest, kind?: Kind<T>): T {
  return decodeField(req, 'object', kind);
}

/**
 * The request's `oldObject` (UPDATE and DELETE) as a `kind`; a {@link DecodeError} when absent or of another kind.
 *
 * @example
 * ```ts
 * import { allowed, decodeObject, decodeOldObject, Deployment, denied, type AdmissionHandler } from '@operant/runtime';
 *
 * const handler: AdmissionHandler = async (req) => {
 *   const before = decodeOldObject(req, Deployment);
 *   const after = decodeObject(req, Deployment);
 *   return after.spec?.replicas === 0 && (before.spec?.replicas ?? 1) > 0 ? denied('scale down to zero with a ticket') : allowed();
 * };
 * ```
 */
export function decodeOldObject<T extends KubeObject>(req: AdmissionRequest, kind?: Kind<T>): T {
  return decodeField(req, 'oldObject', kind);
}

function decodeField<T extends KubeObject>(req: AdmissionRequest, field: 'object' | 'oldObject', kind: Kind<T> | undefined): T {
  const value = req[field];
  if (value === undefined || value === null) throw new DecodeError(`there is no content to decode: the request has no ${field}`);
  if (typeof value !== 'object' || Array.isArray(value)) throw new DecodeError(`the request's ${field} is not an object`);
  if (kind) {
    const expected = kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
    const apiVersion = value.apiVersion ?? expected;
    const objectKind = value.kind ?? kind.kind;
    if (apiVersion !== expected || objectKind !== kind.kind) {
      throw new DecodeError(`cannot decode ${apiVersion}, Kind=${objectKind} as ${formatGroupVersionKind(kind)}`);
    }
  }
  return value as T;
}
