/**
 * A pod's scheduling fields validated as kube 1.32 validates them
 * (pkg/apis/core/validation: validateAffinity, ValidateTolerations,
 * validateTopologySpreadConstraints): 422 Invalid with kube's field paths and
 * messages, for pods and for pod templates, while valid specs stay accepted.
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
const pod = (name: string, spec: Json): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
});

/** The causes of a 422 for `body` at `path`, as `field: message` lines. */
async function causes(path: string, body: Json): Promise<string[]> {
  const status = await api.ok('POST', path, body, 422);
  assert.equal(status.reason, 'Invalid');
  assert.equal(status.code, 422);
  return (status.details.causes as Json[]).map((c) => `${c.field}: ${c.message}`);
}

const qualifiedNameMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

it("pod (anti-)affinity terms: topologyKey required and a label name, selectors validated, weight in 1..100", async () => {
  const got = await causes(
    pods,
    pod('pod-affinity', {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: '' }],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 101,
              podAffinityTerm: {
                labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['bad value'] }] },
                namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists', values: ['x'] }] },
                namespaces: ['Not_A_Namespace'],
                topologyKey: 'bad key!',
              },
            },
          ],
        },
      },
    }),
  );
  const base = 'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]';
  assert.deepEqual(got, [
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
    `spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty`,
    `spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": ${qualifiedNameMsg}`,
    `${base}.weight: Invalid value: 101: must be in the range 1-100`,
    `${base}.podAffinityTerm.labelSelector.matchExpressions[0].values[0]: Invalid value: "bad value": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    `${base}.podAffinityTerm.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
    `${base}.podAffinityTerm.namespace: Invalid value: "Not_A_Namespace": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    `${base}.podAffinityTerm.topologyKey: Invalid value: "bad key!": ${qualifiedNameMsg}`,
  ]);
});

it('node affinity: terms required, operators and values per operator, matchFields only metadata.name, preferred weight 1..100', async () => {
  const at = 'spec.affinity.nodeAffinity';
  assert.deepEqual(await causes(pods, pod('no-terms', { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } } })), [
    `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term`,
  ]);
  const got = await causes(
    pods,
    pod('node-affinity', {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'zone', operator: 'In' },
                  { key: 'zone', operator: 'Exists', values: ['a'] },
                  { key: 'cpu', operator: 'Gt', values: ['1', '2'] },
                  { key: 'zone', operator: 'Near', values: ['a'] },
                  { key: 'zone', operator: 'In', values: ['not valid'] },
                ],
                matchFields: [
                  { key: 'metadata.name', operator: 'In', values: ['a', 'b'] },
                  { key: 'metadata.uid', operator: 'Exists' },
                ],
              },
            ],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['not valid but preferred'] }] } }],
        },
      },
    }),
  );
  const term = `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]`;
  assert.deepEqual(got, [
    `${term}.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
    `${term}.matchExpressions[1].values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`,
    `${term}.matchExpressions[2].values: Required value: must be specified single value when \`operator\` is 'Lt' or 'Gt'`,
    `${term}.matchExpressions[3].operator: Invalid value: "Near": not a valid selector operator`,
    `${term}.matchExpressions[4].values[0]: Invalid value: "not valid": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    `${term}.matchFields[0].values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`,
    `${term}.matchFields[1].operator: Invalid value: "Exists": not a valid selector operator`,
    `${term}.matchFields[1].key: Invalid value: "metadata.uid": not a valid field selector key`,
    `${at}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100`,
  ]);
});

it('topology spread constraints: maxSkew > 0, topologyKey, whenUnsatisfiable, repeats, minDomains, node policies, matchLabelKeys', async () => {
  const sel = { matchLabels: { app: 'web' } };
  const got = await causes(
    pods,
    pod('spread', {
      topologySpreadConstraints: [
        { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: sel },
        { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: sel },
        { maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'Sometimes', minDomains: 0, nodeAffinityPolicy: 'Maybe', labelSelector: sel, matchLabelKeys: ['app'] },
        { maxSkew: 1, topologyKey: 'host', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2, matchLabelKeys: ['pod-template-hash'] },
      ],
    }),
  );
  const c = 'spec.topologySpreadConstraints';
  assert.deepEqual(got, [
    `${c}[0].maxSkew: Invalid value: 0: must be greater than zero`,
    `${c}[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"`,
    `${c}[2].topologyKey: Required value: can not be empty`,
    `${c}[2].whenUnsatisfiable: Unsupported value: "Sometimes": supported values: "DoNotSchedule", "ScheduleAnyway"`,
    `${c}[2].minDomains: Invalid value: 0: must be greater than zero`,
    `${c}[2].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not Sometimes`,
    `${c}[2].nodeAffinityPolicy: Unsupported value: "Maybe": supported values: "Honor", "Ignore"`,
    `${c}[2].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector`,
    `${c}[3].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway`,
    `${c}[3].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set`,
  ]);
});

it('tolerations: key a label name, empty key needs Exists, tolerationSeconds needs NoExecute, operator and effect values', async () => {
  const got = await causes(
    pods,
    pod('tolerations', {
      tolerations: [
        { key: 'bad key', operator: 'Exists' },
        { operator: 'Equal', value: 'x' },
        { key: 'a', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 10 },
        { key: 'a', operator: 'Equal', value: 'not valid' },
        { key: 'a', operator: 'Exists', value: 'v' },
        { key: 'a', operator: 'Matches', effect: 'Sometimes' },
      ],
    }),
  );
  const t = 'spec.tolerations';
  assert.deepEqual(got, [
    `${t}[0].key: Invalid value: "bad key": ${qualifiedNameMsg}`,
    `${t}[1].operator: Invalid value: "Equal": operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
    `${t}[2].effect: Invalid value: "NoSchedule": effect must be 'NoExecute' when \`tolerationSeconds\` is set`,
    `${t}[3].operator: Invalid value: "not valid": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    `${t}[4].operator: Invalid value: "v": value must be empty when \`operator\` is 'Exists'`,
    `${t}[5].operator: Unsupported value: "Matches": supported values: "Equal", "Exists"`,
    `${t}[5].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
  ]);
});

it('pod templates are checked too, at spec.template.spec (Deployment) and spec.jobTemplate.spec.template.spec (CronJob)', async () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }], tolerations: [{ operator: 'Equal' }] } };
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'tpl' }, spec: { selector: { matchLabels: { app: 'web' } }, template } };
  assert.deepEqual(await causes('/apis/apps/v1/namespaces/default/deployments', deployment), [
    'spec.template.spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
  ]);
  const cron = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tpl' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } } } };
  const got = await causes('/apis/batch/v1/namespaces/default/cronjobs', cron);
  assert.ok(got.includes('spec.jobTemplate.spec.template.spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"'), got.join('\n'));
});

it('valid scheduling fields are accepted as they are', async () => {
  const spec = {
    nodeSelector: { 'kubernetes.io/os': 'linux' },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'cpu', operator: 'Gt', values: ['2'] }, { key: 'zone', operator: 'Exists' }], matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-1'] }] },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } }],
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, namespaces: ['default'], topologyKey: 'kubernetes.io/hostname' }],
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] }, topologyKey: 'zone' } }],
      },
    },
    topologySpreadConstraints: [
      { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2, nodeTaintsPolicy: 'Honor', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['pod-template-hash'] },
      { maxSkew: 2, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' },
    ],
    tolerations: [{ operator: 'Exists' }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }, { key: 'gpu', value: 'yes', effect: 'NoSchedule' }],
  };
  const created = await api.ok('POST', pods, pod('valid', spec), 201);
  assert.deepEqual(created.spec.topologySpreadConstraints, spec.topologySpreadConstraints);
});
