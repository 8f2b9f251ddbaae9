/**
 * For tests: one environment of @operant/testing per test file (the embedded
 * API server, started in `before` and stopped in `after`), with an admin
 * client over HTTPS. The runtime meets the server only on the wire, as it
 * would a real cluster. This is TestEnv under the hooks the runtime's tests
 * use, so that there is one way to run a server in a test.
 */
import { setMaxListeners } from 'node:events';
import { after, before } from 'node:test';
import type { RunningApiServer } from '@operant/apiserver';
import { TestEnv, type EnvKubeconfig } from '@operant/testing';
import { Namespace } from '../builtins.js';
import { Client, type ClientOptions } from '../client/client.js';

/** The running server and its client; read them inside tests and hooks, not at module load. */
export interface ApiServerFixture {
  readonly server: RunningApiServer;
  /** The admin's kubeconfig: a file (for kubectl and child processes), its text, and the loaded config. */
  readonly kubeconfig: EnvKubeconfig;
  readonly client: Client;
  /**
   * Aborted when the file's tests are done, before the client closes and the
   * server stops: start informers and controllers with it so they end while
   * the server still answers.
   */
  readonly signal: AbortSignal;
  /** Creates a namespace named `<prefix>-<n>`, new in this server, and returns its name. */
  createNamespace(prefix: string): Promise<string>;
}

/**
 * Registers the hooks that run a server for the calling test file, and
 * creates `namespaces` once it is up. `client` options are added to the
 * admin client's (unthrottled) ones, e.g. request `metrics` to count calls.
 * Put further setup that needs the server in a `describe`'s `before`: on
 * Node 20, top-level `before` hooks of one file do not wait for each other,
 * while a suite's hooks run after them.
 *
 * @example
 * ```ts
 * const api = useApiServer({ namespaces: ['owners'] });
 * test('creates', async () => { await api.client.create(ConfigMap, { metadata: { name: 'a', namespace: 'owners' } }); });
 * test('in a namespace of its own', async () => {
 *   const ns = await api.createNamespace('cache');
 *   new SharedInformerFactory(api.client).startAll(api.signal);
 * });
 * ```
 */
export function useApiServer(options: { namespaces?: readonly string[]; client?: ClientOptions } = {}): ApiServerFixture {
  let env: TestEnv | undefined;
  let client: Client | undefined;
  const done = new AbortController();
  // One signal for every informer and controller a file starts: no listener limit.
  setMaxListeners(0, done.signal);
  let namespaces = 0;
  before(async () => {
    env = await TestEnv.start();
    // The environment's own client is unthrottled; one with the caller's options beside it.
    client = options.client ? Client.fromConfig(env.kubeconfig.config, { qps: Infinity, ...options.client }) : env.client;
    for (const name of options.namespaces ?? []) await client.create(Namespace, { metadata: { name } });
  });
  after(async () => {
    done.abort();
    if (client !== env?.client) client?.close();
    await env?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the API server is not running: use the fixture inside tests and hooks');
    return value;
  };
  return {
    get server() {
      return started(env).server;
    },
    get kubeconfig() {
      return started(env).kubeconfig;
    },
    get client() {
      return started(client);
    },
    signal: done.signal,
    async createNamespace(prefix) {
      const name = `${prefix}-${++namespaces}`;
      await started(client).create(Namespace, { metadata: { name } });
      return name;
    },
  };
}
