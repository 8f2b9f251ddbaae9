/**
 * The params a binding hands its policy (kube's generic.CollectParams): none
 * when the policy has no paramKind or the binding no paramRef (one evaluation
 * with `params` null); the object named by paramRef.name, or every object
 * paramRef.selector selects (one evaluation each), of the paramKind, read from
 * the store in the paramKind's version, in paramRef.namespace or else the
 * request's namespace for a namespaced kind. None found is an error under
 * parameterNotFoundAction Deny, and no evaluation under Allow. Errors carry
 * kube's words; the dispatcher reports them as configuration errors.
 */
import { isJsonObject, labelSelectorFromObject, type KubeObject } from '@operant/apimachinery';

/** Reads objects of one kind, as served in the paramKind's version. */
export interface ParamStore {
  readonly namespaced: boolean;
  /** The object, or undefined when there is none. */
  get(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Every object in the namespace (`''`: cluster-scoped kinds). */
  list(namespace: string): Promise<KubeObject[]>;
}

/** Finds where objects of a paramKind are kept; undefined when the server serves no such kind. */
export type ParamResolver = (group: string, version: string, kind: string) => ParamStore | undefined;

/** A paramKind's group, version and kind; undefined when its apiVersion does not parse. */
export function parseParamKind(pk: { apiVersion: string; kind: string }): { group: string; version: string; kind: string } | undefined {
  const parts = pk.apiVersion.split('/');
  if (parts.length > 2) return undefined;
  const [group, version] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  return { group, version, kind: pk.kind };
}

/** A binding's paramRef as stored. */
interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: unknown;
  parameterNotFoundAction?: string;
}

/**
 * The params to evaluate the policy with: `[null]` without params, else the found
 * objects (possibly none). Throws an Error with kube's message on a misconfiguration.
 */
export async function collectParams(paramStore: ParamStore | undefined, rawRef: unknown, namespace: string): Promise<Array<KubeObject | null>> {
  if (!paramStore || !isJsonObject(rawRef)) return [null];
  const ref = rawRef as ParamRef;
  let paramsNamespace = '';
  if (paramStore.namespaced) {
    paramsNamespace = ref.namespace || namespace;
    if (paramsNamespace === '') throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (ref.namespace) {
    throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KubeObject[];
  if (ref.name) {
    if (ref.selector !== undefined && ref.selector !== null) throw new Error('paramRef.name and paramRef.selector are mutually exclusive');
    const found = await paramStore.get(paramsNamespace, ref.name);
    params = found ? [found] : [];
  } else if (ref.selector !== undefined && ref.selector !== null) {
    const selector = labelSelectorFromObject(isJsonObject(ref.selector) ? ref.selector : undefined, { absent: 'everything' });
    params = (await paramStore.list(paramsNamespace)).filter((o) => selector.matches(o.metadata.labels ?? {}));
  } else {
    throw new Error('one of name or selector must be provided');
  }
  if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
  return params;
}
