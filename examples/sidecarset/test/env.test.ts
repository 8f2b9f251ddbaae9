import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { Namespace } from '@operant/runtime';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
before(async () => {
  env = await startTestEnv();
});
after(async () => {
  await env.stop();
});

it('the test environment serves the API, with the CRDs of the project installed', async () => {
  const namespaces = await env.client.list(Namespace);
  assert.ok(namespaces.items.some((ns) => ns.metadata.name === 'default'));
});
