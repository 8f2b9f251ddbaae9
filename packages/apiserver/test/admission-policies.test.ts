/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and their
 * bindings over the wire: stored with kube's defaults, validated in kube's
 * words (CEL expressions compiled), the policy's status through its
 * subresource. Their enforcement: validating-admission-policy.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi, type Json } from './support/api-client.js';

const policies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const rules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }];

const policy = (name: string, spec: Json): Json => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
const binding = (name: string, spec: Json): Json => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });
const invalid = (kind: string, name: string, details: string): string => `${kind}.admissionregistration.k8s.io "${name}" is invalid: ${details}`;

describe('ValidatingAdmissionPolicies and bindings', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api?.stop();
  });

  it('a policy is stored with kube\'s defaults, generation 1 and an empty status', async () => {
    // The status controller type-checks each new policy; seen on a watch opened before the create.
    const watch = await api.watch(`${policies}?watch=true&fieldSelector=metadata.name%3Dreplicas`);
    const created = await api.ok('POST', policies, policy('replicas', {
      matchConstraints: { resourceRules: rules },
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5' }],
      auditAnnotations: [{ key: 'high-replicas', valueExpression: "'replicas: ' + string(object.spec.replicas)" }],
    }), 201);
    assert.equal(created.spec.failurePolicy, 'Fail');
    assert.deepEqual(created.spec.matchConstraints, { resourceRules: [{ ...rules[0], scope: '*' }], matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.status, {});

    const table = await api.ok('GET', `${policies}/replicas`, undefined, 200, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.columnDefinitions.map((c: Json) => c.name), ['Name', 'Validations', 'ParamKind', 'Age']);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['replicas', 1, '<unset>']);

    // The status controller then records the type check of generation 1: nothing found.
    const checked = (await watch.until((e) => e.object?.status?.observedGeneration === 1).finally(() => watch.close())).at(-1)!.object;
    assert.deepEqual(checked.status, { observedGeneration: 1, typeChecking: {} });

    // status only through its subresource, validated there.
    const warning = { fieldRef: 'spec.validations[0].expression', warning: 'set by hand' };
    const status = await api.ok('PUT', `${policies}/replicas/status`, { ...checked, status: { observedGeneration: 1, typeChecking: { expressionWarnings: [warning] } } }, 200);
    assert.deepEqual(status.status, { observedGeneration: 1, typeChecking: { expressionWarnings: [warning] } });
    const badStatus = await api.request('PUT', `${policies}/replicas/status`, { ...status, status: { typeChecking: { expressionWarnings: [{ fieldRef: '' }] } } });
    assert.equal(badStatus.status, 422);
    assert.equal(
      badStatus.body.message,
      invalid('ValidatingAdmissionPolicy', 'replicas', '[status.typeChecking.expressionWarnings[0].warning: Required value, status.typeChecking.expressionWarnings[0].fieldRef: Required value]'),
    );
  });

  it("refuses what kube's validation refuses, CEL compile errors included", async () => {
    const empty = await api.request('POST', policies, policy('empty', { failurePolicy: 'Sometimes', paramKind: { apiVersion: 'a/b/c', kind: 'Config_Map' } }));
    assert.equal(empty.status, 422);
    assert.equal(
      empty.body.message,
      invalid(
        'ValidatingAdmissionPolicy',
        'empty',
        '[spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore", spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c, ' +
          'spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\'), ' +
          'spec.matchConstraints: Required value, spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]',
      ),
    );

    const cel = await api.request('POST', policies, policy('cel', {
      matchConstraints: { resourceRules: rules },
      matchConditions: [{ name: 'not-system', expression: 'params.x' }],
      validations: [
        { expression: 'object.spec.replicas' },
        { expression: 'object.spec.replicas <', reason: 'Teapot' },
        { expression: "authorizer.group('apps').resource('deployments').check('get').allowed()", messageExpression: '42' },
      ],
      variables: [{ name: 'not valid', expression: 'object.metadata.name' }],
    }));
    assert.equal(cel.status, 422);
    const causes = cel.body.details.causes.map((c: Json) => `${c.field}: ${c.message}`);
    assert.deepEqual(causes, [
      'spec.matchConditions[0].expression: Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: unknown variable: params\n | params.x\n | ^',
      'spec.variables[0].name: Invalid value: "not valid": name is not a valid CEL identifier',
      'spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool',
      'spec.validations[1].expression: Invalid value: "object.spec.replicas <": compilation failed: ERROR: <input>:1:23: unexpected token: EOF\n | object.spec.replicas <\n | ......................^',
      'spec.validations[1].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"',
      'spec.validations[2].messageExpression: Invalid value: "42": must evaluate to string',
    ]);

    const noRules = await api.request('POST', policies, policy('no-rules', { matchConstraints: { matchPolicy: 'Sometimes' }, validations: [{ expression: 'true' }] }));
    assert.equal(
      noRules.body.message,
      invalid('ValidatingAdmissionPolicy', 'no-rules', '[spec.matchConstraints.matchPolicy: Unsupported value: "Sometimes": supported values: "Equivalent", "Exact", spec.matchConstraints.resourceRules: Required value]'),
    );
  });

  it("a binding is validated in kube's words, kube's misspelt matchResouces path included", async () => {
    const created = await api.ok('POST', bindings, binding('replicas-binding', { policyName: 'replicas', validationActions: ['Deny'], paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }), 201);
    assert.equal(created.metadata.generation, 1);
    const table = await api.ok('GET', `${bindings}/replicas-binding`, undefined, 200, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(table.columnDefinitions.map((c: Json) => c.name), ['Name', 'PolicyName', 'ParamRef', 'Age']);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['replicas-binding', 'replicas', 'default/limits']);

    const bad = await api.request('POST', bindings, binding('bad', {
      validationActions: ['Deny', 'Warn', 'Deny', 'Shout'],
      paramRef: { name: 'x', selector: {} },
      matchResources: { matchPolicy: 'Exact', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], resourceNames: ['a/b'] }] },
    }));
    assert.equal(bad.status, 422);
    assert.equal(
      bad.body.message,
      invalid(
        'ValidatingAdmissionPolicyBinding',
        'bad',
        '[spec.policyName: Required value, spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive, ' +
          'spec.paramRef.parameterNotFoundAction: Required value, spec.matchResouces.resourceRules[0].resourceNames[0]: Invalid value: "a/b": may not contain \'/\', ' +
          'spec.validationActions[2]: Duplicate value: "Deny", spec.validationActions[3]: Unsupported value: "Shout": supported values: "Audit", "Deny", "Warn", ' +
          'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny", "Shout"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)]',
      ),
    );
    const noActions = await api.request('POST', bindings, binding('no-actions', { policyName: 'replicas' }));
    assert.equal(noActions.body.message, invalid('ValidatingAdmissionPolicyBinding', 'no-actions', 'spec.validationActions: Required value: at least one validation action is required'));
  });
});
