/**
 * A vitest suite using @operant/testing as a vitest user would (run by
 * ../vitest.test.ts, which checks it passes): a TestEnv with the fixture CRDs
 * started in beforeAll and stopped in afterAll, a namespace tied to the test
 * with vitest's onTestFinished, an object created in it and waited for with
 * eventually, and the next test seeing that namespace gone or going.
 */
import { afterAll, beforeAll, expect, onTestFinished, test } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Namespace, defineKind, isNotFound, type Typed } from '@operant/runtime';
import { TestEnv, eventually } from '@operant/testing';

type Widget = Typed<{ spec?: { size?: number; color?: string }; status?: { observedSize?: number } }>;
const Widget = defineKind<Widget>({ group: 'testing.operant.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });

let env: TestEnv;
beforeAll(async () => {
  env = await TestEnv.start({ crds: join(dirname(fileURLToPath(import.meta.url)), '..', 'testdata', 'crds') });
});
afterAll(() => env?.stop());

let fromTest = '';

test('a Widget is created in a namespace of the test, and eventually seen', async () => {
  const ns = await env.namespace(onTestFinished); // deleted when the test ends
  fromTest = ns.name;
  await env.client.create(Widget, { metadata: { name: 'w', namespace: ns.name }, spec: { size: 3 } });
  const seen = await eventually(async () => {
    const { items } = await env.client.list(Widget, { namespace: ns.name });
    expect(items.map((w) => w.metadata.name)).toEqual(['w']);
    return items[0]!;
  });
  expect(seen.spec?.size).toBe(3);
});

test('the namespace of the test before is gone or going', async () => {
  expect(fromTest).not.toBe('');
  await eventually(async () => {
    const ns = await env.client.get(Namespace, fromTest).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    expect(ns === undefined || ns.metadata.deletionTimestamp !== undefined, `${fromTest} is still there`).toBe(true);
  });
});
