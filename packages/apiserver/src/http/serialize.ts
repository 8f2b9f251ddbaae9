/**
 * JSON serialization of stored objects, cached per object: stored objects are
 * immutable and shared, so a watch fan-out or a repeated list serializes each
 * one once.
 */
import type { KubeObject } from '@operant/apimachinery';

const cache = new WeakMap<object, string>();

export function serializedObject(obj: KubeObject): string {
  let text = cache.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    if (Object.isFrozen(obj)) cache.set(obj, text);
  }
  return text;
}

/** A list object's JSON, built from the cached JSON of its items. */
export function serializedList(list: { apiVersion?: unknown; kind?: unknown; metadata?: unknown; items: KubeObject[] }): string {
  const head = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata });
  return `${head.slice(0, -1)},"items":[${list.items.map(serializedObject).join(',')}]}`;
}
