/**
 * client-go's own jsonpath test cases (jsonpath_test.go, parser_test.go),
 * rewritten for JSON data, plus the printing rules kubectl relies on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  executeJsonPath,
  formatJsonPath,
  formatJsonPathResults,
  JsonPathError,
  parseJsonPath,
  type JsonPathNode,
} from './index.js';

interface Case {
  name: string;
  template: string;
  input: unknown;
  expect: string;
}

function run(cases: Case[], allowMissingKeys: boolean): void {
  for (const c of cases) {
    it(`${c.name}: ${c.template}`, () => {
      assert.equal(formatJsonPath(parseJsonPath(c.template), c.input, { allowMissingKeys }), c.expect);
    });
  }
}

function fails(name: string, template: string, input: unknown, message: string, allowMissingKeys = false): void {
  it(`${name}: ${template}`, () => {
    assert.throws(
      () => formatJsonPath(parseJsonPath(template), input, { allowMissingKeys }),
      (err: unknown) => err instanceof JsonPathError && err.message === message,
    );
  });
}

function failsSomehow(name: string, template: string, input: unknown): void {
  it(`${name}: ${template}`, () => {
    assert.throws(() => formatJsonPath(parseJsonPath(template), input), JsonPathError);
  });
}

const types = {
  bools: [true, false, true, false],
  integers: [1, 2, 3, 4],
  floats: [1.0, 2.2, 3.3, 4.0],
  strings: ['one', 'two', 'three', 'four'],
  interfaces: [true, 'one', 1, 1.1],
  maps: [
    { name: 'one', value: 1 },
    { name: 'two', value: 2.02 },
    { name: 'three', value: 3.03 },
    { name: 'four', value: 4.04 },
  ],
};

describe('jsonpath: slices of every type (TestTypesInput)', () => {
  run(
    [
      { name: 'boolSlice', template: '{ .bools }', input: types, expect: '[true,false,true,false]' },
      { name: 'boolSliceIndex', template: '{ .bools[0] }', input: types, expect: 'true' },
      { name: 'boolSliceIndex', template: '{ .bools[-1] }', input: types, expect: 'false' },
      { name: 'boolSubSlice', template: '{ .bools[0:2] }', input: types, expect: 'true false' },
      { name: 'boolSubSliceFirst2', template: '{ .bools[:2] }', input: types, expect: 'true false' },
      { name: 'boolSubSliceStep2', template: '{ .bools[:4:2] }', input: types, expect: 'true true' },
      { name: 'integerSlice', template: '{ .integers }', input: types, expect: '[1,2,3,4]' },
      { name: 'integerSliceIndexReverse', template: '{ .integers[-2] }', input: types, expect: '3' },
      { name: 'integerSubSliceStep2', template: '{ .integers[:4:2] }', input: types, expect: '1 3' },
      { name: 'floatSlice', template: '{ .floats }', input: types, expect: '[1,2.2,3.3,4]' },
      { name: 'floatSliceIndexReverse', template: '{ .floats[-2] }', input: types, expect: '3.3' },
      { name: 'floatSubSliceFirst2', template: '{ .floats[0:2] }', input: types, expect: '1 2.2' },
      { name: 'stringSlice', template: '{ .strings }', input: types, expect: '["one","two","three","four"]' },
      { name: 'stringSubSliceStep2', template: '{ .strings[:4:2] }', input: types, expect: 'one three' },
      { name: 'interfaceSlice', template: '{ .interfaces }', input: types, expect: '[true,"one",1,1.1]' },
      { name: 'interfaceSubSliceFirst2', template: '{ .interfaces[0:2] }', input: types, expect: 'true one' },
      { name: 'interfaceSubSliceStep2', template: '{ .interfaces[:4:2] }', input: types, expect: 'true 1' },
      {
        name: 'mapSlice',
        template: '{ .maps }',
        input: types,
        expect: '[{"name":"one","value":1},{"name":"two","value":2.02},{"name":"three","value":3.03},{"name":"four","value":4.04}]',
      },
      { name: 'mapSliceIndex', template: '{ .maps[0] }', input: types, expect: '{"name":"one","value":1}' },
      { name: 'mapSliceIndexReverse', template: '{ .maps[-2] }', input: types, expect: '{"name":"three","value":3.03}' },
      {
        name: 'mapSubSliceStepOdd',
        template: '{ .maps[::2] }',
        input: types,
        expect: '{"name":"one","value":1} {"name":"three","value":3.03}',
      },
      {
        name: 'mapSubSliceStepEven',
        template: '{ .maps[1::2] }',
        input: types,
        expect: '{"name":"two","value":2.02} {"name":"four","value":4.04}',
      },
    ],
    false,
  );
});

const store = {
  Name: 'jsonpath',
  Book: [
    { Category: 'reference', Author: 'Nigel Rees', Title: 'Sayings of the Centurey', Price: 8.95 },
    { Category: 'fiction', Author: 'Evelyn Waugh', Title: 'Sword of Honour', Price: 12.99 },
    { Category: 'fiction', Author: 'Herman Melville', Title: 'Moby Dick', Price: 8.99 },
  ],
  Bicycle: [
    { Color: 'red', Price: 19.95, IsNew: true },
    { Color: 'green', Price: 20.01, IsNew: false },
  ],
  Labels: { engieer: 10, 'web/html': 15, 'k8s-app': 20 },
  Employees: { jason: 'manager', dan: 'clerk' },
};

describe('jsonpath: the bookstore (TestStructInput)', () => {
  run(
    [
      { name: 'plain', template: 'hello jsonpath', input: null, expect: 'hello jsonpath' },
      { name: 'recursive', template: '{..}', input: [1, 2, 3], expect: '[1,2,3]' },
      { name: 'filter', template: '{[?(@<5)]}', input: [2, 6, 3, 7], expect: '2 3' },
      { name: 'quote', template: '{"{"}', input: null, expect: '{' },
      { name: 'union', template: '{[1,3,4]}', input: [0, 1, 2, 3, 4], expect: '1 3 4' },
      { name: 'array', template: '{[0:2]}', input: ['Monday', 'Tudesday'], expect: 'Monday Tudesday' },
      { name: 'variable', template: 'hello {.Name}', input: store, expect: 'hello jsonpath' },
      { name: 'dict/', template: '{$.Labels.web/html}', input: store, expect: '15' },
      { name: 'dict/', template: '{$.Employees.jason}', input: store, expect: 'manager' },
      { name: 'dict-', template: '{.Labels.k8s-app}', input: store, expect: '20' },
      { name: 'nest', template: '{.Bicycle[*].Color}', input: store, expect: 'red green' },
      { name: 'allarray', template: '{.Book[*].Author}', input: store, expect: 'Nigel Rees Evelyn Waugh Herman Melville' },
      {
        name: 'allfields',
        template: '{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}',
        input: store,
        expect: '{red 19.95 true} {green 20.01 false} ',
      },
      { name: 'recurfields', template: '{..Price}', input: store, expect: '8.95 12.99 8.99 19.95 20.01' },
      { name: 'recurdotfields', template: '{...Price}', input: store, expect: '8.95 12.99 8.99 19.95 20.01' },
      {
        name: 'allstructsSlice',
        template: '{.Bicycle}',
        input: store,
        expect: '[{"Color":"red","IsNew":true,"Price":19.95},{"Color":"green","IsNew":false,"Price":20.01}]',
      },
      {
        name: 'allstructs',
        template: '{range .Bicycle[*]}{ @ }{ " " }{end}',
        input: store,
        expect: '{"Color":"red","IsNew":true,"Price":19.95} {"Color":"green","IsNew":false,"Price":20.01} ',
      },
      {
        name: 'lastarray',
        template: '{.Book[-1:]}',
        input: store,
        expect: '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}',
      },
      {
        name: 'recurarray',
        template: '{..Book[2]}',
        input: store,
        expect: '{"Author":"Herman Melville","Category":"fiction","Price":8.99,"Title":"Moby Dick"}',
      },
      { name: 'bool', template: '{.Bicycle[?(@.IsNew==true)]}', input: store, expect: '{"Color":"red","IsNew":true,"Price":19.95}' },
    ],
    false,
  );
  run(
    [
      { name: 'nonexistent field', template: '{.hello}', input: store, expect: '' },
      { name: 'nonexistent field 2', template: 'before-{.hello}after', input: store, expect: 'before-after' },
    ],
    true,
  );
  fails('invalid identifier', '{hello}', store, 'unrecognized identifier hello');
  fails('nonexistent field', '{.hello}', store, 'hello is not found');
  fails('invalid array', '{.Labels[0]}', store, 'map[string]interface {} is not array or slice');
  fails('invalid filter operator', '{.Book[?(@.Price<>10)]}', store, 'unrecognized filter operator <>');
  fails('redundant end', '{range .Labels.*}{@}{end}{end}', store, 'not in range, nothing to end');
  it('rejects too many recursive descents at parse time', () => {
    assert.throws(() => parseJsonPath('{............................................................Price}'), {
      message: 'invalid multiple recursive descent',
    });
  });
});

describe('jsonpath: JSON input (TestJSONInput)', () => {
  const points = [
    { id: 'i1', x: 4, y: -5 },
    { id: 'i2', x: -2, y: -5, z: 1 },
    { id: 'i3', x: 8, y: 3 },
    { id: 'i4', x: -6, y: -1 },
    { id: 'i5', x: 0, y: 2, z: 1 },
    { id: 'i6', x: 1, y: 4 },
  ];
  run(
    [
      { name: 'exists filter', template: '{[?(@.z)].id}', input: points, expect: 'i2 i5' },
      { name: 'bracket key', template: "{[0]['id']}", input: points, expect: 'i1' },
    ],
    false,
  );
});

const nodes = {
  kind: 'List',
  items: [
    {
      kind: 'None',
      metadata: { name: '127.0.0.1', labels: { 'kubernetes.io/hostname': '127.0.0.1' } },
      status: { capacity: { cpu: '4' }, ready: true, addresses: [{ type: 'LegacyHostIP', address: '127.0.0.1' }] },
    },
    {
      kind: 'None',
      metadata: { name: '127.0.0.2', labels: { 'kubernetes.io/hostname': '127.0.0.2' } },
      status: {
        capacity: { cpu: '8' },
        ready: false,
        addresses: [
          { type: 'LegacyHostIP', address: '127.0.0.2' },
          { type: 'another', address: '127.0.0.3' },
        ],
      },
    },
  ],
  users: [
    { name: 'myself', user: {} },
    { name: 'e2e', user: { username: 'admin', password: 'secret' } },
  ],
};

describe('jsonpath: Kubernetes use cases (TestKubernetes)', () => {
  run(
    [
      { name: 'range item', template: '{range .items[*]}{.metadata.name}, {end}{.kind}', input: nodes, expect: '127.0.0.1, 127.0.0.2, List' },
      { name: 'range item with quote', template: '{range .items[*]}{.metadata.name}{"\\t"}{end}', input: nodes, expect: '127.0.0.1\t127.0.0.2\t' },
      { name: 'range addresss', template: '{.items[*].status.addresses[*].address}', input: nodes, expect: '127.0.0.1 127.0.0.2 127.0.0.3' },
      {
        name: 'double range',
        template: '{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}',
        input: nodes,
        expect: '127.0.0.1, 127.0.0.2, 127.0.0.3, ',
      },
      { name: 'item name', template: '{.items[*].metadata.name}', input: nodes, expect: '127.0.0.1 127.0.0.2' },
      {
        name: 'union nodes capacity',
        template: "{.items[*]['metadata.name', 'status.capacity']}",
        input: nodes,
        expect: '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}',
      },
      {
        name: 'range nodes capacity',
        template: '{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}',
        input: nodes,
        expect: '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
      },
      { name: 'user password', template: '{.users[?(@.name=="e2e")].user.password}', input: nodes, expect: 'secret' },
      { name: 'hostname', template: '{.items[0].metadata.labels.kubernetes\\.io/hostname}', input: nodes, expect: '127.0.0.1' },
      {
        name: 'hostname filter',
        template: '{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}',
        input: nodes,
        expect: 'None',
      },
      { name: 'bool item', template: '{.items[?(@..ready==true)].metadata.name}', input: nodes, expect: '127.0.0.1' },
    ],
    false,
  );
  it('recursive name (any order in kube, document order here)', () => {
    const out = formatJsonPath(parseJsonPath('{..name}'), nodes);
    assert.deepEqual(out.split(' ').sort(), ['127.0.0.1', '127.0.0.2', 'e2e', 'myself']);
  });
});

describe('jsonpath: ranges (TestEmptyRange, TestNestedRanges)', () => {
  run(
    [
      { name: 'empty range', template: '{range .items[*]}{.metadata.name}{end}', input: { items: [] }, expect: '' },
      {
        name: 'empty nested range',
        template: '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}',
        input: { items: [] },
        expect: '',
      },
    ],
    true,
  );
  const pods = {
    items: [
      {
        metadata: { name: 'pod1' },
        spec: {
          containers: [
            { name: 'foo', another: [{ name: 'value1' }, { name: 'value2' }] },
            { name: 'bar', another: [{ name: 'value1' }, { name: 'value2' }] },
          ],
        },
      },
      { metadata: { name: 'pod2' }, spec: { containers: [{ name: 'baz', another: [{ name: 'value1' }, { name: 'value2' }] }] } },
    ],
  };
  run(
    [
      {
        name: 'nested range with a trailing newline',
        template: '{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}',
        input: pods,
        expect: 'pod1:foo,bar,+pod2:baz,+',
      },
      {
        name: 'nested range within a nested range',
        template:
          '{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}',
        input: pods,
        expect: 'pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#',
      },
      {
        name: 'two nested ranges at the same level',
        template:
          '{range .items[*]}{.metadata.name}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\\n"}{end}',
        input: pods,
        expect: 'pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n',
      },
    ],
    false,
  );
  run(
    [
      {
        name: 'range over pods without selecting the last one',
        template: '{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\\n"}{end}',
        input: {
          kind: 'List',
          items: [
            { kind: 'Pod', metadata: { name: 'pod1' }, status: { phase: 'Running' } },
            { kind: 'Pod', metadata: { name: 'pod2' }, status: { phase: 'Running' } },
            { kind: 'Pod', metadata: { name: 'pod3' }, status: { phase: 'Running' } },
            { resourceVersion: '', selfLink: '' },
          ],
        },
        expect: 'pod1 is Running\npod2 is Running\npod3 is Running\n',
      },
    ],
    true,
  );
});

describe('jsonpath: filters on partly missing keys (issue 45546)', () => {
  const data = {
    kind: 'List',
    items: [
      { kind: 'Pod', metadata: { name: 'pod1', annotations: { color: 'blue' } } },
      { kind: 'Pod', metadata: { name: 'pod2' } },
      { kind: 'Pod', metadata: { name: 'pod3', annotations: { color: 'green' } } },
      { kind: 'Pod', metadata: { name: 'pod4', annotations: { color: 'blue' } } },
    ],
  };
  run(
    [{ name: 'tolerate missing', template: '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}', input: data, expect: 'pod1 pod4' }],
    true,
  );
  fails('error on missing', '{.items[?(@.metadata.annotations.color=="blue")].metadata.name}', data, 'annotations is not found');
});

const fakeContainers = (n: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  spec: { containers: Array.from({ length: n }, (_, i) => ({ image: 'radial/busyboxplus:curl', name: `fake${i}` })) },
});

describe('jsonpath: negative indexes and steps (TestNegativeIndex, TestStep)', () => {
  const four = fakeContainers(4);
  run(
    [
      { name: '[0]', template: '{.spec.containers[0].name}', input: four, expect: 'fake0' },
      { name: '[0:0] is empty', template: '{.spec.containers[0:0].name}', input: four, expect: '' },
      { name: '[0:-1]', template: '{.spec.containers[0:-1].name}', input: four, expect: 'fake0 fake1 fake2' },
      { name: '[-1]', template: '{.spec.containers[-1].name}', input: four, expect: 'fake3' },
      { name: '[-1:]', template: '{.spec.containers[-1:].name}', input: four, expect: 'fake3' },
      { name: '[-2]', template: '{.spec.containers[-2].name}', input: four, expect: 'fake2' },
      { name: '[-2:]', template: '{.spec.containers[-2:].name}', input: four, expect: 'fake2 fake3' },
      { name: '[-3]', template: '{.spec.containers[-3].name}', input: four, expect: 'fake1' },
      { name: '[-4]', template: '{.spec.containers[-4].name}', input: four, expect: 'fake0' },
      { name: '[-4:]', template: '{.spec.containers[-4:].name}', input: four, expect: 'fake0 fake1 fake2 fake3' },
      { name: '[5:5] is empty', template: '{.spec.containers[5:5].name}', input: four, expect: '' },
      { name: '[-5:-5] is empty', template: '{.spec.containers[-5:-5].name}', input: four, expect: '' },
    ],
    false,
  );
  failsSomehow('[-1:0]', '{.spec.containers[-1:0].name}', four);
  fails('[-5] out of bounds', '{.spec.containers[-5].name}', four, 'array index out of bounds: index -1, length 4');
  fails('[3:1]', '{.spec.containers[3:1].name}', four, 'starting index 3 is greater than ending index 1');
  fails('[-1:-2]', '{.spec.containers[-1:-2].name}', four, 'starting index 3 is greater than ending index 2');
  fails('[4] out of bounds', '{.spec.containers[4].name}', four, 'array index out of bounds: index 4, length 4');
  fails('[0] of an empty list', '{.items[0].metadata.name}', { items: [] }, 'array index out of bounds: index 0, length 0', true);

  const six = fakeContainers(6);
  run(
    [
      { name: '[0:]', template: '{.spec.containers[0:].name}', input: six, expect: 'fake0 fake1 fake2 fake3 fake4 fake5' },
      { name: '[0:6:]', template: '{.spec.containers[0:6:].name}', input: six, expect: 'fake0 fake1 fake2 fake3 fake4 fake5' },
      { name: '[0:6:1]', template: '{.spec.containers[0:6:1].name}', input: six, expect: 'fake0 fake1 fake2 fake3 fake4 fake5' },
      { name: '[1:4:2]', template: '{.spec.containers[1:4:2].name}', input: six, expect: 'fake1 fake3' },
      { name: '[1:4:3]', template: '{.spec.containers[1:4:3].name}', input: six, expect: 'fake1' },
      { name: '[1:4:4]', template: '{.spec.containers[1:4:4].name}', input: six, expect: 'fake1' },
      { name: '[0:6:2]', template: '{.spec.containers[0:6:2].name}', input: six, expect: 'fake0 fake2 fake4' },
      { name: '[0:6:3]', template: '{.spec.containers[0:6:3].name}', input: six, expect: 'fake0 fake3' },
      { name: '[0:6:5]', template: '{.spec.containers[0:6:5].name}', input: six, expect: 'fake0 fake5' },
      { name: '[0:6:6]', template: '{.spec.containers[0:6:6].name}', input: six, expect: 'fake0' },
    ],
    false,
  );
  fails('[0:6:0]', '{.spec.containers[0:6:0].name}', six, 'step must be > 0');
  fails('[0:6:-1]', '{.spec.containers[0:6:-1].name}', six, 'step must be > 0');
});

describe('jsonpath: filters and comparisons', () => {
  const pod = {
    status: {
      conditions: [
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'False' },
        { type: 'PodScheduled', status: 'True' },
      ],
      containerStatuses: [
        { name: 'a', restartCount: 0 },
        { name: 'b', restartCount: 3 },
        { name: 'c', restartCount: 7 },
      ],
    },
  };
  run(
    [
      { name: '==', template: '{.status.conditions[?(@.status=="True")].type}', input: pod, expect: 'Initialized PodScheduled' },
      { name: "== 'single'", template: "{.status.conditions[?(@.type=='Ready')].status}", input: pod, expect: 'False' },
      { name: '!=', template: '{.status.conditions[?(@.status!="True")].type}', input: pod, expect: 'Ready' },
      { name: '<', template: '{.status.containerStatuses[?(@.restartCount<3)].name}', input: pod, expect: 'a' },
      { name: '<=', template: '{.status.containerStatuses[?(@.restartCount<=3)].name}', input: pod, expect: 'a b' },
      { name: '>', template: '{.status.containerStatuses[?(@.restartCount>3)].name}', input: pod, expect: 'c' },
      { name: '>=', template: '{.status.containerStatuses[?(@.restartCount >= 3)].name}', input: pod, expect: 'b c' },
      { name: 'strings order', template: '{.status.conditions[?(@.type<"P")].type}', input: pod, expect: 'Initialized' },
      { name: 'wildcard index', template: '{.status.conditions[*].type}', input: pod, expect: 'Initialized Ready PodScheduled' },
      { name: 'union of indexes', template: '{.status.conditions[0,2].type}', input: pod, expect: 'Initialized PodScheduled' },
      { name: 'slice', template: '{.status.conditions[1:3].type}', input: pod, expect: 'Ready PodScheduled' },
    ],
    false,
  );
  fails('int against float literal', '{.status.containerStatuses[?(@.restartCount<3.5)].name}', pod, 'incompatible types for comparison');
  fails('bools cannot be ordered', '{[?(@<true)]}', [true], 'invalid type for comparison');
  fails('maps cannot be compared', '{[?(@=="x")]}', [{ a: 1 }], 'invalid type for comparison');
  fails('filter of a non-list', '{.status[?(@.a)]}', pod, 'map[conditions:[map[status:True type:Initialized] map[status:False type:Ready] map[status:True type:PodScheduled]] containerStatuses:[map[name:a restartCount:0] map[name:b restartCount:3] map[name:c restartCount:7]]] is not array or slice and cannot be filtered');
  fails('filter of null', '{.subjects[?(@.kind=="Group")]}', { subjects: null }, '<nil> is not array or slice and cannot be filtered');
  fails('more than one to compare', '{[?(@.*=="x")]}', [{ a: 'x', b: 'y' }], 'can only compare one element at a time');
  it('parenthesis and quotes inside filter strings', () => {
    const data = [{ osImage: '()' }, { osImage: '{[()]}' }, { osImage: 'x' }];
    assert.equal(formatJsonPath(parseJsonPath('{[?(@.osImage == "()")].osImage}'), data), '()');
    assert.equal(formatJsonPath(parseJsonPath('{[?(@.osImage == "{[()]}")].osImage}'), data), '{[()]}');
  });
});

describe('jsonpath: bracket keys, escapes and literals', () => {
  const obj = {
    metadata: {
      name: 'web',
      labels: { 'app.kubernetes.io/name': 'web', tier: 'front' },
      annotations: { 'key.with.dots': 'dotted' },
    },
    key: { with: { dots: 'nested' } },
  };
  run(
    [
      { name: 'escaped dots', template: '{.metadata.labels.app\\.kubernetes\\.io/name}', input: obj, expect: 'web' },
      { name: 'escaped dots in brackets', template: "{.metadata.labels['app\\.kubernetes\\.io/name']}", input: obj, expect: 'web' },
      { name: "brackets split on dots, as in kube", template: "{['key.with.dots']}", input: obj, expect: 'nested' },
      { name: 'escaped dots in brackets (annotation)', template: "{.metadata.annotations['key\\.with\\.dots']}", input: obj, expect: 'dotted' },
      { name: 'string literals', template: '{.metadata.name}{"\\n"}{"tab\\there"}', input: obj, expect: 'web\ntab\there' },
      { name: 'single-quoted literal', template: "{'a b'}", input: obj, expect: 'a b' },
      { name: 'root @ and $', template: '{$.metadata.name} {@.metadata.name}', input: obj, expect: 'web web' },
      { name: 'map printed as JSON with sorted keys', template: '{.metadata.labels}', input: obj, expect: '{"app.kubernetes.io/name":"web","tier":"front"}' },
      { name: 'whole object', template: '{@}', input: { b: 1, a: [1, 'x<y&z'] }, expect: '{"a":[1,"x\\u003cy\\u0026z"],"b":1}' },
      { name: 'null', template: '{.a}', input: { a: null }, expect: 'null' },
      { name: 'null inside a list', template: '{.a}', input: { a: [null, 1] }, expect: '[null,1]' },
      { name: 'wildcard field', template: '{.metadata.labels.*}', input: obj, expect: 'web front' },
      { name: 'large float', template: '{.f} {.g} {.h} {.i}', input: { f: 1234567.5, g: 0.00001, h: 123456.5, i: 1e21 }, expect: '1.2345675e+06 1e-05 123456.5 1e+21' },
      { name: 'large int', template: '{.n}', input: { n: 10000000000 }, expect: '10000000000' },
      { name: 'number literal', template: '{1.5} {-2}', input: {}, expect: '1.5 -2' },
    ],
    false,
  );
});

describe('jsonpath: parser (TestParser, TestFailParser)', () => {
  const shape = (n: JsonPathNode): unknown => {
    switch (n.type) {
      case 'list':
        return n.nodes.map(shape);
      case 'union':
        return { union: n.nodes.map(shape) };
      case 'filter':
        return { filter: n.operator, left: shape(n.left), right: shape(n.right) };
      case 'array':
        return { array: n.params.map((p) => [p.value, p.known, p.derived]) };
      case 'text':
        return { text: n.text };
      case 'field':
        return { field: n.name };
      case 'identifier':
        return { id: n.name };
      case 'int':
      case 'float':
      case 'bool':
        return { [n.type]: n.value };
      default:
        return n.type;
    }
  };
  const parsed = (t: string) => shape(parseJsonPath(t).root);

  it('parses text and fields', () => {
    assert.deepEqual(parsed('hello jsonpath'), [{ text: 'hello jsonpath' }]);
    assert.deepEqual(parsed('hello {.jsonpath}'), [{ text: 'hello ' }, [{ field: 'jsonpath' }]]);
    assert.deepEqual(parsed("hello {['jsonpath']}"), [{ text: 'hello ' }, [{ field: 'jsonpath' }]]);
    assert.deepEqual(parsed('{"{"}'), [[{ text: '{' }]]);
  });
  it('parses arrays, wildcards, recursion, dict keys', () => {
    assert.deepEqual(parsed('{[1:3]}'), [[{ array: [[1, true, false], [3, true, false], [0, false, false]] }]]);
    assert.deepEqual(parsed('{.book[*].author}'), [
      [{ field: 'book' }, { array: [[0, false, false], [0, false, false], [0, false, false]] }, { field: 'author' }],
    ]);
    assert.deepEqual(parsed('{.bicycle.*}'), [[{ field: 'bicycle' }, 'wildcard']]);
    assert.deepEqual(parsed('{..}'), [['recursive']]);
    assert.deepEqual(parsed('{..price}'), [['recursive', { field: 'price' }]]);
    assert.deepEqual(parsed("{['book.price']}"), [[{ field: 'book' }, { field: 'price' }]]);
    assert.deepEqual(parsed('{[-5:]}'), [[{ array: [[-5, true, false], [0, false, false], [0, false, false]] }]]);
    assert.deepEqual(parsed('{[-1]}'), [[{ array: [[-1, true, false], [0, true, true], [0, false, false]] }]]);
    assert.deepEqual(parsed('{[1:-1]}'), [[{ array: [[1, true, false], [-1, true, false], [0, false, false]] }]]);
  });
  it('parses filters, unions and ranges', () => {
    assert.deepEqual(parsed('{[?(@.price<3)]}'), [[{ filter: '<', left: [{ field: 'price' }], right: [{ int: 3 }] }]]);
    assert.deepEqual(parsed("{['bicycle.price', 3, 'book.price']}"), [
      [
        {
          union: [
            [{ field: 'bicycle' }, { field: 'price' }],
            [{ array: [[3, true, false], [4, true, true], [0, false, false]] }],
            [{ field: 'book' }, { field: 'price' }],
          ],
        },
      ],
    ]);
    assert.deepEqual(parsed('{range .items}{.name},{end}'), [
      [{ id: 'range' }, { field: 'items' }],
      [{ field: 'name' }],
      { text: ',' },
      [{ id: 'end' }],
    ]);
    assert.deepEqual(parsed('{[?(@.status.nodeInfo.osImage == "(\\"\\")")]}'), [
      [{ filter: '==', left: [{ field: 'status' }, { field: 'nodeInfo' }, { field: 'osImage' }], right: [{ text: '("")' }] }],
    ]);
    assert.deepEqual(parsed('{[?(@.test == "())(")]}'), [[{ filter: '==', left: [{ field: 'test' }], right: [{ text: '())(' }] }]]);
    assert.deepEqual(parsed(`{[?(@.x == '\\\\\\'')]}`), [[{ filter: '==', left: [{ field: 'x' }], right: [{ text: "\\'" }] }]]);
    assert.deepEqual(parsed(`{[?(@.x == "''")]}`), [[{ filter: '==', left: [{ field: 'x' }], right: [{ text: "''" }] }]]);
    assert.deepEqual(parsed('{[?(@.x)]}'), [[{ filter: 'exists', left: [{ field: 'x' }], right: [] }]]);
    assert.deepEqual(parsed('{[?(@.ok==true)]}'), [[{ filter: '==', left: [{ field: 'ok' }], right: [{ bool: true }] }]]);
  });
  const failures: Array<[string, string, string]> = [
    ['unclosed action', '{.hello', 'unclosed action'],
    ['unrecognized character', '{*}', "unrecognized character in action: U+002A '*'"],
    ['invalid number', '{+12.3.0}', 'cannot parse number +12.3.0'],
    ['unterminated array', '{[1}', 'unterminated array'],
    ['unterminated filter', '{[?(.price]}', 'unterminated filter'],
    ['invalid multiple recursive descent', '{........}', 'invalid multiple recursive descent'],
    ['malformed input', '{\\\\\\}', "unrecognized character in action: U+005C '\\'"],
    ['invalid array index', '{[a]}', 'invalid array index a'],
    ['unterminated quote', '{"abc}', 'unterminated quoted string'],
    ['bad escape', '{"\\q"}', 'unquote string "\\q" error invalid syntax'],
    ['tab inside an action', '{.a\t}', 'unrecognized character in action: U+0009'],
    ['unclosed filter', '{[?(@.a==1)x}', 'unclosed array expect ]'],
  ];
  for (const [name, text, message] of failures) {
    it(`fails: ${name}`, () => {
      assert.throws(() => parseJsonPath(text), (err: unknown) => err instanceof JsonPathError && err.message === message);
    });
  }
});

describe('executeJsonPath and formatJsonPathResults', () => {
  it('returns one result list per printing node', () => {
    const parsed = parseJsonPath('x{.a}{range .l[*]}{@}-{end}');
    assert.deepEqual(executeJsonPath(parsed, { a: 1, l: ['p', 'q'] }), [['x'], [1], ['p'], ['-'], ['q'], ['-']]);
  });
  it('prints values joined by spaces', () => {
    assert.equal(formatJsonPathResults(['a', 1, 2.5, true, null, { b: [1] }]), 'a 1 2.5 true null {"b":[1]}');
  });
  it('leaves missing keys empty with allowMissingKeys', () => {
    assert.deepEqual(executeJsonPath(parseJsonPath('{.spec.replicas}'), { spec: {} }, { allowMissingKeys: true }), [[]]);
  });
});
