import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  escapeFieldSelectorValue,
  everythingFieldSelector,
  fieldSelectorFromSet,
  fieldValue,
  parseFieldSelector,
  unescapeFieldSelectorValue,
} from './fields.js';
import { SelectorError } from './labels.js';

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (e) {
    assert.ok(e instanceof SelectorError, `expected SelectorError, got ${String(e)}`);
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

const reader =
  (fields: Record<string, string>) =>
  (f: string): string | undefined =>
    fields[f];

describe('parseFieldSelector', () => {
  test('operators and requirements', () => {
    assert.deepEqual(parseFieldSelector('metadata.name=foo').requirements, [
      { field: 'metadata.name', operator: '=', value: 'foo' },
    ]);
    assert.deepEqual(parseFieldSelector('a==b').requirements, [{ field: 'a', operator: '=', value: 'b' }]);
    assert.deepEqual(parseFieldSelector('a!=b').requirements, [{ field: 'a', operator: '!=', value: 'b' }]);
    assert.deepEqual(parseFieldSelector('a=').requirements, [{ field: 'a', operator: '=', value: '' }]);
    assert.deepEqual(parseFieldSelector('a!b=c').requirements, [{ field: 'a!b', operator: '=', value: 'c' }]);
    // Terms are sorted by their text, as kube sorts them.
    assert.deepEqual(
      parseFieldSelector('status.phase!=Running,metadata.namespace=ns').requirements.map((r) => r.field),
      ['metadata.namespace', 'status.phase'],
    );
  });

  test('empty texts and empty terms', () => {
    assert.equal(parseFieldSelector('').empty(), true);
    assert.equal(parseFieldSelector(',,').empty(), true);
    assert.equal(parseFieldSelector('=').empty(), true);
    assert.equal(parseFieldSelector(',a=b,').requirements.length, 1);
    assert.equal(parseFieldSelector('a=').empty(), false);
  });

  test('escapes', () => {
    assert.equal(parseFieldSelector('a=x\\,y').requirements[0]!.value, 'x,y');
    assert.equal(parseFieldSelector('a=x\\=y').requirements[0]!.value, 'x=y');
    assert.equal(parseFieldSelector('a=x\\\\y').requirements[0]!.value, 'x\\y');
    assert.equal(parseFieldSelector('a=x\\,y,b=z').requirements.length, 2);
    assert.equal(parseFieldSelector('b=z,a=x\\,y').toString(), 'a=x\\,y,b=z');
    assert.equal(parseFieldSelector('a!=\\\\').toString(), 'a!=\\\\');
    assert.equal(escapeFieldSelectorValue('a\\b,c=d'), 'a\\\\b\\,c\\=d');
    assert.equal(unescapeFieldSelectorValue(escapeFieldSelectorValue('a\\b,c=d')), 'a\\b,c=d');
    assert.equal(unescapeFieldSelectorValue('plain!'), 'plain!');
  });

  test('errors in kube-apiserver wording', () => {
    assert.equal(parseError('a'), "invalid selector: 'a'; can't understand 'a'");
    assert.equal(parseError('a=b,c'), "invalid selector: 'a=b,c'; can't understand 'c'");
    assert.equal(parseError('a=b=c'), 'invalid field selector: unescaped character in value: 61');
    assert.equal(parseError('x!=y=='), 'invalid field selector: unescaped character in value: 61');
    assert.equal(parseError('a=x\\!y'), 'invalid field selector: invalid escape sequence: \\!');
    assert.equal(parseError('a=x\\'), 'invalid field selector: invalid escape sequence: \\');
    assert.throws(() => unescapeFieldSelectorValue('a,b'), { message: 'invalid field selector: unescaped character in value: 44' });
  });

  test('matching; a missing field reads as ""', () => {
    const pod = reader({ 'metadata.name': 'web', 'spec.nodeName': 'n1', 'status.phase': 'Running' });
    assert.equal(parseFieldSelector('metadata.name=web').matches(pod), true);
    assert.equal(parseFieldSelector('metadata.name==web,spec.nodeName=n1').matches(pod), true);
    assert.equal(parseFieldSelector('metadata.name=web,spec.nodeName=n2').matches(pod), false);
    assert.equal(parseFieldSelector('status.phase!=Running').matches(pod), false);
    assert.equal(parseFieldSelector('status.phase!=Pending').matches(pod), true);
    const unscheduled = reader({ 'metadata.name': 'web' });
    assert.equal(parseFieldSelector('spec.nodeName=').matches(unscheduled), true);
    assert.equal(parseFieldSelector('spec.nodeName!=').matches(unscheduled), false);
    assert.equal(parseFieldSelector('spec.nodeName!=n1').matches(unscheduled), true);
    assert.equal(parseFieldSelector('').matches(unscheduled), true);
  });

  test('requiresExactMatch, transform, constructors', () => {
    const sel = parseFieldSelector('metadata.name=web,spec.nodeName!=n1');
    assert.equal(sel.requiresExactMatch('metadata.name'), 'web');
    assert.equal(sel.requiresExactMatch('spec.nodeName'), undefined);
    const renamed = sel.transform((field, value) => ({ field: field === 'spec.nodeName' ? 'spec.host' : field, value }));
    assert.equal(renamed.toString(), 'metadata.name=web,spec.host!=n1');
    const dropped = sel.transform((field, value) => (field === 'metadata.name' ? { field: '', value: '' } : { field, value }));
    assert.equal(dropped.toString(), 'spec.nodeName!=n1');
    assert.throws(() =>
      sel.transform((field) => {
        throw new Error(`field label not supported: ${field}`);
      }),
    );
    assert.equal(everythingFieldSelector().empty(), true);
    assert.equal(fieldSelectorFromSet({ 'metadata.name': 'a,b' }).toString(), 'metadata.name=a\\,b');
  });
});

describe('fieldValue', () => {
  const pod = {
    metadata: { name: 'web', namespace: 'ns' },
    spec: { nodeName: 'n1', hostNetwork: false, priority: 3, ratio: 1.5, containers: [{ name: 'c' }], empty: null },
  };
  test('reads strings, booleans and numbers as kube formats them', () => {
    assert.equal(fieldValue(pod, 'metadata.name'), 'web');
    assert.equal(fieldValue(pod, 'spec.nodeName'), 'n1');
    assert.equal(fieldValue(pod, 'spec.hostNetwork'), 'false');
    assert.equal(fieldValue({ spec: { hostNetwork: true } }, 'spec.hostNetwork'), 'true');
    assert.equal(fieldValue(pod, 'spec.priority'), '3');
    assert.equal(fieldValue(pod, 'spec.ratio'), '1.5');
  });
  test('missing, null and composite values are undefined', () => {
    assert.equal(fieldValue(pod, 'spec.missing'), undefined);
    assert.equal(fieldValue(pod, 'status.phase'), undefined);
    assert.equal(fieldValue(pod, 'spec'), undefined);
    assert.equal(fieldValue(pod, 'spec.containers'), undefined);
    assert.equal(fieldValue(pod, 'spec.containers.0'), undefined);
    assert.equal(fieldValue(pod, 'spec.empty'), undefined);
    assert.equal(fieldValue(pod, 'metadata.name.x'), undefined);
    assert.equal(fieldValue(null, 'a'), undefined);
    assert.equal(fieldValue('str', 'length'), undefined);
    assert.equal(fieldValue({}, 'toString'), undefined);
  });
  test('works with a selector', () => {
    const sel = parseFieldSelector('spec.nodeName=n1,spec.hostNetwork=false,status.phase=');
    assert.equal(
      sel.matches((f) => fieldValue(pod, f)),
      true,
    );
  });
});
