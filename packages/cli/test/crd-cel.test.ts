/**
 * CEL x-kubernetes-validations on custom resources, through the real kubectl:
 * rule and message, messageExpression, reason (kube's wording per reason),
 * fieldPath, transition rules with oldSelf (update only), optionalOldSelf, the
 * Kubernetes CEL libraries users rely on, and the interplay with schema errors.
 *
 * kube lists the errors of one request in Go map order (random), so several
 * causes are compared as sets.
 */
import { before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, kubectlOk } from './harness.js';
import { applyYaml, kit, serverForFile } from './kubectl-support.js';
import { crdYaml, invalidCauses } from './crd-support.js';

const server = serverForFile();

const scalerSchema = `type: object
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: self.minReplicas <= self.maxReplicas
      message: minReplicas must not exceed maxReplicas
    - rule: "!has(self.secretRef) || self.secretRef.startsWith('sec-')"
      messageExpression: "'secretRef ' + self.secretRef + ' must start with sec-'"
    - rule: "!has(self.legacy)"
      reason: FieldValueForbidden
      message: legacy is no longer supported
      fieldPath: .legacy
    - rule: "!has(self.mode) || self.mode != 'Custom' || has(self.customConfig)"
      reason: FieldValueRequired
      message: customConfig is required when mode is Custom
      fieldPath: .customConfig
    - rule: self.storageClass == oldSelf.storageClass
      message: storageClass is immutable
    - rule: has(self.mode) || !has(oldSelf.mode)
      message: mode may not be removed once set
    - rule: self.minReplicas >= 0
    properties:
      minReplicas: {type: integer}
      maxReplicas: {type: integer, maximum: 100}
      secretRef: {type: string, maxLength: 63}
      legacy: {type: string}
      mode: {type: string, enum: [Auto, Custom]}
      customConfig: {type: string}
      storageClass: {type: string}
      level:
        type: integer
        x-kubernetes-validations:
        - rule: self >= oldSelf
          message: level may only go up
        - rule: "oldSelf.hasValue() ? self <= oldSelf.value() + 1 : self <= 3"
          optionalOldSelf: true
          messageExpression: "oldSelf.hasValue() ? 'level may go up by one at a time, not ' + string(self - oldSelf.value()) : 'level starts at most at 3, not ' + string(self)"
      zones:
        type: array
        maxItems: 8
        items: {type: string, maxLength: 20}
        x-kubernetes-validations:
        - rule: self.all(z, z.matches('^[a-z]+-[0-9][a-z]$'))
          message: zones look like eu-1a
        - rule: self.isSorted()
          message: zones must be sorted
        - rule: size(self) == size(self.map(z, z).filter(z, self.exists_one(y, y == z)))
          reason: FieldValueDuplicate
          message: zones must be unique`;

const libsSchema = `type: object
properties:
  spec:
    type: object
    properties:
      host:
        type: string
        maxLength: 63
        x-kubernetes-validations:
        - rule: "!format.dns1123Label().validate(self).hasValue()"
          messageExpression: "'invalid host: ' + self"
        - rule: self.lowerAscii() == self && self.split('-').size() <= 3
          message: host must be lowercase with at most three parts
      version:
        type: string
        maxLength: 20
        x-kubernetes-validations:
        - rule: self.find('[0-9]+') != ''
          message: version needs a number
      weights:
        type: array
        maxItems: 10
        items: {type: integer}
        x-kubernetes-validations:
        - rule: self.sum() == 100
          messageExpression: "'weights add up to %d, not 100'.format([self.sum()])"
      memory:
        type: string
        maxLength: 20
        x-kubernetes-validations:
        - rule: isQuantity(self) && quantity(self).compareTo(quantity('1Gi')) <= 0
          message: memory must be a quantity of at most 1Gi
      endpoint:
        type: string
        maxLength: 100
        x-kubernetes-validations:
        - rule: isURL(self) && url(self).getScheme() == 'https' && url(self).getHostname().endsWith('.example.com')
          message: endpoint must be an https URL under example.com
      ip:
        type: string
        maxLength: 50
        x-kubernetes-validations:
        - rule: isIP(self) && ip(self).family() == 4
          message: must be an IPv4 address`;

const scaler = (name: string, spec: string): string => `apiVersion: cel.example.com/v1\nkind: Scaler\nmetadata: {name: ${name}, namespace: default}\nspec: ${spec}\n`;
const lib = (spec: string): string => `apiVersion: cel.example.com/v1\nkind: Lib\nmetadata: {name: l, namespace: default}\nspec: ${spec}\n`;

/** Causes of a refused create/apply (`verb` is create --dry-run=server unless given). */
async function refused(yaml: string, kind: string, name: string, args = ['create', '--dry-run=server', '-f', '-']): Promise<string[]> {
  const r = await kubectl(server(), args, { input: yaml });
  assert.notEqual(r.code, 0, `accepted: ${r.stdout}`);
  return invalidCauses(r.stderr, kind, name).sort();
}

async function acceptedDry(yaml: string): Promise<void> {
  const r = await kubectl(server(), ['create', '--dry-run=server', '-f', '-'], { input: yaml });
  assert.equal(r.code, 0, r.stderr);
}

describe('rules, messages, reasons and field paths', () => {
  before(async () => {
    if (!hasKubectl) return;
    await applyYaml(server(), crdYaml({ group: 'cel.example.com', kind: 'Scaler', schema: scalerSchema }));
  });

  kit('a rule with a message; a rule without one reports "failed rule: <rule>"', async () => {
    await acceptedDry(scaler('s', '{minReplicas: 1, maxReplicas: 3}'));
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 5, maxReplicas: 3}'), 'Scaler', 's'), [
      'spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
    ]);
    assert.deepEqual(await refused(scaler('s', '{minReplicas: -2, maxReplicas: 3}'), 'Scaler', 's'), [
      'spec: Invalid value: "object": failed rule: self.minReplicas >= 0',
    ]);
  });

  kit('a rule that fails at run time (a missing field) reports the CEL error and the rule', async () => {
    assert.deepEqual(await refused(scaler('s', '{maxReplicas: 3}'), 'Scaler', 's'), [
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: minReplicas must not exceed maxReplicas',
      'spec: Invalid value: "object": no such key: minReplicas evaluating rule: self.minReplicas >= 0',
    ]);
  });

  kit('messageExpression builds the message from the object', async () => {
    await acceptedDry(scaler('s', '{minReplicas: 1, maxReplicas: 3, secretRef: sec-db}'));
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 1, maxReplicas: 3, secretRef: db-password}'), 'Scaler', 's'), [
      'spec: Invalid value: "object": secretRef db-password must start with sec-',
    ]);
  });

  kit('reason and fieldPath: FieldValueForbidden, FieldValueRequired and FieldValueDuplicate in kube\'s wording', async () => {
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 1, maxReplicas: 3, legacy: "yes"}'), 'Scaler', 's'), [
      'spec.legacy: Forbidden: legacy is no longer supported',
    ]);
    await acceptedDry(scaler('s', '{minReplicas: 1, maxReplicas: 3, mode: Custom, customConfig: x}'));
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 1, maxReplicas: 3, mode: Custom}'), 'Scaler', 's'), [
      'spec.customConfig: Required value: customConfig is required when mode is Custom',
    ]);
    // kube reports a Duplicate with the node's type as the value, and no message.
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 1, maxReplicas: 3, zones: [eu-1a, eu-1a]}'), 'Scaler', 's'), ['spec.zones: Duplicate value: "array"']);
  });

  kit('rules on a list: all(), matches() and isSorted(), every failing rule listed', async () => {
    await acceptedDry(scaler('s', '{minReplicas: 1, maxReplicas: 3, zones: [eu-1a, eu-1b, us-2a]}'));
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 1, maxReplicas: 3, zones: [us-2a, EU-1a]}'), 'Scaler', 's'), [
      'spec.zones: Invalid value: "array": zones look like eu-1a',
      'spec.zones: Invalid value: "array": zones must be sorted',
    ]);
  });

  kit('rules and schema errors together: lesser schema errors keep the rules running', async () => {
    // maximum is not a blocking error: the rules still run and their errors are listed too.
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 500, maxReplicas: 200}'), 'Scaler', 's'), [
      'spec.maxReplicas: Invalid value: 200: spec.maxReplicas in body should be less than or equal to 100',
      'spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
    ]);
  });

  kit('a blocking schema error (wrong type, unsupported value) skips the rules, and kube says so', async () => {
    assert.deepEqual(await refused(scaler('s', '{minReplicas: 5, maxReplicas: 3, mode: Manual}'), 'Scaler', 's'), [
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      'spec.mode: Unsupported value: "Manual": supported values: "Auto", "Custom"',
    ]);
  });

  kit('transition rules with oldSelf run only on update, when both values exist', async () => {
    const s = server();
    // Create: the oldSelf rules do not run.
    await kubectlOk(s, ['create', '-f', '-'], { input: scaler('t', '{minReplicas: 1, maxReplicas: 3, storageClass: fast, mode: Auto, level: 2}') });
    assert.deepEqual(
      await refused(scaler('t', '{minReplicas: 1, maxReplicas: 3, storageClass: slow, mode: Auto, level: 2}'), 'Scaler', 't', ['apply', '-f', '-']),
      ['spec: Invalid value: "object": storageClass is immutable'],
    );
    assert.deepEqual(await refused(scaler('t', '{minReplicas: 1, maxReplicas: 3, storageClass: fast, level: 2}'), 'Scaler', 't', ['replace', '-f', '-']), [
      'spec: Invalid value: "object": mode may not be removed once set',
    ]);
    assert.deepEqual(
      await refused(scaler('t', '{minReplicas: 1, maxReplicas: 3, storageClass: fast, mode: Auto, level: 1}'), 'Scaler', 't', ['replace', '-f', '-']),
      ['spec.level: Invalid value: "integer": level may only go up'],
    );
    // An update that keeps the transition rules is accepted.
    const ok = await kubectlOk(s, ['patch', 'scaler', 't', '--type=merge', '-p', '{"spec":{"level":3,"maxReplicas":5}}']);
    assert.equal(ok.trim(), 'scaler.cel.example.com/t patched');
  });

  kit('optionalOldSelf: the rule also runs on create, with oldSelf empty', async () => {
    const s = server();
    assert.deepEqual(await refused(scaler('o', '{minReplicas: 1, maxReplicas: 3, storageClass: fast, level: 7}'), 'Scaler', 'o'), [
      'spec.level: Invalid value: "integer": level starts at most at 3, not 7',
    ]);
    await kubectlOk(s, ['create', '-f', '-'], { input: scaler('o', '{minReplicas: 1, maxReplicas: 3, storageClass: fast, level: 3}') });
    const r = await kubectl(s, ['patch', 'scaler', 'o', '--type=merge', '-p', '{"spec":{"level":6}}']);
    assert.notEqual(r.code, 0);
    assert.deepEqual(invalidCauses(r.stderr, 'Scaler', 'o'), ['spec.level: Invalid value: "integer": level may go up by one at a time, not 3']);
  });
});

describe('Kubernetes CEL libraries in rules', () => {
  before(async () => {
    if (!hasKubectl) return;
    await applyYaml(server(), crdYaml({ group: 'cel.example.com', kind: 'Lib', schema: libsSchema }));
  });

  kit('strings, regex find, lists sum and string format, quantity, url, ip and format: good values pass', async () => {
    await acceptedDry(
      lib('{host: web-eu-1, version: v1.2, weights: [50, 30, 20], memory: 512Mi, endpoint: "https://api.example.com/v1", ip: 10.0.0.1}'),
    );
  });

  kit('... and bad ones are refused, each with its message', async () => {
    assert.deepEqual(
      await refused(lib('{host: Web_EU, version: latest, weights: [10, 20], memory: 2Gi, endpoint: "http://api.example.com", ip: "::1"}'), 'Lib', 'l'),
      [
        'spec.endpoint: Invalid value: "string": endpoint must be an https URL under example.com',
        'spec.host: Invalid value: "string": host must be lowercase with at most three parts',
        'spec.host: Invalid value: "string": invalid host: Web_EU',
        'spec.ip: Invalid value: "string": must be an IPv4 address',
        'spec.memory: Invalid value: "string": memory must be a quantity of at most 1Gi',
        'spec.version: Invalid value: "string": version needs a number',
        'spec.weights: Invalid value: "array": weights add up to 30, not 100',
      ],
    );
    assert.deepEqual(await refused(lib('{memory: lots, host: a-b-c-d}'), 'Lib', 'l'), [
      'spec.host: Invalid value: "string": host must be lowercase with at most three parts',
      'spec.memory: Invalid value: "string": memory must be a quantity of at most 1Gi',
    ]);
  });
});
