/**
 * kube's validatingadmissionpolicy-status-controller through the running
 * server: each policy's validations are type-checked against the schemas of
 * the kinds its matchConstraints name (built-ins and CRDs, params typed from
 * the paramKind, variables from their expressions, request and namespaceObject
 * as kube types them), and the result lands in
 * `status.typeChecking.expressionWarnings` with `status.observedGeneration`,
 * in kube's words (`apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined
 * field 'replicas'` with the source line and a caret, one block per kind).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

const policies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const appsRules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments', 'replicasets'] }];
const deploymentRules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }];

/** cel-go's issue block for one kind, as kube's TypeCheckingResult.String() writes it. */
const issue = (gvk: string, column: number, message: string, source: string): string =>
  `${gvk}: ERROR: <input>:1:${column}: ${message}\n | ${source}\n | ${'.'.repeat(column - 1)}^\n`;

describe('the ValidatingAdmissionPolicy status controller', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api?.stop();
  });

  /** Creates (or replaces) a policy and waits, on a watch, until its status has caught up with its generation. */
  async function writeAndCheck(name: string, spec: Json, replace = false): Promise<Json> {
    const watch = await api.watch(`${policies}?watch=true&fieldSelector=metadata.name%3D${name}`);
    try {
      let generation: number;
      if (replace) {
        const current = await api.ok('GET', `${policies}/${name}`);
        generation = (await api.ok('PUT', `${policies}/${name}`, { ...current, spec }, 200)).metadata.generation;
      } else {
        generation = (await api.ok('POST', policies, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec }, 201)).metadata.generation;
      }
      const events = await watch.until((e) => e.object?.status?.observedGeneration === generation);
      return events[events.length - 1]!.object;
    } finally {
      watch.close();
    }
  }

  it('names each kind a misspelt field fails for, as kube words it', async () => {
    const source = 'object.replicas > 1';
    const policy = await writeAndCheck('misspelt', { matchConstraints: { resourceRules: appsRules }, validations: [{ expression: source }] });
    assert.equal(policy.status.observedGeneration, 1);
    assert.deepEqual(policy.status.typeChecking.expressionWarnings, [
      {
        fieldRef: 'spec.validations[0].expression',
        warning: `${issue('apps/v1, Kind=Deployment', 7, "undefined field 'replicas'", source)}\n${issue('apps/v1, Kind=ReplicaSet', 7, "undefined field 'replicas'", source)}`,
      },
    ]);
    // Applied with the controller's field manager on the status subresource, as kube applies it.
    const entry = policy.metadata.managedFields.find((m: Json) => m.manager === 'validatingadmissionpolicy-status-controller');
    assert.equal(entry?.operation, 'Apply');
    assert.equal(entry?.subresource, 'status');
  });

  it('finds nothing wrong in a correct policy (an empty typeChecking), and checks again at each new generation', async () => {
    const good = await writeAndCheck('fixed', { matchConstraints: { resourceRules: deploymentRules }, validations: [{ expression: 'object.spec.replicas > 1' }] });
    assert.deepEqual(good.status, { observedGeneration: 1, typeChecking: {} });
    const source = 'object.spec.replicas == "three"';
    const changed = await writeAndCheck('fixed', { matchConstraints: { resourceRules: deploymentRules }, validations: [{ expression: source }] }, true);
    assert.equal(changed.status.observedGeneration, 2);
    assert.deepEqual(changed.status.typeChecking.expressionWarnings, [
      { fieldRef: 'spec.validations[0].expression', warning: issue('apps/v1, Kind=Deployment', 22, "found no matching overload for '_==_' applied to '(int, string)'", source) },
    ]);
  });

  it('checks messageExpressions, has() selections and variables typed from their expressions', async () => {
    const message = 'object.spec.replica + " replicas"';
    const viaHas = 'has(object.spec.nope)';
    const viaVariable = 'variables.replicas > "a"';
    const unknownVariable = 'variables.other == 1';
    const policy = await writeAndCheck('variables', {
      matchConstraints: { resourceRules: deploymentRules },
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
      validations: [
        { expression: 'variables.replicas >= 1', messageExpression: message },
        { expression: viaHas },
        { expression: viaVariable },
        { expression: unknownVariable },
      ],
    });
    const d = 'apps/v1, Kind=Deployment';
    assert.deepEqual(policy.status.typeChecking.expressionWarnings, [
      { fieldRef: 'spec.validations[0].messageExpression', warning: issue(d, 12, "undefined field 'replica'", message) },
      { fieldRef: 'spec.validations[1].expression', warning: issue(d, 5, "undefined field 'nope'", viaHas) },
      { fieldRef: 'spec.validations[2].expression', warning: issue(d, 20, "found no matching overload for '_>_' applied to '(int, string)'", viaVariable) },
      { fieldRef: 'spec.validations[3].expression', warning: issue(d, 10, "undefined field 'other'", unknownVariable) },
    ]);
  });

  it('types params from the paramKind and custom resources from their CRD schema', async () => {
    await api.createCrd('typecheck.example.com', 'Widget', { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } });
    const onObject = 'object.spec.colour == "red"';
    const onParams = 'params.spec.max == 1';
    const policy = await writeAndCheck('widgets', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: ['typecheck.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }] },
      validations: [{ expression: 'object.spec.size < int(params.data.max)' }, { expression: onObject }, { expression: onParams }],
    });
    const widget = 'typecheck.example.com/v1, Kind=Widget';
    assert.deepEqual(policy.status.typeChecking.expressionWarnings, [
      { fieldRef: 'spec.validations[1].expression', warning: issue(widget, 12, "undefined field 'colour'", onObject) },
      { fieldRef: 'spec.validations[2].expression', warning: issue(widget, 7, "undefined field 'spec'", onParams) },
    ]);
  });

  it('types request and namespaceObject as kube\'s hand-made types (whose uid is spelt UID)', async () => {
    const good = 'request.operation == "CREATE" && request.userInfo.groups.exists(g, g == "x") && namespaceObject.metadata.labels["env"] == "prod"';
    const misspelt = 'request.userInfo.usernme == ""';
    const lowerUid = 'namespaceObject.metadata.uid != ""';
    const policy = await writeAndCheck('request-types', {
      matchConstraints: { resourceRules: deploymentRules },
      validations: [{ expression: good }, { expression: misspelt }, { expression: lowerUid }, { expression: 'namespaceObject.metadata.UID != "" && request.options == null' }],
    });
    const d = 'apps/v1, Kind=Deployment';
    assert.deepEqual(policy.status.typeChecking.expressionWarnings, [
      { fieldRef: 'spec.validations[1].expression', warning: issue(d, 17, "undefined field 'usernme'", misspelt) },
      { fieldRef: 'spec.validations[2].expression', warning: issue(d, 25, "undefined field 'uid'", lowerUid) },
    ]);
  });

  it('leaves wildcard rules and subresources unchecked, as kube does', async () => {
    const policy = await writeAndCheck('wildcards', {
      matchConstraints: {
        resourceRules: [
          { apiGroups: ['*'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] },
          { apiGroups: ['apps'], apiVersions: ['*'], operations: ['CREATE'], resources: ['deployments'] },
          { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['*', 'deployments/scale'] },
        ],
      },
      validations: [{ expression: 'object.nothing == 1' }],
    });
    assert.deepEqual(policy.status, { observedGeneration: 1, typeChecking: {} });
  });
});
