/**
 * The admission chain's webhook part, as kube-apiserver's MutatingAdmissionWebhook
 * and ValidatingAdmissionWebhook plugins run it:
 *
 * - `admit`: mutating webhooks one after another, ordered by configuration name and
 *   then by their order in the configuration; each gets an AdmissionReview and may
 *   answer with a JSONPatch, applied before the next one is called. Webhooks with
 *   `reinvocationPolicy: IfNeeded` are called once more when a later webhook changed
 *   the object.
 * - `validate`: validating webhooks, all at once; the first denial (in webhook order)
 *   is the answer.
 *
 * Denials, failures and their wording follow kube: `admission webhook "x" denied the
 * request: <message>` with the webhook's status code (at least 400); a failing call
 * under failurePolicy Fail is `Internal error occurred: failed calling webhook "x":
 * failed to call webhook: Post "<url>?timeout=10s": context deadline exceeded`, and is
 * ignored under Ignore.
 */
import { randomUUID } from 'node:crypto';
import {
  applyJsonPatch,
  badRequest,
  deepCopy,
  internalError,
  isJsonObject,
  jsonEqual,
  StatusError,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type GroupVersionKind,
  type KubeObject,
  type StatusDetails,
  type StatusReason,
} from '@operant/apimachinery';
import type { MvccStore } from '../storage/mvcc-store.js';
import { postWebhook, resolveWebhookTarget, WebhookCallError, type WebhookTarget } from '../webhooks/client.js';
import { defaultTimeoutSeconds, hasMatchConditions } from './configuration.js';
import { loadCelIf } from '../cel-loader.js';
import { compileWebhookConfiguration, isExemptFromWebhooks, matchConditionsAllow, matchWebhookRules, type CompiledWebhook, type MatchContext } from './matching.js';
import type { AdmissionAttributes, AdmissionUserInfo, ResourceEquivalence, WebhookInvocation } from './types.js';
import { ValidatingAdmissionPolicyPlugin, type PolicyPluginOptions } from './policy/dispatcher.js';

/** Storage prefixes of the two configuration kinds. */
const mutatingPrefix = '/admissionregistration.k8s.io/mutatingwebhookconfigurations/';
const validatingPrefix = '/admissionregistration.k8s.io/validatingwebhookconfigurations/';

/** Options of an {@link AdmissionChain}. */
export interface AdmissionChainOptions {
  /** Other versions serving the same objects, for matchPolicy Equivalent. Without it, only exact rules match. */
  equivalence?: ResourceEquivalence;
  /**
   * Told of every webhook call, for `apiserver_admission_webhook_admission_duration_seconds`:
   * `type` is kube's step type (`admit` for mutating webhooks), and a call is rejected
   * when it denied the request or failed under failurePolicy Fail.
   */
  observeWebhook?: (name: string, type: 'admit' | 'validating', operation: string, rejected: boolean, seconds: number) => void;
  /** Where ValidatingAdmissionPolicies find params and ask the authorizer. Policies are enforced either way. */
  policies?: PolicyPluginOptions;
}

/** Seconds since `start` (a `process.hrtime.bigint()`). */
function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** Per-call options of {@link AdmissionChain.admit}. */
export interface AdmitOptions {
  /**
   * Defaults the object after each webhook patch, as kube runs the object defaulter on
   * patched objects (e.g. the resource strategy's `applyDefaults`, or CRD schema defaults).
   */
  applyDefaults?: (obj: KubeObject) => void;
}

/** What the mutating webhooks made of the request. */
export interface AdmitResult {
  /** The object after every patch (the given object when nothing changed); absent for DELETE. */
  object?: KubeObject;
  /** Warnings from the webhooks, for the client's `Warning` headers. */
  warnings: string[];
  /** Whether any webhook changed the object. */
  patched: boolean;
}

/** What the validating admission policies and webhooks said. */
export interface ValidateResult {
  warnings: string[];
  /** Audit annotations the policies set (the server keeps no audit log: nothing records them yet). */
  auditAnnotations: Record<string, string>;
}

/** The request's objects in the version a webhook is called with. */
interface Versioned {
  object?: KubeObject;
  oldObject?: KubeObject;
}

/** A webhook call that failed (kube's ErrCallingWebhook): failurePolicy decides. */
class CallFailure extends Error {
  constructor(webhookName: string, reason: string) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`);
    this.name = 'CallFailure';
  }
}

const warningsOfErrors = new WeakMap<object, string[]>();

/**
 * The webhook warnings collected before admission failed, to be sent as `Warning`
 * headers with the error response (kube sends them either way).
 */
export function admissionWarnings(err: unknown): string[] {
  return (typeof err === 'object' && err !== null && warningsOfErrors.get(err)) || [];
}

function withWarnings(err: unknown, warnings: readonly string[]): unknown {
  if (typeof err === 'object' && err !== null && warnings.length > 0) warningsOfErrors.set(err, [...warnings]);
  return err;
}

/** Collects warnings as kube's recorder does: no empty ones, no repeats. */
class WarningSink {
  readonly list: string[] = [];
  add(w: unknown): void {
    if (typeof w !== 'string' || w.length === 0 || this.list.includes(w)) return;
    this.list.push(w);
  }
}

/** The `response` of an AdmissionReview as a webhook sent it: untrusted until checked. */
type ReviewResponse = { [K in keyof AdmissionResponse]?: unknown };

/** A denial's Status as kube's webhookerrors.ToStatusErr shapes it. */
function denial(webhookName: string, result: unknown): StatusError {
  const r = isJsonObject(result) ? result : {};
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  let code = typeof r.code === 'number' ? Math.trunc(r.code) : 0;
  if (code < 400) code = 400;
  const message = typeof r.message === 'string' && r.message ? r.message : '';
  const reason = typeof r.reason === 'string' ? r.reason : '';
  const text = message ? `${deniedBy}: ${message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = isJsonObject(r.details) ? (r.details as StatusDetails) : undefined;
  const err = new StatusError(code, (reason || 'BadRequest') as StatusReason, text, details);
  if (!reason) delete err.status.reason;
  return err;
}

/** kube's NewDryRunUnsupportedErr. */
function dryRunUnsupported(webhookName: string): StatusError {
  return badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}

/** Go's `time.Duration.String()` of whole seconds, as kube writes the `timeout` query parameter. */
function timeoutParam(seconds: number): string {
  return `timeout=${seconds}s`;
}

function withTimeoutQuery(target: WebhookTarget, seconds: number): WebhookTarget {
  const sep = target.path.includes('?') ? '&' : '?';
  const displaySep = target.displayUrl.includes('?') ? '&' : '?';
  return { ...target, path: `${target.path}${sep}${timeoutParam(seconds)}`, displayUrl: `${target.displayUrl}${displaySep}${timeoutParam(seconds)}` };
}

function userInfoJson(u: AdmissionUserInfo): AdmissionUserInfo {
  const out: AdmissionUserInfo = { username: u.username };
  if (u.uid) out.uid = u.uid;
  if (u.groups && u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length > 0) out.extra = deepCopy(u.extra);
  return out;
}

function sameKind(a: GroupVersionKind, b: GroupVersionKind): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

/** Runs the webhook configurations stored in `store` over requests. */
export class AdmissionChain {
  private readonly compiled = new WeakMap<KubeObject, CompiledWebhook[]>();
  private readonly matchContext: MatchContext;
  private readonly policies: ValidatingAdmissionPolicyPlugin;

  constructor(
    private readonly store: MvccStore,
    private readonly opts: AdmissionChainOptions = {},
  ) {
    this.matchContext = {
      namespaceLabels: (name) => {
        const ns = this.store.get(`/core/namespaces/${name}`)?.value;
        return ns ? (ns.metadata.labels ?? {}) : undefined;
      },
      equivalence: opts.equivalence,
    };
    this.policies = new ValidatingAdmissionPolicyPlugin(store, this.matchContext, opts.policies);
  }

  /** The webhooks of one kind, ordered by configuration name and then by position. */
  private webhooks(mutating: boolean): CompiledWebhook[] | Promise<CompiledWebhook[]> {
    const { items } = this.store.list(mutating ? mutatingPrefix : validatingPrefix);
    if (items.length === 0) return [];
    // Match conditions compile with CEL, loaded when first needed (a restart on stored configurations).
    const loading = loadCelIf(items.some((v) => hasMatchConditions(v.value)));
    if (loading) return loading.then(() => this.webhooks(mutating));
    const configs = items.map((v) => v.value).sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
    const out: CompiledWebhook[] = [];
    for (const config of configs) {
      let hooks = this.compiled.get(config);
      if (!hooks) {
        hooks = compileWebhookConfiguration(config, mutating);
        this.compiled.set(config, hooks);
      }
      out.push(...hooks);
    }
    return out;
  }

  /**
   * Whether {@link admit} would answer at once with the object unchanged and no warnings,
   * whatever the request: no mutating webhook configuration is stored. A write checks this
   * first and then skips building the attributes and the asynchronous steps (the write path is hot).
   */
  mutatingIdle(): boolean {
    return this.store.list(mutatingPrefix).items.length === 0;
  }

  /**
   * Whether {@link validate} would answer at once with no warnings, whatever the request:
   * no validating webhook configuration and no policy binding is stored (a policy acts
   * only through a binding).
   */
  validatingIdle(): boolean {
    return this.store.list(validatingPrefix).items.length === 0 && this.policies.idle();
  }

  /** Kube's view of the request: a Namespace's namespace is its own name. */
  private normalize(attrs: AdmissionAttributes): AdmissionAttributes {
    const subResource = attrs.subResource ?? '';
    let namespace = attrs.namespace;
    if (!namespace && attrs.resource.group === '' && attrs.resource.resource === 'namespaces') namespace = attrs.name;
    if (namespace === attrs.namespace && subResource === attrs.subResource) return attrs;
    return { ...attrs, namespace, subResource };
  }

  /**
   * Runs the mutating webhooks. Throws a StatusError when a webhook denies the request,
   * fails under failurePolicy Fail, or answers with a patch that does not apply.
   */
  async admit(attributes: AdmissionAttributes, admitOpts: AdmitOptions = {}): Promise<AdmitResult> {
    const attrs = this.normalize(attributes);
    if (isExemptFromWebhooks(attrs)) return { object: attrs.object, warnings: [], patched: false };
    const found = this.webhooks(true);
    const hooks = Array.isArray(found) ? found : await found;
    if (hooks.length === 0) return { object: attrs.object, warnings: [], patched: false };

    const sink = new WarningSink();
    const state = { object: attrs.object, patched: false };
    const previouslyInvoked = new Set<string>();
    const reinvoke = new Set<string>();
    let shouldReinvoke = false;

    const runRound = async (round: 0 | 1): Promise<void> => {
      for (const hook of hooks) {
        const current: AdmissionAttributes = { ...attrs, object: state.object };
        const invocation = matchWebhookRules(hook, current, this.matchContext);
        if (!invocation) continue;
        const versioned = await this.versioned(current, invocation);
        if (!matchConditionsAllow(hook, current, invocation, versioned.object, versioned.oldObject)) continue;
        // A webhook skipped in the first round is never called for the first time in the second.
        if (round === 1 && !reinvoke.has(hook.uid)) continue;
        let changed = false;
        let failure: unknown;
        const started = process.hrtime.bigint();
        try {
          changed = await this.callMutating(hook, current, invocation, versioned, state, sink, admitOpts);
        } catch (e) {
          failure = e;
        }
        const rejected = failure !== undefined && !(failure instanceof CallFailure && hook.webhook.failurePolicy === 'Ignore');
        this.opts.observeWebhook?.(hook.name, 'admit', attrs.operation, rejected, secondsSince(started));
        if (changed) {
          for (const uid of previouslyInvoked) reinvoke.add(uid);
          previouslyInvoked.clear();
          shouldReinvoke = true;
        }
        if (hook.webhook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(hook.uid);
        if (failure === undefined) continue;
        if (failure instanceof CallFailure) {
          if (hook.webhook.failurePolicy === 'Ignore') continue;
          throw internalError(failure.message);
        }
        throw failure;
      }
    };

    try {
      await runRound(0);
      if (shouldReinvoke && reinvoke.size > 0) await runRound(1);
    } catch (e) {
      throw withWarnings(e, sink.list);
    }
    return { object: state.object, warnings: sink.list, patched: state.patched };
  }

  /**
   * The validating phase: ValidatingAdmissionPolicies first, then the validating webhooks
   * in parallel, as kube orders its plugins. Throws the first failure as a StatusError
   * (a policy's denial, else the first webhook's in webhook order), carrying the warnings
   * gathered so far; webhook failures under failurePolicy Ignore are dropped.
   */
  async validate(attributes: AdmissionAttributes): Promise<ValidateResult> {
    const attrs = this.normalize(attributes);
    const policies = await this.policies.validate(attrs, (a, invocation) => this.versioned(a, invocation));
    if (policies.denial) throw withWarnings(policies.denial, policies.warnings);
    const auditAnnotations = policies.auditAnnotations;
    if (isExemptFromWebhooks(attrs)) return { warnings: policies.warnings, auditAnnotations };
    const found = this.webhooks(false);
    const hooks = Array.isArray(found) ? found : await found;
    if (hooks.length === 0) return { warnings: policies.warnings, auditAnnotations };

    // Matching (selectors, rules, match conditions) decides before any webhook is called.
    const relevant: Array<{ hook: CompiledWebhook; invocation: WebhookInvocation; versioned: Versioned }> = [];
    for (const hook of hooks) {
      const invocation = matchWebhookRules(hook, attrs, this.matchContext);
      if (!invocation) continue;
      const versioned = await this.versioned(attrs, invocation);
      if (!matchConditionsAllow(hook, attrs, invocation, versioned.object, versioned.oldObject)) continue;
      relevant.push({ hook, invocation, versioned });
    }
    if (relevant.length === 0) return { warnings: policies.warnings, auditAnnotations };

    const perHook = await Promise.all(
      relevant.map(async ({ hook, invocation, versioned }) => {
        const sink = new WarningSink();
        const started = process.hrtime.bigint();
        const observe = (rejected: boolean): void => this.opts.observeWebhook?.(hook.name, 'validating', attrs.operation, rejected, secondsSince(started));
        try {
          await this.callValidating(hook, attrs, invocation, versioned, sink);
          observe(false);
          return { sink };
        } catch (e) {
          const ignored = e instanceof CallFailure && hook.webhook.failurePolicy === 'Ignore';
          observe(!ignored);
          if (e instanceof CallFailure) {
            if (ignored) return { sink };
            return { sink, error: internalError(e.message) as unknown };
          }
          return { sink, error: e };
        }
      }),
    );
    const all = new WarningSink();
    for (const w of policies.warnings) all.add(w);
    for (const r of perHook) for (const w of r.sink.list) all.add(w);
    const failed = perHook.find((r) => r.error !== undefined);
    if (failed) throw withWarnings(failed.error, all.list);
    return { warnings: all.list, auditAnnotations };
  }

  /** The objects in the version the webhook is called with. */
  private async versioned(attrs: AdmissionAttributes, invocation: WebhookInvocation): Promise<Versioned> {
    if (sameKind(invocation.kind, attrs.kind) || !this.opts.equivalence) return { object: attrs.object, oldObject: attrs.oldObject };
    const eq = this.opts.equivalence;
    try {
      return {
        object: attrs.object ? await eq.convert(attrs.object, invocation.kind) : undefined,
        oldObject: attrs.oldObject ? await eq.convert(attrs.oldObject, invocation.kind) : undefined,
      };
    } catch (e) {
      if (e instanceof StatusError) throw e;
      throw internalError(e instanceof Error ? e.message : String(e));
    }
  }

  /** Calls one mutating webhook and applies its patch to `state`; returns whether the object changed. */
  private async callMutating(
    hook: CompiledWebhook,
    attrs: AdmissionAttributes,
    invocation: WebhookInvocation,
    versioned: Versioned,
    state: { object?: KubeObject; patched: boolean },
    sink: WarningSink,
    admitOpts: AdmitOptions,
  ): Promise<boolean> {
    const response = await this.call(hook, attrs, invocation, versioned, true);
    for (const w of Array.isArray(response.warnings) ? response.warnings : []) sink.add(w);
    if (response.allowed !== true) throw denial(hook.name, response.status);

    const patchText = typeof response.patch === 'string' ? response.patch : '';
    if (patchText.length === 0) return false;
    let ops: unknown;
    try {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(patchText.replace(/\s/g, ''))) throw new Error('illegal base64 data');
      ops = JSON.parse(Buffer.from(patchText, 'base64').toString('utf8'));
    } catch (e) {
      throw new CallFailure(hook.name, `received undecodable patch in webhook response: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!Array.isArray(ops)) {
      const what = ops === null ? 'null' : typeof ops === 'object' ? 'object' : typeof ops;
      throw new CallFailure(hook.name, `received undecodable patch in webhook response: json: cannot unmarshal ${what} into Go value of type jsonpatch.Patch`);
    }
    if (ops.length === 0) return false;
    if (!versioned.object) {
      throw internalError(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
    }
    if (response.patchType !== 'JSONPatch') throw new CallFailure(hook.name, `unsupported patch type ${JSON.stringify(response.patchType)}`);

    let patched: unknown;
    try {
      patched = applyJsonPatch(versioned.object, ops);
    } catch (e) {
      if (e instanceof StatusError && typeof e.cause === 'string') throw internalError(e.cause);
      throw internalError(e instanceof Error ? e.message : String(e));
    }
    if (!isJsonObject(patched) || !isJsonObject(patched.metadata)) {
      throw internalError(`admission webhook ${JSON.stringify(hook.name)} returned a patch that leaves no object metadata`);
    }
    let next = patched as KubeObject;
    const changed = !jsonEqual(versioned.object, next);
    if (!sameKind(invocation.kind, attrs.kind) && this.opts.equivalence) next = await this.opts.equivalence.convert(next, attrs.kind);
    admitOpts.applyDefaults?.(next);
    state.object = next;
    if (changed) state.patched = true;
    return changed;
  }

  /** Calls one validating webhook; throws its denial. */
  private async callValidating(
    hook: CompiledWebhook,
    attrs: AdmissionAttributes,
    invocation: WebhookInvocation,
    versioned: Versioned,
    sink: WarningSink,
  ): Promise<void> {
    const response = await this.call(hook, attrs, invocation, versioned, false);
    for (const w of Array.isArray(response.warnings) ? response.warnings : []) sink.add(w);
    if (response.allowed !== true) throw denial(hook.name, response.status);
  }

  /** Sends the AdmissionReview and checks the answer's envelope as kube's VerifyAdmissionResponse does. */
  private async call(
    hook: CompiledWebhook,
    attrs: AdmissionAttributes,
    invocation: WebhookInvocation,
    versioned: Versioned,
    mutating: boolean,
  ): Promise<ReviewResponse> {
    const w = hook.webhook;
    if (attrs.dryRun) {
      if (w.sideEffects === undefined || w.sideEffects === null) throw new CallFailure(hook.name, 'Webhook SideEffects is nil');
      if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
    }
    const versions = Array.isArray(w.admissionReviewVersions) ? w.admissionReviewVersions : [];
    const reviewVersion = versions.find((v) => v === 'v1' || v === 'v1beta1');
    if (!reviewVersion) {
      throw new CallFailure(hook.name, 'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
    }
    const uid = randomUUID();
    const review: AdmissionReview = {
      kind: 'AdmissionReview',
      apiVersion: reviewVersion === 'v1' ? 'admission.k8s.io/v1' : 'admission.k8s.io/v1beta1',
      request: this.request(uid, attrs, invocation, versioned),
    };

    const timeoutSeconds = typeof w.timeoutSeconds === 'number' && w.timeoutSeconds > 0 ? w.timeoutSeconds : defaultTimeoutSeconds;
    const answer = await this.post(hook, review, timeoutSeconds);

    const response = isJsonObject(answer.response) ? (answer.response as ReviewResponse) : undefined;
    const invalid = (why: string) => new CallFailure(hook.name, `received invalid webhook response: ${why}`);
    if (!response) throw invalid('webhook response was absent');
    if (reviewVersion === 'v1') {
      if (response.uid !== uid) throw invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof response.uid === 'string' ? response.uid : '')}`);
      const apiVersion = typeof answer.apiVersion === 'string' ? answer.apiVersion : '';
      const kind = typeof answer.kind === 'string' ? answer.kind : '';
      if (apiVersion !== 'admission.k8s.io/v1' || kind !== 'AdmissionReview') {
        const slash = apiVersion.indexOf('/');
        const gv = slash < 0 ? `/${apiVersion}` : apiVersion;
        throw invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gv}, Kind=${kind}`);
      }
      const hasPatch = typeof response.patch === 'string' && response.patch.length > 0;
      const hasPatchType = response.patchType !== undefined && response.patchType !== null;
      if (mutating) {
        if (hasPatch && !hasPatchType) throw invalid('webhook returned response.patch but not response.patchType');
        if (!hasPatch && hasPatchType) throw invalid('webhook returned response.patchType but not response.patch');
        if (hasPatchType && response.patchType === '') throw invalid('webhook returned invalid response.patchType of ""');
      } else {
        if (hasPatch) throw invalid('validating webhook may not return response.patch');
        if (hasPatchType) throw invalid('validating webhook may not return response.patchType');
      }
    } else if (mutating && typeof response.patch === 'string' && response.patch.length > 0) {
      // v1beta1 never checked the patch type; JSONPatch is the only one there is.
      return { ...response, patchType: 'JSONPatch' };
    } else if (!mutating) {
      return { ...response, patch: undefined, patchType: undefined };
    }
    return response;
  }

  /** The AdmissionRequest, with the fields and omissions of kube's JSON. */
  private request(
    uid: string,
    attrs: AdmissionAttributes,
    invocation: WebhookInvocation,
    versioned: Versioned,
  ): AdmissionRequest {
    const rk = attrs.requestKind ?? attrs.kind;
    const rr = attrs.requestResource ?? attrs.resource;
    const rs = attrs.requestSubResource ?? attrs.subResource ?? '';
    // The keys in the order of kube's JSON, the empty optional ones left out.
    return {
      uid,
      kind: { group: invocation.kind.group, version: invocation.kind.version, kind: invocation.kind.kind },
      resource: { group: invocation.resource.group, version: invocation.resource.version, resource: invocation.resource.resource },
      ...(invocation.subResource ? { subResource: invocation.subResource } : {}),
      requestKind: { group: rk.group, version: rk.version, kind: rk.kind },
      requestResource: { group: rr.group, version: rr.version, resource: rr.resource },
      ...(rs ? { requestSubResource: rs } : {}),
      ...(attrs.name ? { name: attrs.name } : {}),
      ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
      operation: attrs.operation,
      userInfo: userInfoJson(attrs.userInfo),
      object: versioned.object ?? null,
      oldObject: versioned.oldObject ?? null,
      dryRun: attrs.dryRun,
      options: attrs.options ? { ...attrs.options, apiVersion: attrs.options.apiVersion ?? 'meta.k8s.io/v1' } : null,
    };
  }

  /** POSTs the review within the webhook's timeout; every failure becomes a CallFailure. */
  private async post(hook: CompiledWebhook, review: AdmissionReview, timeoutSeconds: number): Promise<Record<string, unknown>> {
    const config = hook.webhook.clientConfig ?? {};
    let target: WebhookTarget;
    try {
      target = resolveWebhookTarget(config, this.store);
    } catch (e) {
      throw new CallFailure(hook.name, `failed to call webhook: ${this.withTimeoutInMessage(e, config, timeoutSeconds)}`);
    }
    const timed = withTimeoutQuery(target, timeoutSeconds);
    const timeoutMs = timeoutSeconds * 1000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WebhookCallError(`Post "${timed.displayUrl}": context deadline exceeded`, true)), timeoutMs);
    });
    const call = postWebhook(timed, config.caBundle, review, timeoutMs);
    // The losing side of the race must not surface as an unhandled rejection.
    call.catch(() => {});
    try {
      return await Promise.race([call, deadline]);
    } catch (e) {
      throw new CallFailure(hook.name, `failed to call webhook: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolution errors name the URL without the timeout parameter; kube's include it. */
  private withTimeoutInMessage(e: unknown, config: { url?: string; service?: { namespace: string; name: string; path?: string; port?: number } }, timeoutSeconds: number): string {
    const message = e instanceof Error ? e.message : String(e);
    let display: string | undefined;
    if (config.url) display = config.url;
    else if (config.service) display = `https://${config.service.name}.${config.service.namespace}.svc:${config.service.port ?? 443}${config.service.path ?? '/'}`;
    if (!display) return message;
    const sep = display.includes('?') ? '&' : '?';
    return message.replace(`Post "${display}"`, `Post "${display}${sep}${timeoutParam(timeoutSeconds)}"`);
  }
}
