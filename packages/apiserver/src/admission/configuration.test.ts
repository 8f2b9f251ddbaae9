import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fieldErrorMessage, type KubeObject } from '@operant/apimachinery';
import { defaultWebhookConfiguration, validateWebhookConfiguration, validateWebhookConfigurationUpdate } from './configuration.js';
import { loadCel } from '../cel-loader.js';

function config(webhooks: unknown[], name = 'cfg'): KubeObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks };
}

function hook(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'v.example.com',
    clientConfig: { url: 'https://127.0.0.1:8443/validate' },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

function messages(obj: KubeObject, mutating = false): string[] {
  return validateWebhookConfiguration(obj, mutating).map(fieldErrorMessage);
}

describe('webhook configuration defaults', () => {
  it('fills in the v1 defaults', () => {
    const obj = config([{ name: 'm.example.com', clientConfig: { service: { namespace: 'ns', name: 'svc' } }, rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }]);
    defaultWebhookConfiguration(obj, true);
    const h = (obj.webhooks as Array<Record<string, unknown>>)[0]!;
    assert.equal(h.failurePolicy, 'Fail');
    assert.equal(h.matchPolicy, 'Equivalent');
    assert.deepEqual(h.namespaceSelector, {});
    assert.deepEqual(h.objectSelector, {});
    assert.equal(h.timeoutSeconds, 10);
    assert.equal(h.reinvocationPolicy, 'Never');
    assert.equal((h.rules as Array<Record<string, unknown>>)[0]!.scope, '*');
    assert.equal((h.clientConfig as { service: { port: number } }).service.port, 443);
    assert.equal(h.sideEffects, undefined, 'sideEffects has no default in v1');
    assert.equal(h.admissionReviewVersions, undefined, 'admissionReviewVersions has no default in v1');
  });

  it('gives validating webhooks no reinvocationPolicy and keeps set values', () => {
    const obj = config([hook({ failurePolicy: 'Ignore', timeoutSeconds: 3 })]);
    defaultWebhookConfiguration(obj, false);
    const h = (obj.webhooks as Array<Record<string, unknown>>)[0]!;
    assert.equal(h.reinvocationPolicy, undefined);
    assert.equal(h.failurePolicy, 'Ignore');
    assert.equal(h.timeoutSeconds, 3);
  });
});

describe('webhook configuration validation', () => {
  // The write path loads CEL before it validates a configuration with match conditions (cel-loader.ts).
  before(() => loadCel());
  it('accepts a well-formed configuration', () => {
    assert.deepEqual(messages(config([hook()])), []);
    assert.deepEqual(messages(config([hook({ reinvocationPolicy: 'IfNeeded' })]), true), []);
  });

  it('requires fully qualified, unique webhook names', () => {
    assert.deepEqual(messages(config([hook({ name: 'x' })])), [
      'webhooks[0].name: Invalid value: "x": should be a domain with at least three segments separated by dots',
    ]);
    assert.deepEqual(messages(config([hook({ name: '' })])), ['webhooks[0].name: Required value']);
    assert.deepEqual(messages(config([hook(), hook()])), ['webhooks[1].name: Duplicate value: "v.example.com"']);
    assert.match(messages(config([hook({ name: 'Bad.Example.com' })]))[0]!, /^webhooks\[0\]\.name: Invalid value: "Bad.Example.com": a lowercase RFC 1123 subdomain/);
  });

  it('checks rules', () => {
    const bad = hook({
      rules: [
        { operations: ['*', 'CREATE'], apiGroups: ['*', 'apps'], apiVersions: ['v1', ''], resources: ['*', 'pods'], scope: 'Somewhere' },
        { operations: ['PATCH'], apiGroups: [], apiVersions: [], resources: ['*/*', 'pods/status'] },
        { operations: [], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*', 'pods/status', '*/status', 'x/status'] },
      ],
    });
    assert.deepEqual(messages(config([bad])), [
      `webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if '*' is present, must not specify other operations`,
      `webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other API groups`,
      'webhooks[0].rules[0].apiVersions[1]: Required value',
      `webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`,
      'webhooks[0].rules[0].scope: Unsupported value: "Somewhere": supported values: "*", "Cluster", "Namespaced"',
      'webhooks[0].rules[1].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[1].apiGroups: Required value',
      'webhooks[0].rules[1].apiVersions: Required value',
      `webhooks[0].rules[1].resources: Invalid value: []string{"*/*", "pods/status"}: if '*/*' is present, must not specify other resources`,
      'webhooks[0].rules[2].operations: Required value',
      `webhooks[0].rules[2].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`,
      `webhooks[0].rules[2].resources[3]: Invalid value: "x/status": if '*/status' is present, must not specify x/status`,
    ]);
  });

  it('checks policies, side effects, timeouts and review versions', () => {
    const bad = hook({
      failurePolicy: 'Sometimes',
      matchPolicy: 'Fuzzy',
      sideEffects: 'Some',
      timeoutSeconds: 31,
      reinvocationPolicy: 'Always',
      admissionReviewVersions: ['v2', 'v2'],
    });
    assert.deepEqual(messages(config([bad]), true), [
      'webhooks[0].failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
      'webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version',
      'webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1',
    ]);
    const missing = hook();
    delete missing.sideEffects;
    delete missing.admissionReviewVersions;
    assert.deepEqual(messages(config([{ ...missing, timeoutSeconds: 0 }])), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]);
  });

  it('checks the client config', () => {
    assert.deepEqual(messages(config([hook({ clientConfig: {} })])), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
    assert.deepEqual(messages(config([hook({ clientConfig: { url: 'https://a.b', service: { name: 's', namespace: 'n' } } })])), [
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ]);
    assert.deepEqual(messages(config([hook({ clientConfig: { url: 'http://u:p@host/x?a=b#frag' } })])), [
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
    ]);
    assert.deepEqual(messages(config([hook({ clientConfig: { url: 'https:///path' } })])), [
      'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
    assert.deepEqual(messages(config([hook({ clientConfig: { service: { name: '', namespace: '', port: 70000, path: 'a//B' } } })])), [
      'webhooks[0].clientConfig.service.name: Required value',
      'webhooks[0].clientConfig.service.namespace: Required value',
      'webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive',
      `webhooks[0].clientConfig.service.path: Invalid value: "a//B": must start with a '/'`,
      // Go drops the first character before splitting, whatever it is.
      'webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[0] may not be empty',
      'webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[1] may not be empty',
      `webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('checks selectors', () => {
    const bad = hook({
      namespaceSelector: { matchLabels: { 'bad key!': 'v' }, matchExpressions: [{ key: 'a', operator: 'In' }, { key: 'b', operator: 'Exists', values: ['x'] }, { key: 'c', operator: 'Near' }] },
      objectSelector: { matchExpressions: [{ key: 'd', operator: 'In', values: ['not valid!'] }] },
    });
    const out = messages(config([bad]));
    assert.match(out[0]!, /^webhooks\[0\]\.namespaceSelector\.matchLabels: Invalid value: "bad key!": name part must consist of/);
    assert.deepEqual(out.slice(1), [
      "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "webhooks[0].namespaceSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'webhooks[0].namespaceSelector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
      out[4]!,
    ]);
    assert.match(out[4]!, /^webhooks\[0\]\.objectSelector\.matchExpressions\[0\]\.values\[0\]: Invalid value: "not valid!": a valid label must be/);
  });

  it('compiles match conditions', () => {
    const bad = hook({
      matchConditions: [
        { name: 'ok', expression: "object.metadata.name == 'x'" },
        { name: 'not-bool', expression: 'object.metadata.name' },
        { name: 'ok', expression: 'request.operation ==' },
        { name: '', expression: '  ' },
      ],
    });
    const out = messages(config([bad]));
    assert.equal(out[0], `webhooks[0].matchConditions[1].expression: Invalid value: "object.metadata.name": must evaluate to bool`);
    assert.match(out[1]!, /^webhooks\[0\]\.matchConditions\[2\]\.expression: Invalid value: "request.operation ==": compilation failed: ERROR: <input>:1:\d+: /);
    assert.deepEqual(out.slice(2), [
      'webhooks[0].matchConditions[2].name: Duplicate value: "ok"',
      'webhooks[0].matchConditions[3].expression: Required value',
      'webhooks[0].matchConditions[3].name: Required value',
    ]);
  });

  it('lets an update keep what the old configuration already had', () => {
    const old = config([hook({ sideEffects: 'Some', matchConditions: [{ name: 'c', expression: 'object.metadata.name' }] })]);
    const updated = config([hook({ sideEffects: 'Some', matchConditions: [{ name: 'c', expression: 'object.metadata.name' }], timeoutSeconds: 5 })]);
    assert.deepEqual(validateWebhookConfigurationUpdate(updated, old, false).map(fieldErrorMessage), []);
    const changed = config([hook({ sideEffects: 'Some', matchConditions: [{ name: 'c', expression: 'object.metadata.labels' }] })]);
    assert.deepEqual(validateWebhookConfigurationUpdate(changed, old, false).map(fieldErrorMessage), [
      'webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.labels": must evaluate to bool',
    ]);
    // A create may not use side effects Some.
    assert.deepEqual(messages(updated), [
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool',
    ]);
  });
});
