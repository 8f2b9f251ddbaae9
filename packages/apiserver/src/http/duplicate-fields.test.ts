import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duplicateFieldsOf, tagDuplicateFields } from './duplicate-fields.js';

/** What tagging the parse of `text` records. */
function tagged(text: string): string[] | undefined {
  const value = JSON.parse(text) as object;
  tagDuplicateFields(value, text);
  return duplicateFieldsOf(value)?.warnings;
}

describe('duplicate fields of a JSON body', () => {
  it('finds none in a text that prints as its parse, with or without a newline after it', () => {
    const text = JSON.stringify({ metadata: { name: 'a', labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    assert.equal(tagged(text), undefined);
    assert.equal(tagged(`${text}\n`), undefined);
  });

  it('finds each repeated key, in compact text as in text written otherwise', () => {
    assert.deepEqual(tagged('{"metadata":{"name":"a","name":"a"},"spec":{}}'), ['duplicate field "metadata.name"']);
    assert.deepEqual(tagged('{"spec":{"replicas":1},"spec":{"replicas":1}}\n'), ['duplicate field "spec"']);
    assert.deepEqual(tagged('{ "data": { "k": "1", "k": "2" } }'), ['duplicate field "data.k"']);
    assert.deepEqual(tagged('{"items":[{"a":1,"b":2,"a":1}]}'), ['duplicate field "items[0].a"']);
  });
});
