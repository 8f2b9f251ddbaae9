/**
 * CRDs that kube-apiserver refuses, refused the same way: a 422 Invalid whose
 * causes name the field path and say what is wrong, in kube's words. Nothing
 * of a refused CRD is stored or served.
 *
 * kube validates its internal form of a CRD, where a schema (printer columns,
 * subresources) that every version shares is moved to the top level: the errors
 * of a one-version CRD are reported under `spec.validation.openAPIV3Schema`,
 * `spec.additionalPrinterColumns[i]` and `spec.subresources`; those of versions
 * with different schemas under `spec.versions[i].schema.openAPIV3Schema`.
 *
 * Where kube reports several causes, their order comes from Go map iteration
 * (random), so causes are compared as sets.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, kubectlOk } from './harness.js';
import { kit, serverForFile } from './kubectl-support.js';
import { crdYaml, invalidCauses } from './crd-support.js';

const server = serverForFile();

/** Applies a CRD that must be refused: checks the 422 and returns kubectl's causes. */
async function refused(yaml: string, name: string): Promise<string[]> {
  const s = server();
  const r = await kubectl(s, ['create', '-f', '-', '-v=6'], { input: yaml });
  assert.notEqual(r.code, 0, `the CRD was accepted: ${r.stdout}`);
  assert.match(r.stderr, /POST https:\S+\/apis\/apiextensions\.k8s\.io\/v1\/customresourcedefinitions\S* 422 Unprocessable Entity/);
  // Nothing was stored.
  const get = await kubectl(s, ['get', 'crd', name]);
  assert.match(get.stderr, /Error from server \(NotFound\)/);
  return invalidCauses(r.stderr, 'CustomResourceDefinition', name).sort();
}

const widgets = (schema: string, versionExtra?: string): string =>
  crdYaml({ group: 'example.com', kind: 'Widget', schema, versionExtra });

describe('structural schemas', () => {
  kit('a property without a type is refused (NonStructural), with the path of the property', async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    properties:
      size: {type: integer}`),
      'widgets.example.com',
    );
    assert.deepEqual(causes, ['spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });

  kit('a root without a type, and an array without items', async () => {
    const causes = await refused(
      widgets(`properties:
  spec:
    type: object
    properties:
      tags: {type: array}`),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.validation.openAPIV3Schema.properties[spec].properties[tags].items: Required value: must be specified',
      'spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root',
    ]);
  });

  kit('versions with different schemas are checked each at its own path', async () => {
    const causes = await refused(
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {properties: {size: {type: integer}}}
`,
      'widgets.example.com',
    );
    assert.deepEqual(causes, ['spec.versions[1].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });
});

describe('forbidden keywords', () => {
  kit('uniqueItems, $ref and x-kubernetes-preserve-unknown-fields: false', async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    type: object
    properties:
      tags: {type: array, uniqueItems: true, items: {type: string}}
      ref: {$ref: '#/definitions/other'}`),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.validation.openAPIV3Schema.properties[spec].properties[ref].$ref: Forbidden: $ref is not supported',
      'spec.validation.openAPIV3Schema.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    ]);
    const preserve = await refused(
      widgets(`type: object
properties:
  spec: {type: object, x-kubernetes-preserve-unknown-fields: false}`),
      'widgets.example.com',
    );
    assert.deepEqual(preserve, ['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined']);
  });

  kit('additionalProperties next to properties', async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    type: object
    properties:
      size: {type: integer}
    additionalProperties: {type: string}`),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
    ]);
  });
});

describe('printer columns and subresources', () => {
  kit('a printer column whose JSONPath does not start with a dot, and an unknown column type', async () => {
    const causes = await refused(
      widgets(
        `type: object
properties:
  spec: {type: object, properties: {replicas: {type: integer}}}`,
        `additionalPrinterColumns:
- {name: Replicas, type: integer, jsonPath: spec.replicas}
- {name: Ratio, type: float, jsonPath: .spec.ratio}`,
      ),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].type: Invalid value: "float": must be one of boolean,date,integer,number,string',
    ]);
  });

  kit('a scale subresource whose paths are not under .spec and .status', async () => {
    const causes = await refused(
      widgets(
        `type: object
properties:
  spec: {type: object, properties: {replicas: {type: integer}}}`,
        `subresources:
  scale: {specReplicasPath: .replicas, statusReplicasPath: status.replicas}`,
      ),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec',
      'spec.subresources.scale.statusReplicasPath: Invalid value: "status.replicas": must be a simple json path starting with .',
    ]);
  });
});

describe('CEL rules are compiled when the CRD is written', () => {
  kit("a rule naming a field the schema does not declare: undefined field 'z'", async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    type: object
    properties:
      x: {type: integer}
    x-kubernetes-validations:
    - rule: self.z > 0`),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ' +
        'apiextensions.ValidationRule{Rule:"self.z > 0", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ' +
        "compilation failed: ERROR: <input>:1:5: undefined field 'z'\n | self.z > 0\n | ....^",
    ]);
  });

  const ruleDump = (r: string, extra: { messageExpression?: string; optionalOldSelf?: boolean } = {}): string =>
    `apiextensions.ValidationRule{Rule:"${r}", Message:"", MessageExpression:"${extra.messageExpression ?? ''}", ` +
    `Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:${extra.optionalOldSelf ? '(*bool)(0xc000010008)' : '(*bool)(nil)'}}`;

  kit('a rule that is not a boolean, a messageExpression that is not a string, optionalOldSelf without oldSelf', async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    type: object
    properties:
      x: {type: integer}
    x-kubernetes-validations:
    - rule: self.x + 1
    - rule: self.x > 0
      messageExpression: self.x
    - rule: self.x > 0
      optionalOldSelf: true`),
      'widgets.example.com',
    );
    const at = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations';
    assert.deepEqual(causes, [
      `${at}[0].rule: Invalid value: ${ruleDump('self.x + 1')}: cel expression must evaluate to a bool`,
      `${at}[1].messageExpression: Invalid value: ${ruleDump('self.x > 0', { messageExpression: 'self.x' })}: messageExpression must evaluate to a string`,
      `${at}[2].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });

  kit(
    'a rule with a syntax error gets cel-go\'s parser message',
    async () => {
      const causes = await refused(
        widgets(`type: object
properties:
  spec:
    type: object
    properties:
      x: {type: integer}
    x-kubernetes-validations:
    - rule: self.x >`),
        'widgets.example.com',
      );
      assert.deepEqual(causes, [
        `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${ruleDump('self.x >')}: compilation failed: ` +
          "ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n" +
          ' | self.x >\n | ........^',
      ]);
    },
    { todo: "syntax errors are worded by cel-js's parser (`Syntax error: Unexpected token: EOF`), not cel-go's ANTLR parser (`mismatched input '<EOF>' expecting {...}`)" },
  );

  kit('a schema error on a node (an unknown reason) hides the CEL errors of that node, as in kube', async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    type: object
    properties:
      x: {type: integer}
    x-kubernetes-validations:
    - rule: self.z > 0
    - rule: self.x > 0
      reason: FieldValueBad`),
      'widgets.example.com',
    );
    assert.deepEqual(causes, [
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].reason: Unsupported value: "FieldValueBad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
    ]);
  });

  kit('a rule over unbounded lists blows the cost budget and is refused', async () => {
    const causes = await refused(
      widgets(`type: object
properties:
  spec:
    type: object
    properties:
      tags:
        type: array
        items: {type: string}
        x-kubernetes-validations:
        - rule: self.all(a, self.all(b, a == b || a != b))`),
      'widgets.example.com',
    );
    const path = 'spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule';
    assert.deepEqual(causes, [
      `${path}: Forbidden: contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${path}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      'spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    ]);
  });
});

describe('versions and names', () => {
  kit('two storage versions', async () => {
    const causes = await refused(
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - {name: v1beta1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`,
      'widgets.example.com',
    );
    // kube prints the versions as a Go struct dump with pointer addresses: only its frame is comparable.
    assert.equal(causes.length, 1, causes.join('\n'));
    assert.match(causes[0], /^spec\.versions: Invalid value: .+: must have exactly one version marked as storage version$/s);
  });

  kit('metadata.name that is not <plural>.<group>, and a bad group', async () => {
    const causes = await refused(crdYaml({ group: 'example.com', kind: 'Widget', name: 'gadgets.example.com', schema: 'type: object' }), 'gadgets.example.com');
    assert.deepEqual(causes, ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']);
    const group = await refused(crdYaml({ group: 'widgets', kind: 'Widget', schema: 'type: object' }), 'widgets.widgets');
    assert.deepEqual(group, ['spec.group: Invalid value: "widgets": should be a domain with at least one dot']);
  });

  kit('after all those refusals a good CRD is accepted and served', async () => {
    const s = server();
    await kubectlOk(s, ['create', '-f', '-'], { input: widgets('type: object\nproperties:\n  spec: {type: object, properties: {size: {type: integer}}}') });
    const out = await kubectlOk(s, ['create', '-f', '-'], { input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec: {size: 1}\n' });
    assert.equal(out.trim(), 'widget.example.com/w created');
  });
});
