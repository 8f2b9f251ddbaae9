/**
 * Setting a Foo's replicas as a user would (read, change, write), reading
 * again when the write meets a Conflict, as `kubectl scale` and client-go's
 * RetryOnConflict do: the controller writes the Foo's status whenever its
 * Deployment's availability changes, so a read may be stale by the write.
 */
import { retryOnConflict, type Client } from '@operant/runtime';
import { FooKind } from '../src/foo.js';

/** Sets Foo `namespace/name`'s replicas to `replicas(current)` (current: 1 when unset). */
export async function scaleFoo(client: Client, name: string, namespace: string, replicas: (current: number) => number): Promise<void> {
  // More tries than client-go's default 5: under the chaos schedule the controller's status writes come often.
  await retryOnConflict(
    async () => {
      const foo = await client.get(FooKind, name, { namespace });
      await client.update(FooKind, { ...foo, spec: { ...foo.spec, replicas: replicas(foo.spec?.replicas ?? 1) } });
    },
    { steps: 20 },
  );
}
