/**
 * controller-runtime's hub-and-spoke conversion, typed: per kind one hub
 * version, and spokes that convert to and from the hub. Any version reaches
 * any other through the hub, so N versions need 2(N-1) functions, not N².
 */
import { deepCopy, type KubeObject, type ObjectMeta } from '@operant/apimachinery';

/**
 * A kind at one version; a {@link Kind} value fits, and carries the object type.
 *
 * @example
 * ```ts
 * import type { Typed, VersionedKind } from '@operant/runtime';
 *
 * type WidgetV2 = Typed<{ spec: { size: number } }>;
 * const WidgetV2: VersionedKind<WidgetV2> = { group: 'example.com', version: 'v2', kind: 'Widget' };
 * ```
 */
export interface VersionedKind<T extends KubeObject = KubeObject> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Phantom field: only carries `T` for type inference. */
  readonly __type?: T;
}

/**
 * How one spoke version converts to and from the hub. Each function gets its
 * own copy of the object, so it may change and return it. The result's
 * apiVersion and kind are set for you; of its metadata only labels and
 * annotations are taken (the API server allows no other metadata change), the
 * rest stays the original's.
 *
 * @example
 * ```ts
 * import type { SpokeConversion, Typed } from '@operant/runtime';
 *
 * type WidgetV1 = Typed<{ spec: { replicas: number; paused?: boolean } }>; // the hub
 * type WidgetV2 = Typed<{ spec: { size: number; paused?: boolean } }>;
 * const v2: SpokeConversion<WidgetV2, WidgetV1> = {
 *   toHub: ({ spec: { size, ...spec }, ...w }) => ({ ...w, spec: { ...spec, replicas: size } }),
 *   fromHub: ({ spec: { replicas, ...spec }, ...w }) => ({ ...w, spec: { ...spec, size: replicas } }),
 * };
 * ```
 */
export interface SpokeConversion<S extends KubeObject, H extends KubeObject> {
  toHub(spoke: S): H | Promise<H>;
  fromHub(hub: H): S | Promise<S>;
}

/**
 * A conversion failure, naming the object and the versions.
 *
 * @example
 * ```ts
 * import { ConversionError, type KindConversion, type KubeObject } from '@operant/runtime';
 *
 * declare const widgets: KindConversion, obj: KubeObject;
 * try {
 *   await widgets.convert(obj, 'example.com/v2');
 * } catch (e) {
 *   if (e instanceof ConversionError) console.error(e.message); // converting Widget "default/w1" from example.com/v1 to example.com/v2: ...
 * }
 * ```
 */
export class ConversionError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConversionError';
  }
}

/**
 * What a conversion handler needs of one kind's conversions; {@link KindConversion} is one.
 *
 * @example
 * ```ts
 * import { defineConversion, type ConversionRegistration } from '@operant/runtime';
 *
 * const widgets = defineConversion({ group: 'example.com', version: 'v1', kind: 'Widget' });
 * const gadgets = defineConversion({ group: 'example.com', version: 'v1beta1', kind: 'Gadget' });
 * const registrations: ConversionRegistration[] = [widgets, gadgets];
 * ```
 */
export interface ConversionRegistration {
  readonly group: string;
  readonly kind: string;
  readonly hubVersion: string;
  /** Every version it converts between: the hub's first, then the spokes'. */
  readonly versions: readonly string[];
  /** Converts `obj` (of this group and kind) to `desiredAPIVersion` (`<group>/<version>`). */
  convert(obj: KubeObject, desiredAPIVersion: string): Promise<KubeObject>;
}

type AnySpoke = SpokeConversion<KubeObject, KubeObject>;

/**
 * One kind's conversions: its hub and its spokes. Made by {@link defineConversion}.
 *
 * @example
 * ```ts
 * import { defineConversion, type Typed, type VersionedKind } from '@operant/runtime';
 *
 * type WidgetV1 = Typed<{ spec: { replicas: number } }>; // the hub
 * type WidgetV2 = Typed<{ spec: { size: number } }>;
 * const WidgetV1: VersionedKind<WidgetV1> = { group: 'example.com', version: 'v1', kind: 'Widget' };
 * const WidgetV2: VersionedKind<WidgetV2> = { group: 'example.com', version: 'v2', kind: 'Widget' };
 * const widgets = defineConversion(WidgetV1).spoke(WidgetV2, {
 *   toHub: ({ spec, ...w }) => ({ ...w, spec: { replicas: spec.size } }),
 *   fromHub: ({ spec, ...w }) => ({ ...w, spec: { size: spec.replicas } }),
 * });
 * declare const v1: WidgetV1;
 * const v2 = await widgets.convert(v1, 'example.com/v2');
 * ```
 */
export class KindConversion<H extends KubeObject = KubeObject> implements ConversionRegistration {
  readonly group: string;
  readonly kind: string;
  readonly hubVersion: string;
  private readonly spokes = new Map<string, AnySpoke>();

  constructor(hub: VersionedKind<H>) {
    if (!hub.kind || !hub.version) throw new TypeError('a conversion hub needs a kind and a version');
    this.group = hub.group;
    this.kind = hub.kind;
    this.hubVersion = hub.version;
  }

  get versions(): readonly string[] {
    return [this.hubVersion, ...this.spokes.keys()];
  }

  /**
   * Adds a spoke version: given as a kind value (whose type flows into the
   * functions) or as a version string.
   */
  spoke<S extends KubeObject>(version: VersionedKind<S> | string, conversion: SpokeConversion<S, H>): this {
    const v = typeof version === 'string' ? version : version.version;
    if (typeof version !== 'string' && (version.group !== this.group || version.kind !== this.kind)) {
      throw new TypeError(`spoke ${gvkString(version.group, v, version.kind)} is not a version of ${gvkString(this.group, this.hubVersion, this.kind)}`);
    }
    if (v === this.hubVersion) throw new TypeError(`${v} is the hub of ${this.kind}; it cannot also be a spoke`);
    if (this.spokes.has(v)) throw new TypeError(`spoke ${v} of ${this.kind} is already defined`);
    this.spokes.set(v, conversion as unknown as AnySpoke);
    return this;
  }

  async convert(obj: KubeObject, desiredAPIVersion: string): Promise<KubeObject> {
    const from = String(obj.apiVersion ?? '');
    const what = `converting ${this.kind} ${objectName(obj)} from ${from || '(no apiVersion)'} to ${desiredAPIVersion}`;
    const fromVersion = this.versionOf(from, what);
    const toVersion = this.versionOf(desiredAPIVersion, what);
    if (obj.kind !== this.kind) throw new ConversionError(`${what}: the object's kind is ${JSON.stringify(obj.kind ?? '')}, expected ${this.kind}`);
    if (fromVersion === toVersion) return finish(obj, deepCopy(obj), desiredAPIVersion, this.kind);

    let hub = obj;
    if (fromVersion !== this.hubVersion) {
      const spoke = this.spokes.get(fromVersion) as AnySpoke;
      hub = finish(obj, await run(() => spoke.toHub(deepCopy(obj)), `${what}: ${fromVersion} to hub ${this.hubVersion}`), this.apiVersion(this.hubVersion), this.kind);
    }
    if (toVersion === this.hubVersion) return hub;
    const spoke = this.spokes.get(toVersion) as AnySpoke;
    return finish(hub, await run(() => spoke.fromHub(deepCopy(hub)), `${what}: hub ${this.hubVersion} to ${toVersion}`), desiredAPIVersion, this.kind);
  }

  private apiVersion(version: string): string {
    return this.group ? `${this.group}/${version}` : version;
  }

  /** The version part of `apiVersion`, when it is this kind's group and a known version. */
  private versionOf(apiVersion: string, what: string): string {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (group !== this.group) throw new ConversionError(`${what}: ${JSON.stringify(apiVersion)} is not in group ${JSON.stringify(this.group)}`);
    if (version !== this.hubVersion && !this.spokes.has(version)) {
      throw new ConversionError(`${what}: version ${JSON.stringify(version)} of ${this.kind} has no conversion (known: ${this.versions.join(', ')})`);
    }
    return version;
  }
}

/**
 * Starts the conversions of a kind at its hub version; add each other version
 * with `.spoke(kind, { toHub, fromHub })`. Usually the hub is the storage version.
 *
 * @example
 * ```ts
 * import { conversionHandler, defineConversion, defineKind, type Typed } from '@operant/runtime';
 *
 * type WidgetV1Object = Typed<{ spec: { replicas: number; paused?: boolean } }>; // the hub
 * type WidgetV2Object = Typed<{ spec: { size: number; paused?: boolean } }>;
 * const WidgetV1 = defineKind<WidgetV1Object>({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
 * const WidgetV2 = defineKind<WidgetV2Object>({ group: 'example.com', version: 'v2', kind: 'Widget', plural: 'widgets', namespaced: true });
 * const widgets = defineConversion(WidgetV1).spoke(WidgetV2, {
 *   toHub: ({ spec: { size, ...spec }, ...w }) => ({ ...w, spec: { ...spec, replicas: size } }),
 *   fromHub: ({ spec: { replicas, ...spec }, ...w }) => ({ ...w, spec: { ...spec, size: replicas } }),
 * });
 * mgr.webhookServer.register('/convert', conversionHandler([widgets]));
 * ```
 */
export function defineConversion<H extends KubeObject>(hub: VersionedKind<H>): KindConversion<H> {
  return new KindConversion(hub);
}

/** Calls a user function, wrapping what it throws with the context. */
async function run(fn: () => unknown, what: string): Promise<unknown> {
  try {
    return await fn();
  } catch (e) {
    throw new ConversionError(`${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * The converted object as sent back: apiVersion and kind set; metadata the
 * source's, except labels and annotations, which the result may change (when it
 * carries metadata at all).
 */
function finish(source: KubeObject, result: unknown, apiVersion: string, kind: string): KubeObject {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw new ConversionError(`converting ${kind} ${objectName(source)} to ${apiVersion}: the conversion returned ${Array.isArray(result) ? 'an array' : String(result)}, not an object`);
  }
  const { apiVersion: _a, kind: _k, metadata: resultMeta, ...rest } = result as Record<string, unknown>;
  const metadata: ObjectMeta = deepCopy(source.metadata ?? {});
  if (typeof resultMeta === 'object' && resultMeta !== null) {
    const { labels, annotations } = resultMeta as ObjectMeta;
    if (labels === undefined) delete metadata.labels;
    else metadata.labels = labels;
    if (annotations === undefined) delete metadata.annotations;
    else metadata.annotations = annotations;
  }
  return { apiVersion, kind, metadata, ...rest };
}

/** `"namespace/name"` or `"name"`, for messages. */
export function objectName(obj: KubeObject): string {
  const meta = obj.metadata ?? {};
  return JSON.stringify(meta.namespace ? `${meta.namespace}/${meta.name ?? ''}` : (meta.name ?? ''));
}

function gvkString(group: string, version: string, kind: string): string {
  return `${group ? `${group}/` : ''}${version}, Kind=${kind}`;
}
