/**
 * Updates without a resourceVersion (issue 17): most built-in kinds take them
 * (an unconditional update), but custom resources and CRDs do not, as
 * apiextensions-apiserver's strategies say (AllowUnconditionalUpdate false):
 * kube answers 422 `<resource>.<group> "<name>" is invalid:
 * metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TestApi, type Json } from './support/api-client.js';

const crdPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const widgets = '/apis/updates.example.com/v1/namespaces/default/widgets';

describe('updates without a resourceVersion', () => {
  let api: TestApi;
  let crd: Json;
  before(async () => {
    api = await TestApi.start();
    crd = await api.ok('POST', crdPath, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.updates.example.com' },
      spec: {
        group: 'updates.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } } } }],
      },
    }, 201);
    await api.ok('POST', widgets, { apiVersion: 'updates.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'small' } }, 201);
  });
  after(async () => {
    await api?.stop();
  });

  const required = (qualified: string, name: string, group: string, kind: string): Json => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${qualified} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
    reason: 'Invalid',
    details: { name, group, kind, causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }] },
    code: 422,
  });

  it('a custom resource: refused with kube\'s 422; with its resourceVersion, replaced', async () => {
    const body = { apiVersion: 'updates.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'large' } };
    const refused = await api.request('PUT', `${widgets}/w`, body);
    assert.deepEqual([refused.status, refused.body], [422, required('widgets.updates.example.com', 'w', 'updates.example.com', 'widgets')]);
    const zero = await api.request('PUT', `${widgets}/w`, { ...body, metadata: { name: 'w', resourceVersion: '0' } });
    assert.equal(zero.status, 422, '"0" is no version either');
    const current: Json = await api.ok('GET', `${widgets}/w`);
    const replaced: Json = await api.ok('PUT', `${widgets}/w`, { ...body, metadata: { name: 'w', resourceVersion: current.metadata.resourceVersion } });
    assert.equal(replaced.spec.size, 'large');
  });

  it('a CustomResourceDefinition: refused the same way', async () => {
    const { resourceVersion: _rv, ...metadata } = crd.metadata;
    const refused = await api.request('PUT', `${crdPath}/widgets.updates.example.com`, { ...crd, metadata });
    assert.deepEqual([refused.status, refused.body], [422, required('customresourcedefinitions.apiextensions.k8s.io', 'widgets.updates.example.com', 'apiextensions.k8s.io', 'customresourcedefinitions')]);
  });

  it('a ConfigMap: replaced unconditionally, as kube allows for it', async () => {
    await api.ok('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }, 201);
    const replaced: Json = await api.ok('PUT', '/api/v1/namespaces/default/configmaps/c', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '2' } });
    assert.equal(replaced.data.a, '2');
  });
});
