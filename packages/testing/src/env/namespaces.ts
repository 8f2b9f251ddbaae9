/**
 * Namespaces made for one test: created with a label that marks them as the
 * toolkit's, and deleted (with everything in them, by the server's namespace
 * lifecycle) when disposed: once, however many times `dispose` is called.
 */
import { Namespace, isNotFound, type Client } from '@operant/runtime';

/**
 * A namespace made for one test: its name, and its deletion.
 *
 * @example
 * ```ts
 * declare const env: import('@operant/testing').TestEnv;
 * await using ns = await env.namespace();
 * console.log(`${ns}`); // its name, e.g. test-3
 * ```
 */
export interface TestNamespace extends AsyncDisposable {
  readonly name: string;
  /** Deletes the namespace (and so everything in it); once, whatever the number of calls. */
  dispose(): Promise<void>;
  toString(): string;
}

/** Creates the namespace `name`; disposing of the result deletes it (a namespace already gone is fine). */
export async function createNamespace(client: Client, name: string): Promise<TestNamespace> {
  await client.create(Namespace, { metadata: { name, labels: { 'operant.dev/test-namespace': 'true' } } });
  let deleted: Promise<void> | undefined;
  const dispose = (): Promise<void> => {
    deleted ??= client.delete(Namespace, name).then(
      () => undefined,
      (err: unknown) => {
        if (!isNotFound(err)) throw err;
      },
    );
    return deleted;
  };
  return { name, dispose, [Symbol.asyncDispose]: dispose, toString: () => name };
}
