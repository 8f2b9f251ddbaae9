/**
 * The real kubectl against `operant server`: ValidatingAdmissionPolicies and
 * their bindings are stored and printed with kubectl's columns, and a policy
 * whose CEL does not compile is refused in kube's words. (Their enforcement,
 * with kubectl too: packages/apiserver/test/validating-admission-policy.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import { kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile, tableRows } from './kubectl-support.js';

const server = serverForFile();

const policyYaml = (name: string, expression: string): string => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "${expression}"
`;

describe('kubectl and ValidatingAdmissionPolicies', () => {
  kit('apply a policy and a binding; get prints their columns; bad CEL is refused', async () => {
    const rows = tableRows(await kubectlOk(server(), ['api-resources', '--api-group=admissionregistration.k8s.io']));
    const names = rows.slice(1).map((r) => r[0]);
    assert.ok(names.includes('validatingadmissionpolicies') && names.includes('validatingadmissionpolicybindings'), names.join(' '));

    await applyYaml(
      server(),
      `${policyYaml('replica-limit', 'object.spec.replicas <= int(params.data.maxReplicas)')}---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: replica-limits, namespace: default, parameterNotFoundAction: Deny}
`,
    );
    const policies = tableRows(await kubectlOk(server(), ['get', 'validatingadmissionpolicies']));
    assert.deepEqual(policies[0], ['NAME', 'VALIDATIONS', 'PARAMKIND', 'AGE']);
    assert.deepEqual(policies[1].slice(0, 3), ['replica-limit', '1', 'v1/ConfigMap']);
    const bound = tableRows(await kubectlOk(server(), ['get', 'validatingadmissionpolicybindings']));
    assert.deepEqual(bound[0], ['NAME', 'POLICYNAME', 'PARAMREF', 'AGE']);
    assert.deepEqual(bound[1].slice(0, 3), ['replica-limit-binding', 'replica-limit', 'default/replica-limits']);

    const bad = await kubectlFails(server(), ['apply', '-f', '-'], { input: policyYaml('broken', 'object.spec.replicas') });
    assert.match(bad.stderr, /spec.validations\[0\].expression: Invalid value: "object.spec.replicas": must evaluate to bool/);
  });
});
