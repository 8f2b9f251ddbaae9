/**
 * Typed defaulting webhooks (controller-runtime's CustomDefaulter): `default`
 * changes the object in place and the server answers with the JSON Patch
 * between what was sent and what `default` left.
 */
import { deepCopy, type KubeObject } from '@operant/apimachinery';
import type { Kind } from '../../kind.js';
import type { WebhookHandler } from '../contracts.js';
import { admissionHandler, decodeObject, RequestAdmissionContext, responseForStatusError, type AdmissionContext, type AdmissionOptions } from './handler.js';
import { kindMismatch, subjectOf } from './kind-check.js';
import { copyParsedJson } from './parsed-copy.js';
import { allowed, denied, patched } from './responses.js';

/**
 * Sets defaults on an object of kind `T`. Return warnings to show the user, or
 * throw to deny: a {@link ValidationError} (422, Invalid), an API error (its
 * status) or any other error (403 with its message).
 *
 * @example
 * ```ts
 * import type * as appsv1 from 'kubernetes-types/apps/v1.js';
 * import type { CustomDefaulter, Typed } from '@operant/runtime';
 *
 * const deploymentDefaults: CustomDefaulter<Typed<appsv1.Deployment>> = {
 *   default(deployment) {
 *     deployment.spec = { ...deployment.spec!, revisionHistoryLimit: deployment.spec?.revisionHistoryLimit ?? 3 };
 *   },
 * };
 * ```
 */
export interface CustomDefaulter<T extends KubeObject> {
  default(obj: T, ctx: AdmissionContext): void | readonly string[] | Promise<void | readonly string[]>;
}

/**
 * A mutating webhook for `kind` (register it at {@link mutatePath}). DELETE
 * requests are allowed untouched, as in controller-runtime.
 *
 * @example
 * ```ts
 * import { defaulter, Deployment, mutatePath } from '@operant/runtime';
 *
 * mgr.webhookServer.register(mutatePath(Deployment), defaulter(Deployment, { default: (d) => void (d.metadata.labels ??= {}) }));
 * ```
 */
export function defaulter<T extends KubeObject>(kind: Kind<T>, impl: CustomDefaulter<T>, options: AdmissionOptions = {}): WebhookHandler {
  return admissionHandler(async (req, ctx) => {
    if (req.operation === 'DELETE') return allowed();
    const mismatch = kindMismatch(kind, req);
    if (mismatch) return mismatch;
    let original = decodeObject(req, kind);
    let obj: T;
    if (ctx instanceof RequestAdmissionContext && ctx.fromWire) {
      // The server parsed this object for this request alone: `default` changes it in place, and the
      // request keeps an exact copy, which the patch is computed from (see parsed-copy.ts).
      obj = original;
      original = copyParsedJson(original);
      req.object = original;
    } else {
      obj = deepCopy(original);
    }
    let warnings: void | readonly string[];
    try {
      const result = impl.default(obj, ctx);
      // Most defaulters are synchronous: their result needs no resumption through the microtask queue.
      warnings = isThenable(result) ? await result : result;
    } catch (err) {
      return responseForStatusError(err, req, subjectOf(kind, original)) ?? denied(err instanceof Error ? err.message : String(err));
    }
    return patched(original, obj, warnings ?? undefined);
  }, options);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}
