/**
 * For tests: one embedded API server per test file, started in `before` and
 * stopped in `after`, with an admin client over HTTPS. The runtime meets the
 * server only on the wire, as it would a real cluster.
 */
import { after, before } from 'node:test';
import { startApiServer, type RunningApiServer } from '@operant/apiserver';
import { Namespace } from '../builtins.js';
import { Client } from '../client/client.js';
import { loadKubeConfig } from '../config/load.js';

/** The running server and its client; read them inside tests and hooks, not at module load. */
export interface ApiServerFixture {
  readonly server: RunningApiServer;
  readonly client: Client;
}

/**
 * Registers the hooks that run a server for the calling test file, and
 * creates `namespaces` once it is up. Put further setup that needs the
 * server in a `describe`'s `before`: on Node 20, top-level `before` hooks of
 * one file do not wait for each other, while a suite's hooks run after them.
 *
 * @example
 * ```ts
 * const api = useApiServer({ namespaces: ['owners'] });
 * test('creates', async () => { await api.client.create(ConfigMap, { metadata: { name: 'a', namespace: 'owners' } }); });
 * ```
 */
export function useApiServer(options: { namespaces?: readonly string[] } = {}): ApiServerFixture {
  let server: RunningApiServer | undefined;
  let client: Client | undefined;
  before(async () => {
    server = await startApiServer({ port: 0 });
    client = Client.fromConfig(await loadKubeConfig({ kubeconfigText: server.kubeconfig }), { qps: Infinity });
    for (const name of options.namespaces ?? []) await client.create(Namespace, { metadata: { name } });
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the API server is not running: use the fixture inside tests and hooks');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get client() {
      return started(client);
    },
  };
}
