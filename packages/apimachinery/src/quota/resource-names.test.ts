import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isExtendedResourceName, isNativeResourceName } from './resource-names.js';
import { matchingQuotaResources } from './index.js';

test('native resource names: unprefixed, or anything holding kubernetes.io/ (as kube matches it)', () => {
  for (const name of ['cpu', 'hugepages-2Mi', 'kubernetes.io/x', 'foo.kubernetes.io/x', 'fookubernetes.io/x']) {
    assert.equal(isNativeResourceName(name), true, name);
  }
  assert.equal(isNativeResourceName('example.com/gpu'), false);
});

test('extended resource names: prefixed outside kubernetes.io, not requests., qualified as requests.<name>', () => {
  assert.equal(isExtendedResourceName('example.com/gpu'), true);
  for (const name of ['cpu', 'fookubernetes.io/x', 'requests.example.com/gpu', 'example.com/-gpu']) {
    assert.equal(isExtendedResourceName(name), false, name);
  }
});

test('quota counts the same names extended as container validation', () => {
  const gr = { group: '', resource: 'pods' };
  assert.deepEqual(matchingQuotaResources(gr, ['requests.example.com/gpu', 'requests.fookubernetes.io/x']), ['requests.example.com/gpu']);
});
