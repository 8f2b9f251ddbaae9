/**
 * ValidatingAdmissionPolicies enforced through the running server, as
 * kube-apiserver 1.32 enforces them: Deny, Warn and Audit bindings, params
 * (by name, by selector, built-in and CRD kinds, not found under Allow and
 * Deny), matchConditions, namespace and object selectors, variables,
 * messageExpression, reasons and their codes, failurePolicy, the `authorizer`
 * variable, and the real kubectl printing kube's words.
 *
 * Each test works in namespaces of its own and scopes its policies to them
 * (namespaceSelector on `kubernetes.io/metadata.name`), so tests stay independent.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { celLoaded } from '../src/cel-loader.js';
import { TestApi, type ApiResponse, type Json } from './support/api-client.js';

const policies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const kubectlPath = '/usr/bin/kubectl';

const configMapRules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }];
const inNamespaces = (...names: string[]): Json => ({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: names }] });

const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Json => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  data,
});

/** The warnings of a response, as kubectl prints them (`299 - "text"` unquoted). */
function warnings(r: ApiResponse): string[] {
  const raw = r.headers.warning;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/,(?=\s*299 )/);
  return list.map((w) => JSON.parse(w.trim().replace(/^299 - /, '')) as string);
}

function kubectl(kubeconfig: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(kubectlPath, ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, KUBECACHEDIR: join(kubeconfig, '..', 'cache') } }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

describe('ValidatingAdmissionPolicies are enforced', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api?.stop();
  });

  /** Creates a policy and its binding; both are in force when this resolves (no waiting). */
  async function enforce(name: string, policySpec: Json, bindingSpec: Json): Promise<void> {
    await api.ok('POST', policies, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: policySpec }, 201);
    await api.ok('POST', bindings, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: `${name}-binding` }, spec: { policyName: name, ...bindingSpec } }, 201);
  }
  const createIn = (ns: string, body: Json, headers?: Record<string, string>): Promise<ApiResponse> => api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, body, headers);

  it('a server with no bindings never loads CEL', async () => {
    await api.ok('POST', '/api/v1/namespaces/default/configmaps', configMap('cold'), 201);
    await api.ok('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', configMap('colder'), 201);
    assert.equal(celLoaded(), false, 'writes with no policy in force leave CEL unloaded');
  });

  it('Deny refuses with kube\'s Status (Invalid, 422, the message as a cause); Warn warns; Audit lets it through silently', async () => {
    for (const ns of ['vap-deny', 'vap-warn', 'vap-audit']) await api.createNamespace(ns);
    const spec = (ns: string): Json => ({
      matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces(ns) },
      validations: [{ expression: "!has(object.data) || !('forbidden' in object.data)" }],
    });
    await enforce('no-forbidden-deny', spec('vap-deny'), { validationActions: ['Deny'] });
    await enforce('no-forbidden-warn', spec('vap-warn'), { validationActions: ['Warn'] });
    await enforce('no-forbidden-audit', spec('vap-audit'), { validationActions: ['Audit'] });

    const denied = await createIn('vap-deny', configMap('bad', { forbidden: '1' }));
    assert.equal(denied.status, 422);
    const message = "ValidatingAdmissionPolicy 'no-forbidden-deny' with binding 'no-forbidden-deny-binding' denied request: failed expression: !has(object.data) || !('forbidden' in object.data)";
    assert.deepEqual(denied.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "bad" is forbidden: ${message}`,
      reason: 'Invalid',
      details: { name: 'bad', kind: 'configmaps', causes: [{ message }] },
      code: 422,
    });
    assert.equal((await api.request('GET', '/api/v1/namespaces/vap-deny/configmaps/bad')).status, 404, 'nothing was stored');
    await api.ok('POST', '/api/v1/namespaces/vap-deny/configmaps', configMap('good', { fine: '1' }), 201);

    const warned = await createIn('vap-warn', configMap('bad', { forbidden: '1' }));
    assert.equal(warned.status, 201);
    assert.deepEqual(warnings(warned), [
      "Validation failed for ValidatingAdmissionPolicy 'no-forbidden-warn' with binding 'no-forbidden-warn-binding': failed expression: !has(object.data) || !('forbidden' in object.data)",
    ]);

    const audited = await createIn('vap-audit', configMap('bad', { forbidden: '1' }));
    assert.equal(audited.status, 201);
    assert.deepEqual(warnings(audited), []);

    // A dry run is judged the same way; an update too.
    assert.equal((await api.request('POST', '/api/v1/namespaces/vap-deny/configmaps?dryRun=All', configMap('dry', { forbidden: '1' }))).status, 422);
    const good = await api.ok('GET', '/api/v1/namespaces/vap-deny/configmaps/good');
    const update = await api.request('PUT', '/api/v1/namespaces/vap-deny/configmaps/good', { ...good, data: { forbidden: 'now' } });
    assert.equal(update.status, 422);

    // kube's policy check metrics count each enforcement.
    const metrics = (await api.request('GET', '/metrics', undefined, { Accept: 'text/plain' })).text;
    const count = (action: string, policy: string): string | undefined =>
      new RegExp(`^apiserver_validating_admission_policy_check_total\\{enforcement_action="${action}",error_type="invalid_error",policy="${policy}",policy_binding="${policy}-binding"\\} (\\d+)$`, 'm').exec(metrics)?.[1];
    assert.equal(count('deny', 'no-forbidden-deny'), '3');
    assert.equal(count('warn', 'no-forbidden-warn'), '1');
    assert.equal(count('audit', 'no-forbidden-audit'), '1');
    assert.match(metrics, /^apiserver_validating_admission_policy_check_duration_seconds_count\{enforcement_action="deny",error_type="invalid_error",policy="no-forbidden-deny",policy_binding="no-forbidden-deny-binding"\} 3$/m);
  });

  it('a policy applies as soon as its binding is written, and stops when the binding is deleted', async () => {
    await api.createNamespace('vap-prompt');
    assert.equal((await createIn('vap-prompt', configMap('before'))).status, 201);
    await enforce('prompt', { matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-prompt') }, validations: [{ expression: 'false', message: 'closed' }] }, { validationActions: ['Deny'] });
    const r = await createIn('vap-prompt', configMap('after'));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /denied request: closed$/);
    await api.ok('DELETE', `${bindings}/prompt-binding`);
    assert.equal((await createIn('vap-prompt', configMap('after'))).status, 201);
  });

  it('messageExpression, message and reason: kube\'s codes (Forbidden 403, Unauthorized 401, RequestEntityTooLarge 413, Invalid 422)', async () => {
    await api.createNamespace('vap-reasons');
    const cases: Array<[string | undefined, number]> = [['Forbidden', 403], ['Unauthorized', 401], ['RequestEntityTooLarge', 413], ['Invalid', 422], [undefined, 422]];
    await enforce(
      'reasons',
      {
        matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-reasons') },
        validations: cases.map(([reason], i) => ({
          expression: `object.metadata.name != 'r${i}'`,
          ...(reason ? { reason } : {}),
          message: 'static message',
          // The messageExpression wins when it yields a non-empty string; the message otherwise.
          ...(i % 2 === 0 ? { messageExpression: `'name ' + object.metadata.name + ' is reserved'` } : { messageExpression: "'  '" }),
        })),
      },
      { validationActions: ['Deny'] },
    );
    for (const [i, [reason, code]] of cases.entries()) {
      const r = await createIn('vap-reasons', configMap(`r${i}`));
      assert.equal(r.status, code, `reason ${reason}`);
      assert.equal(r.body.reason, reason ?? 'Invalid');
      const text = i % 2 === 0 ? `name r${i} is reserved` : 'static message';
      assert.equal(r.body.message, `configmaps "r${i}" is forbidden: ValidatingAdmissionPolicy 'reasons' with binding 'reasons-binding' denied request: ${text}`);
    }
  });

  it('params: by name (a ConfigMap), by selector (one evaluation each), not found under Allow and Deny, an unknown paramKind', async () => {
    await api.createNamespace('vap-params');
    await api.ok('POST', '/api/v1/namespaces/vap-params/configmaps', configMap('limits', { max: '2' }), 201);
    await api.ok('POST', '/api/v1/namespaces/vap-params/configmaps', configMap('ban-a', { banned: 'a' }, { ban: 'yes' }), 201);
    await api.ok('POST', '/api/v1/namespaces/vap-params/configmaps', configMap('ban-b', { banned: 'b' }, { ban: 'yes' }), 201);
    const target = { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-params'), objectSelector: { matchLabels: { checked: 'yes' } } };
    await api.ok('POST', policies, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'max-keys' },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: target,
        validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' keys'" }],
      },
    }, 201);
    await api.ok('POST', bindings, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'max-keys-by-name' }, spec: { policyName: 'max-keys', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } } }, 201);
    const labelled = { checked: 'yes' };
    assert.equal((await createIn('vap-params', configMap('two', { a: '1', b: '2' }, labelled))).status, 201);
    const three = await createIn('vap-params', configMap('three', { a: '1', b: '2', c: '3' }, labelled));
    assert.equal(three.status, 422);
    assert.match(three.body.message, /ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-by-name' denied request: at most 2 keys$/);

    // By selector: every banned key is a param of its own.
    await api.ok('POST', policies, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'banned-keys' },
      spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: target, validations: [{ expression: '!(params.data.banned in object.data)', messageExpression: "'key ' + params.data.banned + ' is banned'" }] },
    }, 201);
    await api.ok('POST', bindings, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'banned-keys-binding' }, spec: { policyName: 'banned-keys', validationActions: ['Warn'], paramRef: { selector: { matchLabels: { ban: 'yes' } }, parameterNotFoundAction: 'Allow' } } }, 201);
    const both = await createIn('vap-params', configMap('both', { a: '1', b: '2' }, labelled));
    assert.equal(both.status, 201);
    assert.deepEqual(warnings(both), [
      "Validation failed for ValidatingAdmissionPolicy 'banned-keys' with binding 'banned-keys-binding': key a is banned",
      "Validation failed for ValidatingAdmissionPolicy 'banned-keys' with binding 'banned-keys-binding': key b is banned",
    ]);

    // Not found: Allow admits without evaluating; Deny refuses in kube's words.
    await api.createNamespace('vap-params-empty');
    const elsewhere = { ...target, namespaceSelector: inNamespaces('vap-params-empty') };
    await enforce('needs-params', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: elsewhere, validations: [{ expression: 'false' }] }, { validationActions: ['Deny'], paramRef: { name: 'absent', parameterNotFoundAction: 'Allow' } });
    assert.equal((await createIn('vap-params-empty', configMap('allowed', {}, labelled))).status, 201);
    await api.ok('POST', bindings, { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'needs-params-deny' }, spec: { policyName: 'needs-params', validationActions: ['Deny'], paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } } }, 201);
    const missing = await createIn('vap-params-empty', configMap('refused', {}, labelled));
    assert.equal(missing.status, 422);
    assert.equal(
      missing.body.message,
      "configmaps \"refused\" is forbidden: ValidatingAdmissionPolicy 'needs-params' with binding 'needs-params-deny' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );

    // A paramKind the server does not serve is a configuration error of the policy.
    await api.createNamespace('vap-params-unknown');
    await enforce('unknown-kind', { paramKind: { apiVersion: 'example.com/v1', kind: 'Nothing' }, matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-params-unknown') }, validations: [{ expression: 'true' }] }, { validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } });
    const unknown = await createIn('vap-params-unknown', configMap('x'));
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.message, /ValidatingAdmissionPolicy 'unknown-kind' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com\/v1, Kind=Nothing'$/);
  });

  it("params' scope: kube's words for a namespace on a cluster-scoped paramKind, and for a namespaced paramKind on a cluster-scoped request", async () => {
    await api.createNamespace('vap-scope');
    // A cluster-scoped paramKind (PriorityClass) with paramRef.namespace.
    await enforce(
      'cluster-params',
      { paramKind: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass' }, matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-scope') }, validations: [{ expression: 'true' }] },
      { validationActions: ['Deny'], paramRef: { name: 'system-cluster-critical', namespace: 'vap-scope', parameterNotFoundAction: 'Deny' } },
    );
    const r = await createIn('vap-scope', configMap('x'));
    assert.equal(r.status, 422);
    assert.match(r.body.message, /with binding 'cluster-params-binding' denied request: failed to configure binding: paramRef\.namespace must not be provided for a cluster-scoped `paramKind`$/);

    // A namespaced paramKind (ConfigMap) without paramRef.namespace, for a cluster-scoped object.
    await enforce(
      'namespaced-params',
      { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConstraints: { resourceRules: [{ apiGroups: ['scheduling.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['priorityclasses'] }] }, validations: [{ expression: 'true' }] },
      { validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } },
    );
    const pc = await api.request('POST', '/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'vap-scope-low' }, value: 10 });
    assert.equal(pc.status, 422);
    assert.equal(
      pc.body.message,
      "priorityclasses.scheduling.k8s.io \"vap-scope-low\" is forbidden: ValidatingAdmissionPolicy 'namespaced-params' with binding 'namespaced-params-binding' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
    );
    await api.ok('DELETE', `${bindings}/namespaced-params-binding`);
  });

  it('a custom resource as params', async () => {
    await api.createNamespace('vap-crd');
    await api.createCrd('policy.example.com', 'Limit', { type: 'object', properties: { spec: { type: 'object', properties: { maxKeys: { type: 'integer' } } } } });
    await api.ok('POST', '/apis/policy.example.com/v1/namespaces/vap-crd/limits', { apiVersion: 'policy.example.com/v1', kind: 'Limit', metadata: { name: 'one' }, spec: { maxKeys: 1 } }, 201);
    await enforce(
      'crd-limit',
      { paramKind: { apiVersion: 'policy.example.com/v1', kind: 'Limit' }, matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-crd') }, validations: [{ expression: 'size(object.data) <= params.spec.maxKeys', messageExpression: "params.kind + ' ' + params.metadata.name + ' allows ' + string(params.spec.maxKeys)" }] },
      { validationActions: ['Deny'], paramRef: { name: 'one', parameterNotFoundAction: 'Deny' } },
    );
    assert.equal((await createIn('vap-crd', configMap('one', { a: '1' }))).status, 201);
    const two = await createIn('vap-crd', configMap('two', { a: '1', b: '2' }));
    assert.equal(two.status, 422);
    assert.match(two.body.message, /denied request: Limit one allows 1$/);
  });

  it('matchConditions, objectSelector, excludeResourceRules and the binding\'s matchResources narrow what is checked', async () => {
    await api.createNamespace('vap-match');
    await api.createNamespace('vap-match-other');
    await enforce(
      'narrow',
      {
        matchConstraints: {
          resourceRules: configMapRules,
          excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], resourceNames: ['excluded'] }],
          namespaceSelector: inNamespaces('vap-match', 'vap-match-other'),
          objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
        },
        matchConditions: [{ name: 'not-system', expression: "!object.metadata.name.startsWith('system-')" }],
        validations: [{ expression: 'false', message: 'checked' }],
      },
      { validationActions: ['Deny'], matchResources: { namespaceSelector: inNamespaces('vap-match') } },
    );
    assert.equal((await createIn('vap-match', configMap('plain'))).status, 422);
    assert.equal((await createIn('vap-match', configMap('system-x'))).status, 201, 'a false matchCondition skips the policy');
    assert.equal((await createIn('vap-match', configMap('labelled', {}, { skip: 'yes' }))).status, 201, 'the objectSelector leaves it out');
    assert.equal((await createIn('vap-match', configMap('excluded'))).status, 201, 'excludeResourceRules by name');
    assert.equal((await createIn('vap-match-other', configMap('plain'))).status, 201, "the binding's matchResources leave this namespace out");
  });

  it('variables and namespaceObject; failurePolicy Fail denies an evaluation error, Ignore lets it pass', async () => {
    await api.createNamespace('vap-fail');
    await api.ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'vap-ignore', labels: { tier: 'gold' } } }, 201);
    const spec = (ns: string, failurePolicy: string): Json => ({
      failurePolicy,
      matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces(ns) },
      variables: [
        { name: 'tier', expression: 'namespaceObject.metadata.labels.tier' },
        { name: 'gold', expression: "variables.tier == 'gold'" },
      ],
      validations: [{ expression: "variables.gold || object.data.owner != ''", message: 'needs an owner' }],
    });
    await enforce('tier-fail', spec('vap-fail', 'Fail'), { validationActions: ['Deny'] });
    await enforce('tier-ignore', spec('vap-ignore', 'Ignore'), { validationActions: ['Deny'] });
    // The variable fails (the namespace has no tier label) and the other side is false: the error is the answer.
    const failed = await createIn('vap-fail', configMap('x', { owner: '' }));
    assert.equal(failed.status, 422);
    assert.equal(
      failed.body.message,
      "configmaps \"x\" is forbidden: ValidatingAdmissionPolicy 'tier-fail' with binding 'tier-fail-binding' denied request: expression 'variables.gold || object.data.owner != ''' resulted in error: composited variable \"gold\" fails to evaluate: composited variable \"tier\" fails to evaluate: no such key: tier",
    );
    assert.equal((await createIn('vap-ignore', configMap('x', { owner: '' }))).status, 201, 'gold namespaces need no owner');
    await api.ok('PATCH', '/api/v1/namespaces/vap-ignore', { metadata: { labels: { tier: null } } }, 200, { 'Content-Type': 'application/merge-patch+json' });
    assert.equal((await createIn('vap-ignore', configMap('y', { owner: '' }))).status, 201, 'the error is ignored under Ignore');
  });

  it('DELETE is judged on oldObject; the per-call cost limit stops a runaway expression', async () => {
    await api.createNamespace('vap-delete');
    await enforce(
      'protected',
      {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['configmaps'] }], namespaceSelector: inNamespaces('vap-delete') },
        validations: [{ expression: "object == null && oldObject.metadata.?labels.?protected.orValue('') != 'true'", messageExpression: "oldObject.metadata.name + ' is protected'", reason: 'Forbidden' }],
      },
      { validationActions: ['Deny'] },
    );
    await api.ok('POST', '/api/v1/namespaces/vap-delete/configmaps', configMap('keep', {}, { protected: 'true' }), 201);
    await api.ok('POST', '/api/v1/namespaces/vap-delete/configmaps', configMap('drop'), 201);
    const refused = await api.request('DELETE', '/api/v1/namespaces/vap-delete/configmaps/keep');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, `configmaps "keep" is forbidden: ValidatingAdmissionPolicy 'protected' with binding 'protected-binding' denied request: keep is protected`);
    await api.ok('DELETE', '/api/v1/namespaces/vap-delete/configmaps/drop');

    await api.createNamespace('vap-cost');
    await enforce(
      'quadratic',
      { matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-cost') }, validations: [{ expression: 'object.data.all(a, object.data.all(b, a.size() >= 0))' }] },
      { validationActions: ['Deny'] },
    );
    const few = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'v']));
    assert.equal((await createIn('vap-cost', configMap('few', few))).status, 201);
    const many = Object.fromEntries(Array.from({ length: 1100 }, (_, i) => [`k${i}`, 'v']));
    const runaway = await createIn('vap-cost', configMap('many', many));
    assert.equal(runaway.status, 422);
    assert.match(runaway.body.message, /denied request: expression 'object\.data\.all\(a, object\.data\.all\(b, a\.size\(\) >= 0\)\)' resulted in error: operation cancelled: actual cost limit exceeded$/);
  });

  it('auditAnnotations are evaluated (the server keeps no audit log): one that fails denies under Fail', async () => {
    await api.createNamespace('vap-audit-annotations');
    await enforce(
      'annotated',
      {
        matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-audit-annotations') },
        auditAnnotations: [{ key: 'owner', valueExpression: "'owned by ' + object.data.owner" }],
      },
      { validationActions: ['Audit'] },
    );
    assert.equal((await createIn('vap-audit-annotations', configMap('owned', { owner: 'team-a' }))).status, 201);
    const unowned = await createIn('vap-audit-annotations', configMap('unowned', { a: '1' }));
    assert.equal(unowned.status, 422);
    assert.equal(
      unowned.body.message,
      `configmaps "unowned" is forbidden: ValidatingAdmissionPolicy 'annotated' with binding 'annotated-binding' denied request: expression ''owned by ' + object.data.owner' resulted in error: no such key: owner`,
    );
  });

  it("Kubernetes' CEL libraries are there, as for CRD rules (quantity, RE2 regexes)", async () => {
    await api.createNamespace('vap-libraries');
    await enforce(
      'memory-limit',
      {
        matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-libraries') },
        // A variable may hold any type, a quantity here.
        variables: [{ name: 'memory', expression: "quantity(object.data.?memory.orValue('0'))" }],
        validations: [
          { expression: "!has(object.data.memory) || (isQuantity(object.data.memory) && variables.memory.isLessThan(quantity('1Gi')))", message: 'memory must be a quantity under 1Gi' },
          { expression: "object.metadata.name.matches('^[a-z]+$')", message: 'names are lower-case letters' },
        ],
      },
      { validationActions: ['Deny'] },
    );
    assert.equal((await createIn('vap-libraries', configMap('small', { memory: '512Mi' }))).status, 201);
    const big = await createIn('vap-libraries', configMap('big', { memory: '2Gi' }));
    assert.equal(big.status, 422);
    assert.match(big.body.message, /denied request: memory must be a quantity under 1Gi$/);
    const digits = await createIn('vap-libraries', configMap('abc1', { memory: '1Mi' }));
    assert.match(digits.body.message, /denied request: names are lower-case letters$/);
  });

  it('the authorizer variable asks RBAC about the requesting user', async () => {
    await api.createNamespace('vap-authz');
    await enforce(
      'may-read-secrets',
      {
        matchConstraints: { resourceRules: configMapRules, namespaceSelector: inNamespaces('vap-authz') },
        validations: [
          { expression: "authorizer.group('').resource('secrets').namespace(request.namespace).check('list').allowed()", message: 'only users who may list secrets' },
          { expression: "authorizer.requestResource.check('create').allowed()", message: 'may not create it' },
        ],
      },
      { validationActions: ['Deny'] },
    );
    assert.equal((await createIn('vap-authz', configMap('admin'))).status, 201);
    // alice may create configmaps there, but not list secrets.
    await api.ok('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/vap-authz/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] }, 201);
    await api.ok('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/vap-authz/rolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }] }, 201);
    const alice = await createIn('vap-authz', configMap('alice'), { 'Impersonate-User': 'alice' });
    assert.equal(alice.status, 422);
    assert.match(alice.body.message, /denied request: only users who may list secrets$/);
  });

  it('policies never apply to policies and bindings themselves', async () => {
    await enforce('locks-everything', { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }], namespaceSelector: inNamespaces('nowhere'), objectSelector: {} }, validations: [{ expression: 'false' }] }, { validationActions: ['Deny'] });
    // Cluster-scoped writes ignore the namespaceSelector, so this would lock everything cluster-wide but for the exemption.
    await api.ok('DELETE', `${bindings}/locks-everything-binding`);
    await api.ok('DELETE', `${policies}/locks-everything`);
  });

  it('kubectl: apply a policy and binding, then create deployment is refused in kube\'s words; a Warn binding prints Warning', { skip: !existsSync(kubectlPath) && 'kubectl not found at /usr/bin/kubectl' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'operant-vap-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(kubeconfig, api.server.kubeconfig);
      for (const ns of ['vap-kubectl', 'vap-kubectl-warn']) await api.createNamespace(ns);
      const manifest = (ns: string, name: string, action: string): string => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  matchConstraints:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: ${ns}
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}-binding
spec:
  policyName: ${name}
  validationActions: [${action}]
`;
      const applied = await kubectl(kubeconfig, ['apply', '-f', '-'], manifest('vap-kubectl', 'replica-limit', 'Deny') + '---' + manifest('vap-kubectl-warn', 'replica-limit-warn', 'Warn'));
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /validatingadmissionpolicy\.admissionregistration\.k8s\.io\/replica-limit created/);

      const refused = await kubectl(kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=10', '-n', 'vap-kubectl']);
      assert.notEqual(refused.code, 0);
      assert.equal(
        refused.stderr.trim(),
        "error: failed to create deployment: deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: failed expression: object.spec.replicas <= 5",
      );
      const fine = await kubectl(kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=3', '-n', 'vap-kubectl']);
      assert.equal(fine.code, 0, fine.stderr);

      const warned = await kubectl(kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=10', '-n', 'vap-kubectl-warn']);
      assert.equal(warned.code, 0, warned.stderr);
      assert.equal(warned.stderr.trim(), "Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit-warn' with binding 'replica-limit-warn-binding': failed expression: object.spec.replicas <= 5");
      assert.match(warned.stdout, /deployment\.apps\/web created/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
