/**
 * CEL is loaded only when first needed (apiserver's cel-loader.ts): the first
 * CRD with rules and the first webhook configuration with match conditions
 * load it before they are validated, and a server restarted on a data dir
 * that stores them loads it before it serves them. Each start here is a new
 * process, so nothing is loaded from an earlier one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { startServer } from './harness.js';
import { Client } from './https-client.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'operant-cel-lazy-')), 'data');
after(() => rmSync(dataDir, { recursive: true, force: true }));

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'ranges.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'ranges', singular: 'range', kind: 'Range', listKind: 'RangeList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }],
                properties: { min: { type: 'integer' }, max: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

const ranges = '/apis/example.com/v1/namespaces/default/ranges';
const range = (name: string, min: number, max: number): object => ({ apiVersion: 'example.com/v1', kind: 'Range', metadata: { name }, spec: { min, max } });
const configmaps = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string): object => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

/** A webhook nobody serves (port 1): called only for the objects its match condition picks, and then failing. */
const webhooks = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'picky' },
  webhooks: [
    {
      name: 'picky.example.com',
      clientConfig: { url: 'https://127.0.0.1:1/validate' },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      matchConditions: [{ name: 'only-checked', expression: "object.metadata.name.startsWith('checked-')" }],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 2,
    },
  ],
};

async function assertRulesApply(client: Client, suffix: string): Promise<void> {
  const bad = await client.send('POST', ranges, range(`bad-${suffix}`, 5, 1));
  assert.equal(bad.status, 422, JSON.stringify(bad.body));
  assert.match(bad.body.message, /min must not exceed max/);
  assert.equal((await client.send('POST', ranges, range(`good-${suffix}`, 1, 5))).status, 201);
  // The match condition decides: not called for one name, called (and failing) for the other.
  assert.equal((await client.send('POST', configmaps, configMap(`plain-${suffix}`))).status, 201);
  const checked = await client.send('POST', configmaps, configMap(`checked-${suffix}`));
  assert.equal(checked.status, 500, JSON.stringify(checked.body));
  assert.match(checked.body.message, /failed calling webhook "picky.example.com"/);
}

it('loads CEL for the first CRD with rules and webhook with match conditions, and again after a restart', async () => {
  const first = await startServer({ dataDir });
  try {
    const client = new Client(first);
    // A condition that does not compile is refused with cel-go's words: CEL is there when the configuration is validated.
    const broken = structuredClone(webhooks);
    broken.webhooks[0].matchConditions[0].expression = 'object.metadata.name ==';
    const refused = await client.send('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', broken);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.match(refused.body.message, /compilation failed: ERROR: <input>/);
    assert.equal((await client.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    assert.equal((await client.send('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', webhooks)).status, 201);
    await assertRulesApply(client, 'a');
    client.close();
  } finally {
    await first.stop();
  }
  // A new process: the stored CRD and configuration must load CEL before they are served.
  const again = await startServer({ dataDir });
  try {
    const client = new Client(again);
    await assertRulesApply(client, 'b');
    client.close();
  } finally {
    await again.stop();
  }
});
