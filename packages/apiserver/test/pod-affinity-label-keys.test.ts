/**
 * Pod affinity's matchLabelKeys and mismatchLabelKeys as kube 1.32 serves
 * them (MatchLabelKeysInPodAffinity, beta and on by default since 1.31): a
 * new pod's terms get the pod's own values merged into their labelSelector
 * (key In (value), key NotIn (value)), and the keys are validated in kube's
 * words, on the merged selector.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

let api: TestApi;

before(async () => {
  api = await TestApi.start();
});
after(async () => {
  await api?.stop();
});

const pods = '/api/v1/namespaces/default/pods';
const pod = (name: string, labels: Record<string, string>, affinity: Json): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { affinity, containers: [{ name: 'app', image: 'nginx' }] },
});
const term = (extra: Json): Json => ({ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname', ...extra });

it("a new pod's terms get its own label values merged into their selectors: In for matchLabelKeys, NotIn for mismatchLabelKeys", async () => {
  const created = await api.ok(
    'POST',
    pods,
    pod('merged', { app: 'web', 'pod-template-hash': 'abc', tenant: 't1' }, {
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['pod-template-hash', 'absent'] })] },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 10, podAffinityTerm: term({ labelSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, mismatchLabelKeys: ['tenant'] }) },
        ],
      },
    }),
    201,
  );
  const required = created.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0];
  // A key the pod has no label for adds nothing; the keys themselves stay.
  assert.deepEqual(required.labelSelector, { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'In', values: ['abc'] }] });
  assert.deepEqual(required.matchLabelKeys, ['pod-template-hash', 'absent']);
  const preferred = created.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
  assert.deepEqual(preferred.labelSelector.matchExpressions, [
    { key: 'zone', operator: 'Exists' },
    { key: 'tenant', operator: 'NotIn', values: ['t1'] },
  ]);
  assert.deepEqual((await api.ok('GET', `${pods}/merged`)).spec.affinity, created.spec.affinity);
});

it('only a create merges: an update of the pod keeps the selector as stored', async () => {
  const created = await api.ok('POST', pods, pod('once', { app: 'web', v: '1' }, { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['v'] })] } }), 201);
  created.metadata.labels.v = '2';
  const updated = await api.ok('PUT', `${pods}/once`, created, 200);
  assert.deepEqual(updated.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions, [{ key: 'v', operator: 'In', values: ['1'] }]);
});

it('a Deployment template keeps its keys unmerged (only pods are)', async () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['app'] })] } }, containers: [{ name: 'app', image: 'nginx' }] } };
  const created = await api.ok('POST', '/apis/apps/v1/namespaces/default/deployments', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tpl' }, spec: { selector: { matchLabels: { app: 'web' } }, template } }, 201);
  assert.deepEqual(created.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector, { matchLabels: { app: 'web' } });
});

/** The causes of a 422 for this pod, as [field, message]. */
async function refused(body: Json): Promise<{ message: string; causes: [string, string][] }> {
  const status = await api.ok('POST', pods, body, 422);
  assert.equal(status.reason, 'Invalid');
  return { message: status.message, causes: (status.details.causes as Json[]).map((c) => [c.field, c.message]) };
}

it("a key also in the selector, in both lists, not a label name, or with no selector is refused in kube's words", async () => {
  const both = await refused(pod('both', { app: 'web' }, { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['app'] })] } }));
  // kube names the term with the key's index after it.
  assert.equal(both.message, 'Pod "both" is invalid: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector');

  const preferred = await refused(
    pod('pref', { key: 'value1' }, {
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'key', operator: 'In', values: ['value1'] }] }, topologyKey: 'k8s.io/zone', matchLabelKeys: ['key'] } }] },
    }),
  );
  assert.deepEqual(preferred.causes, [['spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm[0]', 'Invalid value: "key": exists in both matchLabelKeys and labelSelector']]);

  const crossed = await refused(pod('crossed', { tier: 'a' }, { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ matchLabelKeys: ['tier'], mismatchLabelKeys: ['tier'] })] } }));
  // Both requirements were merged (tier In, then tier NotIn), so the selector names the key twice as well.
  assert.deepEqual(crossed.causes, [
    ['spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]', 'Invalid value: "tier": exists in both matchLabelKeys and labelSelector'],
    ['spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]', 'Invalid value: "tier": exists in both matchLabelKeys and mismatchLabelKeys'],
  ]);

  const badName = await refused(pod('bad-name', {}, { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ mismatchLabelKeys: ['/simple'] })] } }));
  assert.deepEqual(badName.causes, [['spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].mismatchLabelKeys[0]', 'Invalid value: "/simple": prefix part must be non-empty']]);

  const noSelector = await refused(pod('no-selector', { a: 'b' }, { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', matchLabelKeys: ['a'] }] } }));
  assert.deepEqual(noSelector.causes, [['spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys', 'Forbidden: must not be specified when labelSelector is not set']]);
});
