/**
 * A client whose config names a Unix domain socket (`socketPath`) reaches the
 * embedded server there, in plain HTTP, authenticated by its bearer token as
 * over HTTPS: requests, watches and informers, and, when the socket is given
 * as a function, the new socket of a server started again. The configs here
 * keep the server's admin identity but name a host that cannot resolve
 * (`.invalid`), so that only the socket can answer.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TestEnv, eventually, eventuallyFound } from '@operant/testing';
import { ConfigMap, Namespace } from '../builtins.js';
import { Informer } from '../cache/informer.js';
import type { ClientConfig } from '../config/client-config.js';
import { staticCredentials } from '../config/credentials.js';
import { silentLogger } from '../logging/log.js';
import { ApiError } from './api-error.js';
import { Client } from './client.js';

const unreachable = 'https://operant-socket-test.invalid:6443';

/** Durable, so that the test of a restart finds the server's data again; every TestEnv server has its private socket. */
let env: TestEnv;
/** The admin's config on the current server's socket. */
let config: ClientConfig;
let client: Client;

before(async () => {
  env = await TestEnv.start({ durable: true });
  config = { ...env.kubeconfig.config, server: unreachable, socketPath: () => env.server.socketPath! };
  client = Client.fromConfig(config, { qps: Infinity });
  await client.create(Namespace, { metadata: { name: 'on-socket' } });
});

after(async () => {
  client?.close();
  await env?.stop();
});

describe('a client on the server\'s Unix domain socket', () => {
  test('creates, reads, lists, patches and deletes; an error names the config\'s URL, with kube\'s message', async () => {
    const namespace = 'on-socket';
    await client.create(ConfigMap, { metadata: { name: 'a', namespace }, data: { k: '1' } });
    assert.deepEqual((await client.get(ConfigMap, 'a', { namespace })).data, { k: '1' });
    assert.deepEqual((await client.list(ConfigMap, { namespace })).items.map((c) => c.metadata.name).filter((n) => n === 'a'), ['a']);
    await client.patch(ConfigMap, 'a', { data: { k: '2' } }, { namespace });
    assert.deepEqual((await client.get(ConfigMap, 'a', { namespace })).data, { k: '2' });
    await client.delete(ConfigMap, 'a', { namespace });
    const err = await client.get(ConfigMap, 'a', { namespace }).then(
      () => assert.fail('deleted'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 404);
    assert.match(err.message, /configmaps "a" not found/);
    assert.match(err.request, /^GET https:\/\/operant-socket-test\.invalid:6443\/api\/v1\/namespaces\/on-socket\/configmaps\/a/);
  });

  test('getRaw reads /version on the socket, as a simulated kubelet asks it', async () => {
    assert.match((JSON.parse(await client.getRaw('/version')) as { gitVersion: string }).gitVersion, /^v1\.32\./);
  });

  test('a path given as a string is used as it is', async () => {
    const fixed = Client.fromConfig({ ...config, socketPath: env.server.socketPath! });
    try {
      assert.equal((await fixed.get(Namespace, 'default')).metadata.name, 'default');
    } finally {
      fixed.close();
    }
  });

  test('authenticates by bearer token, as over HTTPS: another token is refused with 401', async () => {
    const stranger = Client.fromConfig({ ...config, credentials: staticCredentials({ token: 'not-a-token-of-this-server' }, 'a wrong token') });
    try {
      const err = await stranger.get(Namespace, 'default').then(
        () => assert.fail('a wrong token passed'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, 401);
    } finally {
      stranger.close();
    }
  });

  test('watches: the events of writes made after the list, in order', async () => {
    const namespace = 'on-socket';
    const stop = new AbortController();
    const list = await client.list(ConfigMap, { namespace });
    const seen: string[] = [];
    const watching = (async () => {
      for await (const event of client.watch(ConfigMap, { namespace, resourceVersion: list.metadata.resourceVersion, signal: stop.signal })) {
        seen.push(`${event.type} ${event.object.metadata?.name}`);
        if (seen.length === 3) break;
      }
    })();
    await client.create(ConfigMap, { metadata: { name: 'w', namespace } });
    await client.patch(ConfigMap, 'w', { data: { k: 'v' } }, { namespace });
    await client.delete(ConfigMap, 'w', { namespace });
    await watching;
    stop.abort();
    assert.deepEqual(seen, ['ADDED w', 'MODIFIED w', 'DELETED w']);
  });

  test('given a function, reaches the server started again on a new socket; an informer started before sees what changes after', async (t) => {
    const namespace = 'on-socket';
    await client.create(ConfigMap, { metadata: { name: 'kept', namespace }, data: { a: '1' } });
    const informer = new Informer(client.listerWatcher(ConfigMap), { logger: silentLogger });
    const stop = new AbortController();
    t.after(() => stop.abort());
    informer.start(stop.signal);
    await eventuallyFound(() => informer.store.get(`${namespace}/kept`), { message: 'the informer has the ConfigMap' });

    const before = env.server.socketPath!;
    await env.restartServer();
    assert.notEqual(env.server.socketPath, before, 'a new socket');
    // The same client: its next connection asks for the path again.
    assert.deepEqual((await eventually(() => client.get(ConfigMap, 'kept', { namespace }), { message: 'a GET after the restart' })).data, { a: '1' });
    await client.patch(ConfigMap, 'kept', { data: { a: '2' } }, { namespace });
    await eventuallyFound(() => informer.store.get(`${namespace}/kept`)?.data?.['a'] === '2', { message: 'the informer sees the change made after the restart', timeout: 15_000 });
  });
});
