import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  SelectorError,
  everythingLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  newLabelRequirement,
  nothingLabelSelector,
  parseLabelSelector,
} from './labels.js';

const labelValueMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const namePartMsg =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (e) {
    assert.ok(e instanceof SelectorError, `expected SelectorError, got ${String(e)}`);
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

describe('parseLabelSelector', () => {
  test('canonical text: sorted by key, set values sorted, whitespace dropped', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['   ', ''],
      ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
      ['z=c,x=a', 'x=a,z=c'],
      ['x!=a,y=b', 'x!=a,y=b'],
      ['x==a', 'x==a'],
      ['x=', 'x='],
      ['x= ', 'x='],
      ['x=,z= ', 'x=,z='],
      ['  a  =  b , c ', 'a=b,c'],
      ['!x', '!x'],
      ['! x', '!x'],
      ['x', 'x'],
      ['x>1', 'x>1'],
      ['x>1,z<5', 'x>1,z<5'],
      ['x in (b,a)', 'x in (a,b)'],
      ['x in ( b , a )', 'x in (a,b)'],
      ['x in (a,a)', 'x in (a)'],
      ['x notin (a)', 'x notin (a)'],
      ['x in ()', 'x in ()'],
      ['x in (a,,b)', 'x in (,a,b)'],
      ['x in (,a)', 'x in (,a)'],
      ['x in (a,)', 'x in (,a)'],
      ['x in (in,notin)', 'x in (in,notin)'],
      ['in=notin', 'in=notin'],
      ['example.com/app=web,tier', 'example.com/app=web,tier'],
      ['a=b\t,\nc', 'a=b,c'],
    ];
    for (const [input, want] of cases) assert.equal(parseLabelSelector(input).toString(), want, input);
  });

  test('requirements expose key, operator and values', () => {
    const sel = parseLabelSelector('b in (y,x),a!=1,!c,d,e==2,f<3');
    assert.deepEqual(
      sel.requirements.map((r) => [r.key, r.operator, r.values]),
      [
        ['a', '!=', ['1']],
        ['b', 'in', ['x', 'y']],
        ['c', '!', []],
        ['d', 'exists', []],
        ['e', '==', ['2']],
        ['f', 'lt', ['3']],
      ],
    );
  });

  test('matching', () => {
    const cases: [string, Record<string, string> | undefined, boolean][] = [
      ['', {}, true],
      ['', undefined, true],
      ['x=a', { x: 'a' }, true],
      ['x=a', { x: 'b' }, false],
      ['x=a', {}, false],
      ['x==a', { x: 'a' }, true],
      ['x!=a', {}, true],
      ['x!=a', { x: 'a' }, false],
      ['x!=a', { x: 'b' }, true],
      ['x=', { x: '' }, true],
      ['x=', {}, false],
      ['x in (a,b)', { x: 'b' }, true],
      ['x in (a,b)', { x: 'c' }, false],
      ['x in (a,b)', {}, false],
      ['x notin (a)', {}, true],
      ['x notin (a)', { x: 'a' }, false],
      ['x notin (a)', { x: 'b' }, true],
      ['x', { x: '' }, true],
      ['x', {}, false],
      ['x', undefined, false],
      ['!x', {}, true],
      ['!x', undefined, true],
      ['!x', { x: 'a' }, false],
      ['x>1', { x: '2' }, true],
      ['x>1', { x: '1' }, false],
      ['x>1', { x: 'a' }, false],
      ['x>1', {}, false],
      ['x<1', { x: '-5' }, true],
      ['x<1', { x: '+0' }, true],
      ['x>1', { x: '99999999999999999999' }, false],
      ['x=a,y=b', { x: 'a', y: 'b', z: 'c' }, true],
      ['x=a,y=b', { x: 'a' }, false],
      ['toString', {}, false],
      ['!toString', {}, true],
    ];
    for (const [sel, labels, want] of cases) {
      assert.equal(parseLabelSelector(sel).matches(labels), want, `${sel} on ${JSON.stringify(labels)}`);
    }
  });

  test('empty and requiresExactMatch', () => {
    assert.equal(parseLabelSelector('').empty(), true);
    assert.equal(parseLabelSelector('x').empty(), false);
    const sel = parseLabelSelector('x=a,y in (b),z in (c,d),w!=e');
    assert.equal(sel.requiresExactMatch('x'), 'a');
    assert.equal(sel.requiresExactMatch('y'), 'b');
    assert.equal(sel.requiresExactMatch('z'), undefined);
    assert.equal(sel.requiresExactMatch('w'), undefined);
    assert.equal(sel.requiresExactMatch('nope'), undefined);
  });

  test('syntax errors in kube-apiserver wording', () => {
    const cases: [string, string][] = [
      ['a in x', "unable to parse requirement: found 'x' expected: '('"],
      ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
      ['x==a==b', "found '==', expected: ',' or 'end of string'"],
      ['!x=a', "found '=', expected: ',' or 'end of string'"],
      ['a,', "found '', expected: identifier after ','"],
      ['a,,b', "found ',', expected: identifier after ','"],
      [',a', "found ',', expected: !, identifier, or 'end of string'"],
      ['=a', "found '=', expected: !, identifier, or 'end of string'"],
      ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
      ['a in (x y)', "unable to parse requirement: found 'y', expected: ',' or ')'"],
      ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
      ['a in (x,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
      ['a=(', "unable to parse requirement: found '(', expected: identifier"],
      ['!', "unable to parse requirement: found '', expected: identifier"],
      ['!!a', "unable to parse requirement: found '!', expected: identifier"],
      ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    ];
    for (const [input, want] of cases) assert.equal(parseError(input), want, input);
  });

  test('invalid keys and values in kube-apiserver wording', () => {
    assert.equal(parseError('A@=b'), `unable to parse requirement: <nil>: Invalid value: "A@": ${namePartMsg}`);
    assert.equal(
      parseError('a/b/c'),
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    assert.equal(
      parseError('x=a||y=b'),
      `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${labelValueMsg}`,
    );
    assert.equal(
      parseError(`x=${'a'.repeat(64)}`),
      `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
    );
    assert.equal(
      parseError('x in (-a,b-)'),
      `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${labelValueMsg}, values[1][x]: Invalid value: "b-": ${labelValueMsg}]`,
    );
  });
});

describe('newLabelRequirement', () => {
  test('checks value counts as kube does', () => {
    assert.throws(() => newLabelRequirement('a', '=', ['x', 'y']), {
      message: 'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    });
    assert.throws(() => newLabelRequirement('a', 'gt', []), {
      message: "values: Invalid value: []string{}: for 'Gt', 'Lt' operators, exactly one value is required",
    });
    assert.throws(() => newLabelRequirement('a', 'in'), {
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    });
    assert.deepEqual(newLabelRequirement('a', 'in', ['x']), { key: 'a', operator: 'in', values: ['x'] });
  });
});

describe('labelSelectorFromObject', () => {
  test('absent selects nothing by default, everything on request; {} selects everything', () => {
    for (const absent of [undefined, null]) {
      const sel = labelSelectorFromObject(absent);
      assert.equal(sel.matches({}), false);
      assert.equal(sel.matches({ a: 'b' }), false);
      assert.equal(sel.empty(), false);
      assert.equal(sel.toString(), '');
      assert.equal(labelSelectorFromObject(absent, { absent: 'everything' }).matches({ a: 'b' }), true);
    }
    const empty = labelSelectorFromObject({});
    assert.equal(empty.empty(), true);
    assert.equal(empty.matches(undefined), true);
    assert.equal(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).matches({}), true);
  });

  test('matchLabels and matchExpressions', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'x', operator: 'DoesNotExist' },
        { key: 'team', operator: 'Exists', values: [] },
      ],
    });
    assert.equal(sel.toString(), 'app=web,env notin (prod),team,tier in (a,b),!x');
    assert.equal(sel.matches({ app: 'web', tier: 'a', team: 't' }), true);
    assert.equal(sel.matches({ app: 'web', tier: 'a', team: 't', env: 'prod' }), false);
    assert.equal(sel.matches({ app: 'web', tier: 'c', team: 't' }), false);
    assert.equal(sel.matches({ app: 'web', tier: 'a' }), false);
    assert.equal(sel.matches({ app: 'web', tier: 'a', team: 't', x: '' }), false);
    assert.equal(sel.requiresExactMatch('app'), 'web');
  });

  test('errors in kube wording', () => {
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Foo' }] }), {
      name: 'SelectorError',
      message: '"Foo" is not a valid label selector operator',
    });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    });
    assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), {
      message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    });
    assert.throws(() => labelSelectorFromObject({ matchLabels: { 'a b': 'v' } }), {
      message: `key: Invalid value: "a b": ${namePartMsg}`,
    });
    assert.throws(() => labelSelectorFromObject({ matchLabels: { app: '-bad' } }), {
      message: `values[0][app]: Invalid value: "-bad": ${labelValueMsg}`,
    });
    assert.throws(() => labelSelectorFromObject({ matchLabels: { 'a b': '-x' } }), {
      message: `[key: Invalid value: "a b": ${namePartMsg}, values[0][a b]: Invalid value: "-x": ${labelValueMsg}]`,
    });
  });
});

describe('other constructors', () => {
  test('everything, nothing, from a set', () => {
    assert.equal(everythingLabelSelector().matches({ a: 'b' }), true);
    assert.equal(everythingLabelSelector().empty(), true);
    assert.equal(nothingLabelSelector().matches({}), false);
    const sel = labelSelectorFromSet({ b: '2', a: '1' });
    assert.equal(sel.toString(), 'a=1,b=2');
    assert.equal(sel.matches({ a: '1', b: '2' }), true);
    assert.equal(sel.matches({ a: '1' }), false);
    assert.equal(labelSelectorFromSet({}).empty(), true);
  });
});
