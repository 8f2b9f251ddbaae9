/**
 * What the controllers' tests against the embedded server share: list, then
 * watch a kind until a condition holds (never a sleep), failing with what was
 * seen once the deadline passes.
 */
import type { Client, Kind, KubeObject } from '@operant/runtime';

/**
 * Lists, then watches `kind` in `namespace` until `check` holds for the objects (by name)
 * after some event; `onEvent` sees every event first. Fails after `timeoutMs`.
 */
export async function watchUntil<T extends KubeObject>(
  client: Client,
  kind: Kind<T>,
  namespace: string | undefined,
  check: (objects: Map<string, T>) => boolean,
  onEvent: (type: string, obj: T, objects: Map<string, T>) => void = () => undefined,
  timeoutMs = 10_000,
): Promise<Map<string, T>> {
  return (await watchUntilAfterList(client, kind, namespace, check, onEvent, timeoutMs)).done;
}

/**
 * As {@link watchUntil}, but resolves as soon as the list is read, with the
 * wait itself in `done`: a test that starts it, awaits it, then acts sees
 * everything its action causes as events (`onEvent`), however slow the list.
 */
export async function watchUntilAfterList<T extends KubeObject>(
  client: Client,
  kind: Kind<T>,
  namespace: string | undefined,
  check: (objects: Map<string, T>) => boolean,
  onEvent: (type: string, obj: T, objects: Map<string, T>) => void = () => undefined,
  timeoutMs = 10_000,
): Promise<{ done: Promise<Map<string, T>> }> {
  const list = await client.list(kind, { namespace });
  const objects = new Map(list.items.map((o) => [o.metadata.name!, o]));
  const done = (async (): Promise<Map<string, T>> => {
    if (check(objects)) return objects;
    const signal = AbortSignal.timeout(timeoutMs);
    for await (const e of client.watch(kind, { namespace, resourceVersion: list.metadata.resourceVersion, signal })) {
      if (e.type === 'ADDED' || e.type === 'MODIFIED') objects.set(e.object.metadata.name!, e.object);
      else if (e.type === 'DELETED') objects.delete(e.object.metadata.name!);
      else continue;
      onEvent(e.type, e.object, objects);
      if (check(objects)) return objects;
    }
    throw new Error(`timed out waiting on ${kind.plural}: ${JSON.stringify([...objects.values()].map((o) => [o.metadata.name, o.status]), null, 1).slice(0, 3000)}`);
  })();
  return { done };
}
