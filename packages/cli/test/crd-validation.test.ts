/**
 * Custom resources checked against their CRD's schema, as kube-apiserver does
 * it: every validation keyword accepts a good value and refuses a bad one with
 * kube's message; all the problems of a request are reported together;
 * unknown fields are pruned (or refused, or warned about, per kubectl's
 * --validate); defaults are applied on create, on update and on read.
 *
 * kube reports the causes of one request in Go map order (random), so several
 * causes are compared as sets.
 */
import { before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, kubectlOk } from './harness.js';
import { applyYaml, kit, kubectlFails, serverForFile } from './kubectl-support.js';
import { crdYaml, fixturePath, invalidCauses } from './crd-support.js';

const server = serverForFile();

const gadgetSchema = `type: object
properties:
  spec:
    type: object
    properties:
      count: {type: integer}
      ratio: {type: number}
      enabled: {type: boolean}
      label: {type: string}
      small: {type: integer, format: int32}
      big: {type: integer, format: int64}
      when: {type: string, format: date-time}
      day: {type: string, format: date}
      color: {type: string, enum: [red, green, blue]}
      percent: {type: integer, minimum: 0, maximum: 100}
      open: {type: number, minimum: 0, maximum: 1, exclusiveMinimum: true, exclusiveMaximum: true}
      step: {type: integer, multipleOf: 5}
      code: {type: string, minLength: 3, maxLength: 5}
      dns: {type: string, pattern: '^[a-z]+(-[a-z]+)*$'}
      tags: {type: array, minItems: 1, maxItems: 3, items: {type: string}}
      labels: {type: object, minProperties: 1, maxProperties: 2, additionalProperties: {type: string}}
      limits: {type: object, additionalProperties: {type: integer}}
      owner:
        type: object
        required: [name]
        properties:
          name: {type: string}
          email: {type: string}
      note: {type: string, nullable: true}
      plain: {type: string}
      aliases: {type: array, items: {type: string}}
      maybe: {type: array, items: {type: string, nullable: true}}
      maxUnavailable:
        anyOf:
        - type: integer
        - type: string
        x-kubernetes-int-or-string: true
      port: {x-kubernetes-int-or-string: true}
      raw: {type: object, x-kubernetes-preserve-unknown-fields: true}
      template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
      roles: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name, protocol]
        items:
          type: object
          required: [name, protocol]
          properties:
            name: {type: string}
            protocol: {type: string}
            port: {type: integer}
      backends:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [host]
        items:
          type: object
          required: [host]
          properties:
            host: {type: string}
            weight: {type: integer}`;

const gadget = (spec: string, name = 'g', meta = ''): string =>
  `apiVersion: kitchen.example.com/v1\nkind: Gadget\nmetadata: {name: ${name}, namespace: default${meta}}\nspec: ${spec}\n`;

/** The object the server would store for a CR (create --dry-run=server). */
async function accepted(spec: string): Promise<Record<string, unknown>> {
  const r = await kubectl(server(), ['create', '--dry-run=server', '-o', 'json', '-f', '-'], { input: gadget(spec) });
  assert.equal(r.code, 0, `refused: ${r.stderr}`);
  return JSON.parse(r.stdout).spec;
}

/** The causes of the 422 for a CR, sorted. */
async function refused(yaml: string, kind = 'Gadget', name = 'g'): Promise<string[]> {
  const r = await kubectl(server(), ['create', '--dry-run=server', '-f', '-'], { input: yaml });
  assert.notEqual(r.code, 0, `accepted: ${r.stdout}`);
  return invalidCauses(r.stderr, kind, name).sort();
}

const refusedSpec = (spec: string): Promise<string[]> => refused(gadget(spec));

let kitchen: Promise<string> | undefined;
/** Installs the Gadget CRD once (the suites that use it call this in their `before`). */
function installGadgets(): Promise<string> | undefined {
  if (!hasKubectl) return undefined;
  kitchen ??= applyYaml(server(), crdYaml({ group: 'kitchen.example.com', kind: 'Gadget', schema: gadgetSchema }));
  return kitchen;
}

describe('each validation keyword: a good value passes, a bad one gets kube\'s message', () => {
  before(() => installGadgets());

  kit('type: integer, number, boolean, string', async () => {
    assert.deepEqual(await accepted('{count: 3, ratio: 0.25, enabled: true, label: x}'), { count: 3, ratio: 0.25, enabled: true, label: 'x' });
    // An integer is a number.
    assert.deepEqual(await accepted('{ratio: 2}'), { ratio: 2 });
    assert.deepEqual(await refusedSpec('{count: "three"}'), ['spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"']);
    assert.deepEqual(await refusedSpec('{count: 1.5}'), ['spec.count: Invalid value: "number": spec.count in body must be of type integer: "number"']);
    assert.deepEqual(await refusedSpec('{ratio: "x"}'), ['spec.ratio: Invalid value: "string": spec.ratio in body must be of type number: "string"']);
    assert.deepEqual(await refusedSpec('{enabled: "yes"}'), ['spec.enabled: Invalid value: "string": spec.enabled in body must be of type boolean: "string"']);
    assert.deepEqual(await refusedSpec('{label: 5}'), ['spec.label: Invalid value: "integer": spec.label in body must be of type string: "integer"']);
    assert.deepEqual(await refusedSpec('{label: [a]}'), ['spec.label: Invalid value: "array": spec.label in body must be of type string: "array"']);
  });

  kit('format int32 and int64 (kube does not range-check them: it drops formats it does not know)', async () => {
    assert.deepEqual(await accepted('{small: 42, big: 9007199254740991}'), { small: 42, big: 9007199254740991 });
    assert.deepEqual(await accepted('{small: 3000000000}'), { small: 3000000000 });
    assert.deepEqual(await refusedSpec('{small: 1.5}'), ['spec.small: Invalid value: "number": spec.small in body must be of type integer: "number"']);
    assert.deepEqual(await refusedSpec('{big: "1"}'), ['spec.big: Invalid value: "string": spec.big in body must be of type integer: "string"']);
  });

  kit('format date-time and date', async () => {
    assert.deepEqual(await accepted('{when: "2024-01-02T03:04:05Z", day: "2024-02-29"}'), { when: '2024-01-02T03:04:05Z', day: '2024-02-29' });
    assert.deepEqual(await refusedSpec('{when: yesterday}'), ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']);
    assert.deepEqual(await refusedSpec('{day: "2023-02-29"}'), ['spec.day: Invalid value: "2023-02-29": spec.day in body must be of type date: "2023-02-29"']);
  });

  kit('enum', async () => {
    assert.deepEqual(await accepted('{color: green}'), { color: 'green' });
    assert.deepEqual(await refusedSpec('{color: purple}'), ['spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"']);
  });

  kit('minimum and maximum, inclusive and exclusive', async () => {
    assert.deepEqual(await accepted('{percent: 0}'), { percent: 0 });
    assert.deepEqual(await accepted('{percent: 100, open: 0.5}'), { percent: 100, open: 0.5 });
    assert.deepEqual(await refusedSpec('{percent: 101}'), ['spec.percent: Invalid value: 101: spec.percent in body should be less than or equal to 100']);
    assert.deepEqual(await refusedSpec('{percent: -1}'), ['spec.percent: Invalid value: -1: spec.percent in body should be greater than or equal to 0']);
    assert.deepEqual(await refusedSpec('{open: 0}'), ['spec.open: Invalid value: 0: spec.open in body should be greater than 0']);
    assert.deepEqual(await refusedSpec('{open: 1}'), ['spec.open: Invalid value: 1: spec.open in body should be less than 1']);
  });

  kit('multipleOf', async () => {
    assert.deepEqual(await accepted('{step: 15}'), { step: 15 });
    assert.deepEqual(await refusedSpec('{step: 7}'), ['spec.step: Invalid value: 7: spec.step in body should be a multiple of 5']);
  });

  kit('minLength, maxLength and pattern', async () => {
    assert.deepEqual(await accepted('{code: abc, dns: my-name}'), { code: 'abc', dns: 'my-name' });
    assert.deepEqual(await accepted('{code: "héllo"}'), { code: 'héllo' });
    assert.deepEqual(await refusedSpec('{code: ab}'), ['spec.code: Invalid value: "ab": spec.code in body should be at least 3 chars long']);
    assert.deepEqual(await refusedSpec('{code: abcdef}'), ['spec.code: Too long: may not be more than 5 bytes']);
    assert.deepEqual(await refusedSpec('{dns: Not_DNS}'), ["spec.dns: Invalid value: \"Not_DNS\": spec.dns in body should match '^[a-z]+(-[a-z]+)*$'"]);
  });

  kit('minItems and maxItems', async () => {
    assert.deepEqual(await accepted('{tags: [a, b, c]}'), { tags: ['a', 'b', 'c'] });
    assert.deepEqual(await refusedSpec('{tags: []}'), ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items']);
    assert.deepEqual(await refusedSpec('{tags: [a, b, c, d]}'), ['spec.tags: Too many: 4: must have at most 3 items']);
  });

  kit('minProperties, maxProperties and additionalProperties (maps)', async () => {
    assert.deepEqual(await accepted('{labels: {a: one, b: two}, limits: {cpu: 2, memory: 4}}'), { labels: { a: 'one', b: 'two' }, limits: { cpu: 2, memory: 4 } });
    assert.deepEqual(await refusedSpec('{labels: {}}'), ['spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties']);
    assert.deepEqual(await refusedSpec('{labels: {a: one, b: two, c: three}}'), ['spec.labels: Too many: 3: must have at most 2 items']);
    assert.deepEqual(await refusedSpec('{limits: {cpu: lots}}'), ['spec.limits.cpu: Invalid value: "string": spec.limits.cpu in body must be of type integer: "string"']);
  });

  kit('required', async () => {
    assert.deepEqual(await accepted('{owner: {name: ann}}'), { owner: { name: 'ann' } });
    assert.deepEqual(await refusedSpec('{owner: {email: ann@example.com}}'), ['spec.owner.name: Required value']);
    // A null for a required field is dropped like any non-nullable null: still missing.
    assert.deepEqual(await refusedSpec('{owner: {name: null}}'), ['spec.owner.name: Required value']);
  });

  kit('nullable: null is kept where nullable, dropped from non-nullable fields, refused in non-nullable items', async () => {
    assert.deepEqual(await accepted('{note: null, plain: null, maybe: [a, null]}'), { note: null, maybe: ['a', null] });
    assert.deepEqual(await refusedSpec('{aliases: [a, null]}'), ['spec.aliases[1]: Invalid value: "null": spec.aliases[1] in body must be of type string: "null"']);
  });

  kit('x-kubernetes-int-or-string, in the anyOf form controller-gen writes and alone', async () => {
    assert.deepEqual(await accepted('{maxUnavailable: 1, port: http}'), { maxUnavailable: 1, port: 'http' });
    assert.deepEqual(await accepted('{maxUnavailable: "25%", port: 8080}'), { maxUnavailable: '25%', port: 8080 });
    assert.deepEqual(await refusedSpec('{port: true}'), ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"']);
    // With anyOf, kube adds the anyOf summary (at a nil field path) and the best branch's error.
    assert.deepEqual(await refusedSpec('{maxUnavailable: 1.5}'), [
      '<nil>: Invalid value: "": "spec.maxUnavailable" must validate at least one schema (anyOf)',
      'spec.maxUnavailable: Invalid value: "number": spec.maxUnavailable in body must be of type integer,string: "number"',
      'spec.maxUnavailable: Invalid value: "number": spec.maxUnavailable in body must be of type integer: "number"',
    ]);
  });

  kit('x-kubernetes-preserve-unknown-fields keeps what the schema does not declare', async () => {
    assert.deepEqual(await accepted('{raw: {any: {thing: [1, two, {three: 3}]}, also: true}}'), {
      raw: { any: { thing: [1, 'two', { three: 3 }] }, also: true },
    });
  });

  kit('x-kubernetes-embedded-resource: apiVersion and kind required, metadata validated', async () => {
    const template = '{apiVersion: v1, kind: ConfigMap, metadata: {name: conf, labels: {a: b}}, data: {k: v}}';
    assert.deepEqual(await accepted(`{template: ${template}}`), {
      template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conf', labels: { a: 'b' } }, data: { k: 'v' } },
    });
    assert.deepEqual(await refusedSpec('{template: {data: {k: v}}}'), ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value']);
    // An embedded name only has to be a path segment (kube's ValidatePathSegmentName), not a DNS name.
    assert.deepEqual(await accepted('{template: {apiVersion: v1, kind: ConfigMap, metadata: {name: Mixed_Case}}}'), {
      template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Mixed_Case' } },
    });
    assert.deepEqual(await refusedSpec('{template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "a/b", labels: {"bad key!": v}}}}'), [
      'spec.template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      'spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\'',
    ]);
    assert.deepEqual(await refusedSpec('{template: {apiVersion: "a/b/c", kind: "Config Map"}}'), [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      'spec.template.kind: Invalid value: "Config Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    ]);
  });

  kit('x-kubernetes-list-type set and map (with list-map-keys)', async () => {
    assert.deepEqual(await accepted('{roles: [a, b]}'), { roles: ['a', 'b'] });
    assert.deepEqual(await refusedSpec('{roles: [a, b, a, b, a]}'), ['spec.roles[2]: Duplicate value: "a"', 'spec.roles[3]: Duplicate value: "b"']);
    const ports = '[{name: http, protocol: TCP, port: 80}, {name: http, protocol: UDP, port: 80}]';
    assert.deepEqual(await accepted(`{ports: ${ports}}`), {
      ports: [
        { name: 'http', protocol: 'TCP', port: 80 },
        { name: 'http', protocol: 'UDP', port: 80 },
      ],
    });
    assert.deepEqual(await refusedSpec('{ports: [{name: http, protocol: TCP, port: 80}, {name: http, protocol: TCP, port: 81}]}'), [
      'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"http", "protocol":"TCP"}',
    ]);
    assert.deepEqual(await refusedSpec('{backends: [{host: a, weight: 1}, {host: a, weight: 2}]}'), [
      'spec.backends[1]: Duplicate value: map[string]interface {}{"host":"a"}',
    ]);
  });

  kit('ObjectMeta: names, labels and annotations', async () => {
    const s = server();
    const name = await refused(gadget('{}', 'Bad_Name'), 'Gadget', 'Bad_Name');
    assert.deepEqual(name, [
      'metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ]);
    const labels = await refused(gadget('{}', 'g', `, labels: {"bad key!": v, ok: ${'x'.repeat(64)}}`));
    assert.deepEqual(labels, [
      'metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      `metadata.labels: Invalid value: "${'x'.repeat(64)}": must be no more than 63 characters`,
    ]);
    const annotations = await refused(gadget('{}', 'g', ', annotations: {"-bad": v}'));
    assert.deepEqual(annotations, [
      'metadata.annotations: Invalid value: "-bad": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    ]);
    // generateName works for custom resources.
    const made = await kubectlOk(s, ['create', '-o', 'name', '-f', '-'], {
      input: 'apiVersion: kitchen.example.com/v1\nkind: Gadget\nmetadata: {generateName: gadget-, namespace: default}\nspec: {}\n',
    });
    assert.match(made.trim(), /^gadget\.kitchen\.example\.com\/gadget-[a-z0-9]{5}$/);
  });
});

describe('all the problems of a request in one response', () => {
  before(() => installGadgets());

  kit('the CronTab of the docs with a bad cronSpec and too many replicas', async () => {
    await kubectlOk(server(), ['apply', '-f', fixturePath('crontab-crd.yaml')]);
    const r = await kubectlFails(server(), ['apply', '-f', '-'], {
      input: 'apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: my-new-cron-object, namespace: default}\nspec: {cronSpec: "* * * *", image: my-awesome-cron-image, replicas: 15}\n',
    });
    assert.deepEqual(invalidCauses(r.stderr, 'CronTab', 'my-new-cron-object').sort(), [
      "spec.cronSpec: Invalid value: \"* * * *\": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'",
      'spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10',
    ]);
  });

  kit('eight problems across types, formats, bounds, lists and metadata are all listed', async () => {
    const causes = await refused(
      gadget('{count: x, when: now, color: pink, percent: 200, code: toolong, tags: [], roles: [a, a], owner: {}}', 'g', ', labels: {"a b": c}'),
    );
    assert.deepEqual(causes, [
      'metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      'spec.code: Too long: may not be more than 5 bytes',
      'spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"',
      'spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"',
      'spec.owner.name: Required value',
      'spec.percent: Invalid value: 200: spec.percent in body should be less than or equal to 100',
      'spec.roles[1]: Duplicate value: "a"',
      'spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items',
      'spec.when: Invalid value: "now": spec.when in body must be of type date-time: "now"',
    ]);
  });

  kit('the Status of a 422 carries kube\'s reason, code, details and causes', async () => {
    const body = JSON.stringify({ apiVersion: 'kitchen.example.com/v1', kind: 'Gadget', metadata: { name: 'raw' }, spec: { percent: 101, color: 'pink' } });
    const r = await kubectl(server(), ['create', '--raw', '/apis/kitchen.example.com/v1/namespaces/default/gadgets', '-f', '-', '-v=8'], { input: body });
    assert.notEqual(r.code, 0);
    const m = /Response Body" body="(.*)"\n/.exec(r.stderr) ?? /Response Body: (.*)\n/.exec(r.stderr);
    assert.ok(m, r.stderr);
    const status = JSON.parse(m[1].includes('\\"') ? JSON.parse(`"${m[1]}"`) : m[1]);
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 422);
    assert.equal(status.reason, 'Invalid');
    assert.deepEqual({ ...status.details, causes: undefined }, { name: 'raw', group: 'kitchen.example.com', kind: 'Gadget', causes: undefined });
    const causes = (status.details.causes as Array<{ reason: string; message: string; field: string }>).sort((a, b) => a.field.localeCompare(b.field));
    assert.deepEqual(causes, [
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "pink": supported values: "red", "green", "blue"', field: 'spec.color' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 101: spec.percent in body should be less than or equal to 100', field: 'spec.percent' },
    ]);
    assert.ok(
      [
        'Gadget.kitchen.example.com "raw" is invalid: [spec.percent: Invalid value: 101: spec.percent in body should be less than or equal to 100, spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"]',
        'Gadget.kitchen.example.com "raw" is invalid: [spec.color: Unsupported value: "pink": supported values: "red", "green", "blue", spec.percent: Invalid value: 101: spec.percent in body should be less than or equal to 100]',
      ].includes(status.message),
      status.message,
    );
    // Nothing was stored.
    assert.match((await kubectlFails(server(), ['get', 'gadget', 'raw'])).stderr, /NotFound/);
  });
});

describe('unknown fields: pruned, refused or warned about', () => {
  before(() => installGadgets());

  const withUnknown = (name: string): string =>
    gadget('{count: 1, x: 5, raw: {kept: {deep: 1}}, owner: {name: a, nickname: b}}', name, ', labels: {a: b}');

  kit('--validate=false and --validate=ignore drop unknown fields silently; preserve-unknown-fields keeps them', async () => {
    const s = server();
    for (const [flag, name] of [['--validate=false', 'p1'], ['--validate=ignore', 'p2']] as const) {
      const r = await kubectl(s, ['create', flag, '-f', '-'], { input: withUnknown(name) });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      const spec = JSON.parse(await kubectlOk(s, ['get', 'gadget', name, '-o', 'json'])).spec;
      assert.deepEqual(spec, { count: 1, raw: { kept: { deep: 1 } }, owner: { name: 'a' } });
    }
  });

  kit('fieldValidation=Ignore on a raw create', async () => {
    const body = JSON.stringify({ apiVersion: 'kitchen.example.com/v1', kind: 'Gadget', metadata: { name: 'p3', bogus: 1 }, spec: { count: 1, x: 5 } });
    const out = JSON.parse(await kubectlOk(server(), ['create', '--raw', '/apis/kitchen.example.com/v1/namespaces/default/gadgets?fieldValidation=Ignore', '-f', '-'], { input: body }));
    assert.deepEqual(out.spec, { count: 1 });
    assert.equal(out.metadata.bogus, undefined);
  });

  kit('--validate=strict: strict decoding error naming every unknown field', async () => {
    const r = await kubectlFails(server(), ['create', '--validate=strict', '-f', '-'], { input: withUnknown('p4') });
    assert.equal(
      r.stderr.trim(),
      'Error from server (BadRequest): error when creating "STDIN": Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.owner.nickname", unknown field "spec.x"',
    );
    const meta = await kubectlFails(server(), ['create', '--validate=strict', '-f', '-'], { input: gadget('{}', 'p4', ', bogus: 1') });
    assert.match(meta.stderr, /cannot be handled as a Gadget: strict decoding error: unknown field "metadata\.bogus"$/m);
    // kubectl apply validates strictly by default.
    const applied = await kubectlFails(server(), ['apply', '-f', '-'], { input: gadget('{x: 1}', 'p4') });
    assert.match(applied.stderr, /strict decoding error: unknown field "spec\.x"/);
  });

  kit('--validate=warn: kubectl prints the warning, the object is created without the fields', async () => {
    const s = server();
    const r = await kubectl(s, ['create', '--validate=warn', '-f', '-'], { input: withUnknown('p5') });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stderr.trim().split('\n').sort(), ['Warning: unknown field "spec.owner.nickname"', 'Warning: unknown field "spec.x"']);
    assert.deepEqual(JSON.parse(await kubectlOk(s, ['get', 'gadget', 'p5', '-o', 'json'])).spec, { count: 1, raw: { kept: { deep: 1 } }, owner: { name: 'a' } });
    // A merge patch without fieldValidation is Warn on the server.
    const patched = await kubectl(s, ['patch', 'gadget', 'p5', '--type=merge', '-p', '{"spec":{"y":1,"count":2}}']);
    assert.equal(patched.code, 0, patched.stderr);
    assert.equal(patched.stderr.trim(), 'Warning: unknown field "spec.y"');
  });
});

describe('defaulting', () => {
  const widgetSchema = (withColorDefault: boolean): string => `type: object
properties:
  spec:
    type: object
    default: {}
    properties:
      size: {type: string, default: medium}
      replicas: {type: integer, default: 1}
      ${withColorDefault ? 'color: {type: string, default: blue}' : 'color: {type: string}'}
      resources:
        type: object
        default: {}
        properties:
          cpu: {type: string, default: 100m}
      ports:
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            protocol: {type: string, default: TCP}`;

  before(async () => {
    if (!hasKubectl) return;
    await applyYaml(server(), crdYaml({ group: 'defaults.example.com', kind: 'Widget', schema: widgetSchema(false) }));
  });

  const widget = (name: string, spec?: string): string =>
    `apiVersion: defaults.example.com/v1\nkind: Widget\nmetadata: {name: ${name}, namespace: default}\n${spec === undefined ? '' : `spec: ${spec}\n`}`;
  const specOf = async (name: string): Promise<unknown> => JSON.parse(await kubectlOk(server(), ['get', 'widget', name, '-o', 'json'])).spec;

  kit('on create: missing fields, nested objects and list items get their defaults; a null gets the default', async () => {
    const s = server();
    await applyYaml(s, widget('bare'));
    assert.deepEqual(await specOf('bare'), { size: 'medium', replicas: 1, resources: { cpu: '100m' } });
    await applyYaml(s, widget('some', '{size: large, replicas: null, ports: [{name: http}, {name: dns, protocol: UDP}]}'));
    assert.deepEqual(await specOf('some'), {
      size: 'large',
      replicas: 1,
      resources: { cpu: '100m' },
      ports: [
        { name: 'http', protocol: 'TCP' },
        { name: 'dns', protocol: 'UDP' },
      ],
    });
  });

  kit('on update: a removed defaulted field comes back', async () => {
    const s = server();
    await kubectlOk(s, ['patch', 'widget', 'some', '--type=json', '-p', '[{"op":"remove","path":"/spec/size"},{"op":"replace","path":"/spec/replicas","value":3}]']);
    assert.deepEqual(await specOf('some'), {
      size: 'medium',
      replicas: 3,
      resources: { cpu: '100m' },
      ports: [
        { name: 'http', protocol: 'TCP' },
        { name: 'dns', protocol: 'UDP' },
      ],
    });
    await kubectlOk(s, ['replace', '-f', '-'], { input: widget('some', '{ports: [{name: x}]}') });
    assert.deepEqual(await specOf('some'), { size: 'medium', replicas: 1, resources: { cpu: '100m' }, ports: [{ name: 'x', protocol: 'TCP' }] });
  });

  kit('on read: a default added to the schema later shows on old objects at the next request', async () => {
    const s = server();
    assert.equal(((await specOf('bare')) as Record<string, unknown>).color, undefined);
    await applyYaml(s, crdYaml({ group: 'defaults.example.com', kind: 'Widget', schema: widgetSchema(true) }));
    assert.deepEqual(await specOf('bare'), { size: 'medium', replicas: 1, color: 'blue', resources: { cpu: '100m' } });
    // Lists and watches read through the same defaulting.
    const list = JSON.parse(await kubectlOk(s, ['get', 'widgets', '-o', 'json']));
    for (const item of list.items) assert.equal(item.spec.color, 'blue', item.metadata.name);
    // And a schema change takes effect on the next write: a size that is not a string is now refused.
    await applyYaml(s, crdYaml({ group: 'defaults.example.com', kind: 'Widget', schema: widgetSchema(true).replace('size: {type: string, default: medium}', 'size: {type: string, default: medium, enum: [small, medium, large]}') }));
    const r = await kubectlFails(s, ['apply', '-f', '-'], { input: widget('bare', '{size: huge}') });
    assert.deepEqual(invalidCauses(r.stderr, 'Widget', 'bare'), ['spec.size: Unsupported value: "huge": supported values: "small", "medium", "large"']);
  });
});

describe('a tightened schema ratchets: updates may keep values that were valid before', () => {
  const tee = (extra: string): string =>
    crdYaml({
      group: 'ratchet.example.com',
      kind: 'Tee',
      schema: `type: object
properties:
  spec:
    type: object
    properties:
      size: {type: string${extra ? ', enum: [S, M, L]' : ''}}
      color: {type: string${extra ? ', maxLength: 4' : ''}}`,
    });
  const teeObj = (name: string, spec: string): string => `apiVersion: ratchet.example.com/v1\nkind: Tee\nmetadata: {name: ${name}, namespace: default}\nspec: ${spec}\n`;

  before(async () => {
    if (!hasKubectl) return;
    const s = server();
    await applyYaml(s, tee(''));
    await applyYaml(s, teeObj('t1', '{size: huge, color: crimson}'));
    await applyYaml(s, tee('tightened'));
  });

  kit('metadata changes and changes elsewhere pass; a changed invalid value is reported, alone', async () => {
    const s = server();
    assert.equal((await kubectlOk(s, ['label', 'tee', 't1', 'fit=loose'])).trim(), 'tee.ratchet.example.com/t1 labeled');
    assert.equal((await kubectlOk(s, ['patch', 'tee', 't1', '--type=merge', '-p', '{"spec":{"color":"red"}}'])).trim(), 'tee.ratchet.example.com/t1 patched');
    const r = await kubectlFails(s, ['patch', 'tee', 't1', '--type=merge', '-p', '{"spec":{"size":"huger","color":"crimson"}}']);
    assert.deepEqual(invalidCauses(r.stderr, 'Tee', 't1').sort(), [
      'spec.color: Too long: may not be more than 4 bytes',
      'spec.size: Unsupported value: "huger": supported values: "S", "M", "L"',
    ]);
    // A new object gets no such leniency.
    const created = await kubectlFails(s, ['create', '-f', '-'], { input: teeObj('t2', '{size: huge, color: red}') });
    assert.deepEqual(invalidCauses(created.stderr, 'Tee', 't2'), ['spec.size: Unsupported value: "huge": supported values: "S", "M", "L"']);
  });
});

describe('bad input: a clear 4xx, nothing stored, the server stays up', () => {
  before(() => installGadgets());

  kit('a CR over the 3 MiB request limit gets 413', async () => {
    const s = server();
    const body = JSON.stringify({ apiVersion: 'kitchen.example.com/v1', kind: 'Gadget', metadata: { name: 'huge', namespace: 'default' }, spec: { raw: { data: 'x'.repeat(3 * 1024 * 1024) } } });
    const r = await kubectlFails(s, ['create', '-f', '-'], { input: body });
    assert.equal(r.stderr.trim(), 'Error from server (RequestEntityTooLarge): error when creating "STDIN": Request entity too large: limit is 3145728');
    assert.match((await kubectlFails(s, ['get', 'gadget', 'huge'])).stderr, /NotFound/);
  });

  kit('JSON nested deeper than kube decodes gets 400; a deep but acceptable object is stored', async () => {
    const s = server();
    const nest = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const head = '{"apiVersion":"kitchen.example.com/v1","kind":"Gadget","metadata":{"name":"NAME","namespace":"default"},"spec":{"raw":';
    const tooDeep = await kubectlFails(s, ['create', '--raw', '/apis/kitchen.example.com/v1/namespaces/default/gadgets', '-f', '-'], {
      input: head.replace('NAME', 'deeper') + nest(20000) + '}}',
    });
    assert.match(tooDeep.stderr, /^Error from server \(BadRequest\): the object provided is unrecognized \(must be of type Gadget\): couldn't get version\/kind; json parse error: .*exceeded max depth/m);
    const ok = await kubectlOk(s, ['create', '--raw', '/apis/kitchen.example.com/v1/namespaces/default/gadgets', '-f', '-'], { input: head.replace('NAME', 'deep') + nest(100) + '}}' });
    assert.equal(JSON.parse(ok).metadata.name, 'deep');
    assert.equal((await kubectlOk(s, ['get', 'gadget', 'deep', '-o', 'name'])).trim(), 'gadget.kitchen.example.com/deep');
  });
});
